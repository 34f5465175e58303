/**
 * PodStore: the desired pods, kept in a data directory so that a restart of the server (even `kill -9`)
 * brings every pod back — the role the API server plays for a real kubelet.
 *
 * Layout: one file per pod, `<dir>/<metadata.uid>.json`, holding the v1 Pod without `status` (status is
 * what the engine computes, never what we remember). One file per pod rather than one file for all because
 * a write then costs one small pod instead of every pod, a crash can only ever touch the pod being written,
 * and a delete is an unlink. Each put/remove is atomic and durable (see atomic-file.ts).
 *
 * Contract: called synchronously from API handlers (small files; each call fsyncs, a few ms on a disk).
 * One process owns a directory at a time (the data dir lock, lock.ts). load() never throws on bad content:
 * a stray temp file from a crash is removed, an unreadable or malformed `<uid>.json` is skipped (and left in
 * place for a human), each with a warning. Something other than a regular file under a pod's name (a FIFO,
 * whose read would block the start for ever; a directory; a symlink) is moved aside as
 * `<name>.damaged-<time>` (plain-file.ts). A pod read back is trusted no further than the API trusts a new
 * one: its namespace, name and container names must be names the API accepts (DNS-1123), since they become
 * paths (the pod's log directory `<ns>_<name>_<uid>/<container>/`) that must stay inside the data dir.
 * Files are 0600 and the directory 0700 (pod specs hold env values); looser ones are tightened at load.
 *
 * put() and remove() throw a StoreWriteError when the disk refuses (full, read-only, I/O error); the file is
 * then as it was. The store remembers what it last wrote or read for each pod, so a put of the same content
 * again (the engine's echo of a change the API already stored) costs nothing. `failure` holds the last
 * refusal until a later write succeeds.
 */
import { lstatSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Pod } from '@syncscope/core/api/v1';
import {
  FILE_MODE,
  isTempFile,
  removeFileDurableSync,
  tightenMode,
  writeFileAtomicSync,
} from './atomic-file.ts';
import { errorText } from './damage.ts';
import { ensurePlainDir, kindOf, moveAside, readPlainFile } from './plain-file.ts';
import { StoreWriteError } from './write-error.ts';

const POD_FILE = /^(.+)\.json$/;
/** Kubernetes UIDs are UUIDs; anything that could escape the directory or hide as a dotfile is refused. */
const SAFE_UID = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
/** A namespace or a container name (DNS-1123 label) and a pod name (DNS-1123 subdomain), as the API checks. */
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export interface PodStoreOptions {
  /** Where warnings go (default console.warn). */
  warn?: (msg: string) => void;
}

export class PodStore {
  private readonly warn: (msg: string) => void;
  /** uid → the JSON text of the pod as it is on disk (what load read or put wrote). */
  private readonly onDisk = new Map<string, string>();
  /** The last refused write, cleared by the next one that succeeds. */
  failure: StoreWriteError | undefined;
  /** Writes refused since start. */
  failures = 0;

  constructor(
    readonly dir: string,
    opts: PodStoreOptions = {},
  ) {
    this.warn = opts.warn ?? ((msg) => console.warn(msg));
    ensurePlainDir(dir, 'pod store:', this.warn);
  }

  /** Every stored pod, oldest first (creationTimestamp, then namespace/name). */
  load(): Pod[] {
    const pods: Pod[] = [];
    for (const name of readdirSync(this.dir).sort()) {
      const path = join(this.dir, name);
      if (isTempFile(name)) {
        this.removeTemp(path);
        continue;
      }
      const m = POD_FILE.exec(name);
      if (!m) continue;
      const pod = this.readPod(path, m[1] as string);
      if (pod) pods.push(pod);
    }
    return pods.sort(
      (a, b) =>
        (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') ||
        key(a).localeCompare(key(b)),
    );
  }

  /**
   * Stores (or replaces) the pod under its metadata.uid; its status is dropped. Returns once the file is
   * on disk; throws StoreWriteError (nothing changed) when the disk refuses.
   */
  put(pod: Pod): void {
    const uid = checkUID(pod.metadata?.uid);
    const { status: _status, ...desired } = pod;
    const text = `${JSON.stringify(desired, null, 2)}\n`;
    if (this.onDisk.get(uid) === text) return;
    this.write(this.pathOf(uid), () => writeFileAtomicSync(this.pathOf(uid), text));
    this.onDisk.set(uid, text);
  }

  /** Forgets the pod; removing one that is not stored is not an error. Throws StoreWriteError as put. */
  remove(uid: string): void {
    const path = this.pathOf(checkUID(uid));
    this.write(path, () => removeFileDurableSync(path));
    this.onDisk.delete(uid);
  }

  private write(path: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.failures++;
      this.failure = StoreWriteError.from(err, path);
      throw this.failure;
    }
    this.failure = undefined;
  }

