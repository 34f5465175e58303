/**
 * The namespaces, as the apiserver's namespace registry and the namespace controller keep them:
 *   - default, kube-system, kube-public and kube-node-lease exist from the start;
 *   - create adds one (201), once (409 AlreadyExists), with a lowercase RFC 1123 label of a name;
 *   - delete marks it Terminating (deletionTimestamp set: a 200 with the object), deletes its pods as the
 *     namespace controller does, and removes it once none is left (`sweep`, on every pod that leaves);
 *     default, kube-system and kube-public may not be deleted (403), a second delete is a 409;
 *   - a namespace some pod is in exists even if it was never created here (pods kept across a restart;
 *     the pods of the node's API server in observe mode), Active, as old as its oldest pod.
 * Each change (a create, a delete, the removal of a Terminating namespace) is saved (deps.keeper, the
 * data dir's NamespaceFile: durable when it returns) before it is made in memory and answered: a create or
 * delete the disk refuses is a 507 (no space) or 503 and changes nothing; a removal the disk refuses is
 * warned about, the namespace stays Terminating, and it is tried again at the next sweep. A store made with the saved
 * records starts from them (the system namespaces are added when missing); `resume` then does the namespace
 * controller's work a restart cut short. Without a keeper (no data dir) nothing outlives the process. A dry
 * run saves nothing. Listeners hear every change (the watch diffs the list then).
 */
import { randomUUID } from 'node:crypto';
import { isStatus, type Pod, rfc3339, type Status } from '@syncscope/core/api';
import { StatusError, status } from '../status.ts';
import { readNamespaceBody } from './namespace-body.ts';
import {
  IMMORTAL_NAMESPACES,
  NAMESPACE_NAME_LABEL,
  type Namespace,
  SYSTEM_NAMESPACES,
} from './namespace-object.ts';
import { type NamespaceKeeper, type NamespaceRecord, namespaceObject } from './namespace-record.ts';
import type { NamespaceChange } from './namespace-update.ts';
import { notFoundOf } from './respond.ts';

export type { NamespaceKeeper, NamespaceRecord } from './namespace-record.ts';

const STILL_TERMINATING =
  'The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.';

type Entry = NamespaceRecord;

interface NamespaceStoreDeps {
  pods(): readonly Pod[];
  now(): number;
  /** The resourceVersion a change made now gets. */
  version(): number;
  /** Deletes a pod as a DELETE of it with default options does. */
  deletePod(uid: string): void;
  /** Where every change is kept before it is made; none keeps nothing. */
  keeper?: NamespaceKeeper;
}

const nsOf = (p: Pod) => p.metadata.namespace ?? 'default';

export class NamespaceStore {
  private entries = new Map<string, Entry>();
  private readonly listeners = new Set<() => void>();
  /** The removal the disk last refused (warned about once), until one is saved. */
  private refusedRemoval: string | undefined;

  constructor(
    private readonly deps: NamespaceStoreDeps,
    startedAt: number,
    saved: readonly NamespaceRecord[] = [],
  ) {
    for (const name of SYSTEM_NAMESPACES) this.put(name, {}, rfc3339(startedAt));
    for (const r of saved) this.entries.set(r.name, r);
  }

  /** Every namespace, by name. */
  list(): Namespace[] {
    const out = new Map<string, Namespace>();
    for (const e of this.entries.values()) out.set(e.name, namespaceObject(e));
    const rv = String(this.deps.version());
    for (const p of this.deps.pods()) {
      const name = nsOf(p);
      const created = p.metadata.creationTimestamp ?? rfc3339(this.deps.now());
      const seen = out.get(name);
      if (seen && this.entries.has(name)) continue;
      if (seen && seen.metadata.creationTimestamp <= created) continue;
      out.set(name, namespaceObject({ name, uid: '', created, resourceVersion: rv, labels: {} }));
    }
    return [...out.values()].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  }

  get(name: string): Namespace | undefined {
    const e = this.entries.get(name);
    if (e) return namespaceObject(e);
    return this.list().find((n) => n.metadata.name === name);
  }

  /** Creates the namespace `body` describes; with `dryRun` answers it as it would be, keeping nothing. */
  create(body: unknown, dryRun: boolean): Namespace | Status {
    const asked = readNamespaceBody(body);
    if (isStatus(asked)) return asked;
    const { name, labels, annotations } = asked;
    if (this.get(name))
      return status(409, 'AlreadyExists', `namespaces "${name}" already exists`, {
        name,
        kind: 'namespaces',
      });
    const entry = this.entry(name, labels, rfc3339(this.deps.now()));
    if (Object.keys(annotations).length > 0) entry.annotations = annotations;
    if (dryRun) return namespaceObject(entry);
    const refused = this.write(new Map(this.entries).set(name, entry));
    if (refused) return refused;
    this.changed();
    return namespaceObject(entry);
  }