  private pathOf(uid: string): string {
    return join(this.dir, `${uid}.json`);
  }

  /** A temp file left by a crash is removed; anything else under a temp name is moved aside. */
  private removeTemp(path: string): void {
    try {
      const st = lstatSync(path);
      if (st.isFile()) {
        this.warn(`pod store: removing ${path}, an unfinished write from an earlier run`);
        rmSync(path, { force: true });
      } else
        this.warn(`pod store: ${path} is ${kindOf(st)}, not expected there; moved to ${moveAside(path)}`);
    } catch (err) {
      this.warn(`pod store: cannot remove ${path}: ${errorText(err)}`);
    }
  }

  private readPod(path: string, uid: string): Pod | undefined {
    let v: unknown;
    let text: string;
    try {
      const buf = readPlainFile(path, 'pod store:', this.warn);
      if (buf === undefined) return undefined;
      text = buf.toString('utf8');
      v = JSON.parse(text);
    } catch (err) {
      this.warn(`pod store: skipping ${path}: ${errorText(err)}`);
      return undefined;
    }
    tightenMode(path, FILE_MODE, this.warn);
    const why = checkPod(v, uid);
    if (why) {
      this.warn(`pod store: skipping ${path}: ${why}`);
      return undefined;
    }
    this.onDisk.set(uid, text);
    return v as Pod;
  }
}

function key(p: Pod): string {
  return `${p.metadata.namespace ?? ''}/${p.metadata.name}`;
}

function checkUID(uid: string | undefined): string {
  if (!uid || !SAFE_UID.test(uid)) throw new Error(`pod store: invalid metadata.uid ${JSON.stringify(uid)}`);
  return uid;
}

/** Enough shape to hand the object to the engine; full validation happened when it was admitted. */
function checkPod(v: unknown, uid: string): string | undefined {
  if (typeof v !== 'object' || v === null) return 'not an object';
  const o = v as Partial<Pod>;
  if (o.apiVersion !== 'v1' || o.kind !== 'Pod') return 'not a v1 Pod';
  if (typeof o.metadata !== 'object' || o.metadata === null) return 'no metadata';
  if (typeof o.metadata.name !== 'string' || !o.metadata.name) return 'no metadata.name';
  if (o.metadata.uid !== uid)
    return `metadata.uid ${JSON.stringify(o.metadata.uid)} does not match the file name`;
  if (!DNS1123_SUBDOMAIN.test(o.metadata.name))
    return `metadata.name ${JSON.stringify(o.metadata.name)} is not a valid name`;
  const ns = o.metadata.namespace;
  if (ns !== undefined && (typeof ns !== 'string' || !DNS1123_LABEL.test(ns)))
    return `metadata.namespace ${JSON.stringify(ns)} is not a valid namespace`;
  if (typeof o.spec !== 'object' || o.spec === null) return 'no spec';
  const spec = o.spec as unknown as Record<string, unknown>;
  for (const field of ['containers', 'initContainers', 'ephemeralContainers']) {
    const list = spec[field];
    if (list === undefined && field !== 'containers') continue;
    if (!Array.isArray(list)) return `spec.${field} is not a list`;
    for (const c of list) {
      const name = (c as { name?: unknown } | null)?.name;
      if (typeof name !== 'string' || !DNS1123_LABEL.test(name))
        return `spec.${field} holds a container name ${JSON.stringify(name)} that is not a valid name`;
    }
  }
  return undefined;
}