  /**
   * Replaces the labels and annotations of namespace `name` (as namespace-update.ts read them); with `dryRun`
   * answers the namespace as it would be, keeping nothing. One known only from its pods gets a record here.
   */
  update(name: string, change: NamespaceChange, dryRun: boolean): Namespace | Status {
    const ns = this.get(name);
    if (!ns) return notFoundOf('namespaces', name);
    const { [NAMESPACE_NAME_LABEL]: _, ...labels } = change.labels;
    const entry: Entry = {
      ...(this.entries.get(name) ?? this.entry(name, {}, ns.metadata.creationTimestamp)),
      labels,
      resourceVersion: String(this.deps.version()),
    };
    if (Object.keys(change.annotations).length > 0) entry.annotations = change.annotations;
    else delete entry.annotations;
    if (dryRun) return namespaceObject(entry);
    const refused = this.write(new Map(this.entries).set(name, entry));
    if (refused) return refused;
    this.changed();
    return namespaceObject(entry);
  }

  /**
   * Starts deleting a namespace: Terminating, its pods deleted, gone once they are. With `dryRun` answers
   * the Terminating namespace and changes nothing.
   */
  delete(name: string, dryRun: boolean): Namespace | Status {
    if (IMMORTAL_NAMESPACES.has(name))
      return status(
        403,
        'Forbidden',
        `namespaces "${name}" is forbidden: this namespace may not be deleted`,
        {
          name,
          kind: 'namespaces',
        },
      );
    const ns = this.get(name);
    if (!ns) return notFoundOf('namespaces', name);
    if (ns.metadata.deletionTimestamp)
      return status(
        409,
        'Conflict',
        `Operation cannot be fulfilled on namespaces "${name}": ${STILL_TERMINATING}`,
        {
          name,
          kind: 'namespaces',
        },
      );
    const entry: Entry = {
      ...(this.entries.get(name) ?? this.entry(name, {}, ns.metadata.creationTimestamp)),
      deletion: rfc3339(this.deps.now()),
      resourceVersion: String(this.deps.version()),
    };
    if (dryRun) return namespaceObject(entry);
    // Terminating is kept first, as the apiserver stores the delete before the namespace controller acts:
    // a disk that refuses it leaves the namespace and its pods as they were
    const refused = this.write(new Map(this.entries).set(name, entry));
    if (refused) return refused;
    this.changed();
    this.deleteContent(name);
    const answer = namespaceObject(entry);
    this.sweep();
    return answer;
  }

  /**
   * The namespace controller's work after a restart: the pods of each Terminating namespace that are not
   * being deleted yet are deleted (a stop between the saved delete and its pods' deletes), and the
   * namespaces left without pods are removed. A pod delete refused is warned about: the start goes on.
   */
  resume(): void {
    for (const e of this.entries.values()) {
      if (e.deletion === undefined) continue;
      try {
        this.deleteContent(e.name);
      } catch (err) {
        this.deps.keeper?.warn(`namespace ${e.name}: its pods not deleted: ${(err as Error).message}`);
      }
    }
    this.sweep();
  }

  /** The namespace controller's last step: every Terminating namespace without pods is removed. */
  sweep(): void {
    const terminating = [...this.entries.values()].filter((e) => e.deletion !== undefined);
    if (terminating.length === 0) return;
    const used = new Set(this.deps.pods().map(nsOf));
    const gone = terminating.filter((e) => !used.has(e.name)).map((e) => e.name);
    if (gone.length === 0) return;
    const next = new Map(this.entries);
    for (const name of gone) next.delete(name);
    const refused = this.write(next);
    if (refused) {
      // still Terminating on disk, so here too: tried again at the next sweep (and at the next start)
      if (this.refusedRemoval !== refused.message)
        this.deps.keeper?.warn(
          `${refused.message} (namespaces ${gone.join(', ')} stay Terminating until it can)`,
        );
      this.refusedRemoval = refused.message;
      return;
    }
    this.refusedRemoval = undefined;
    this.changed();
  }

  /** Calls `listener` after every change; returns the unsubscribe. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Saves `next` and makes it the namespaces; the disk's refusal, with nothing changed, if it refuses. */
  private write(next: Map<string, Entry>): Status | undefined {
    try {
      this.deps.keeper?.save([...next.values()]);
    } catch (err) {
      if (err instanceof StatusError) return err.status;
      throw err;
    }
    this.entries = next;
    return undefined;
  }

  /** Deletes every pod of namespace `name` not being deleted yet. */
  private deleteContent(name: string): void {
    for (const p of this.deps.pods())
      if (nsOf(p) === name && !p.metadata.deletionTimestamp && p.metadata.uid)
        this.deps.deletePod(p.metadata.uid);
  }

  private changed(): void {
    for (const l of [...this.listeners]) l();
  }

  private entry(name: string, labels: Record<string, string>, created: string): Entry {
    return { name, uid: randomUUID(), created, resourceVersion: String(this.deps.version()), labels };
  }

  private put(name: string, labels: Record<string, string>, created: string): void {
    this.entries.set(name, this.entry(name, labels, created));
  }
}
