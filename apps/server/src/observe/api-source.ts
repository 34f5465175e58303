/**
 * The kubelet's input, seen by an observer: the apiserver config source (pkg/kubelet/config/apiserver.go) and
 * the merge of pkg/kubelet/config/config.go, read-only. Two reflectors (reflector.ts) list and watch
 *
 *   pods   /api/v1/pods?fieldSelector=spec.nodeName=<node>   the pods bound to this node, as the kubelet's
 *   events /api/v1/events?fieldSelector=involvedObject.kind=Pod   kept for the pods above
 *
 * and each change of a pod is turned into the op the kubelet's merge makes of it (checkAndUpdatePod):
 *
 *   a pod not held                                   → ADD
 *   spec, labels, annotations or deletion changed    → DELETE when deletionTimestamp is set, else UPDATE
 *   only the status changed                          → RECONCILE
 *   gone from the API (DELETED, or not in a re-list) → REMOVE
 *
 * Each op is recorded as `config.update` (source `api`); a DELETE (and the ADD of a pod already being deleted)
 * carries the pod's deletionTimestamp and deletionGracePeriodSeconds. A pod the runtime does not show (`onRuntime` false) gets the API's status as
 * `status.update` when it changes. An Event about a held pod is recorded as `k8s.event` once per count it
 * reaches; Events about a pod not yet held wait (at most PENDING_EVENTS) for its ADD.
 *
 * Memory: the held pods, the names and counts of their current Events, and the waiting Events.
 */
import type { Event, Pod } from '@syncscope/core/api';
import type { Clock } from '@syncscope/core/clock';
import type { TraceRecorder } from '@syncscope/core/events/recorder';
import type { ConfigOp, PodRef } from '@syncscope/core/events/trace';
import type { KubeClient } from './kube-client.ts';
import { Reflector, type ReflectorSink, type WatchEventType } from './reflector.ts';

/** The kubelet's name of this config source. */
export const API_SOURCE = 'api';
const PENDING_EVENTS = 512;

export interface ApiSourceDeps {
  client: KubeClient;
  nodeName: string;
  clock: Clock;
  trace: Pick<TraceRecorder, 'record'>;
  warn: (msg: string) => void;
  /** Does the runtime show this pod (a sandbox or a container)? */
  onRuntime(uid: string): boolean;
}

interface Held {
  pod: Pod;
  ref: PodRef;
  /** what podsDifferSemantically compares */
  semantic: string;
  status: string;
  /** names of its Events held in `events` */
  events: Set<string>;
}

const refOf = (p: Pod): PodRef => ({
  podUID: p.metadata.uid ?? '',
  pod: `${p.metadata.namespace ?? 'default'}/${p.metadata.name}`,
});

function semantic(p: Pod): string {
  const m = p.metadata;
  return JSON.stringify([p.spec, m.labels, m.annotations, m.deletionTimestamp, m.deletionGracePeriodSeconds]);
}

const eventKey = (e: Event) => `${e.metadata.namespace ?? ''}/${e.metadata.name}`;

export class ApiSource {
  private readonly held = new Map<string, Held>();
  /** Event key → the count last recorded, and its pod */
  private readonly events = new Map<string, { count: number; uid: string }>();
  private readonly pending = new Map<string, Event>();
  private readonly pods: Reflector<Pod>;
  private readonly podEvents: Reflector<Event>;

  constructor(private readonly d: ApiSourceDeps) {
    const podSink: ReflectorSink<Pod> = {
      replace: (items) => {
        const now = new Set<string>();
        for (const p of items) {
          now.add(p.metadata.uid ?? '');
          this.upsert(p);
        }
        for (const uid of [...this.held.keys()]) if (!now.has(uid)) this.remove(uid);
      },
      event: (type, p) => (type === 'DELETED' ? this.remove(p.metadata.uid ?? '') : this.upsert(p)),
    };
    const eventSink: ReflectorSink<Event> = {
      replace: (items) => {
        const now = new Set(items.map(eventKey));
        for (const [k, v] of [...this.events]) {
          if (now.has(k)) continue;
          this.events.delete(k);
          this.held.get(v.uid)?.events.delete(k);
        }
        for (const e of items) this.onEvent('ADDED', e);
      },
      event: (type, e) => this.onEvent(type, e),
    };
    const common = { client: d.client, clock: d.clock, warn: d.warn };
    this.pods = new Reflector({
      ...common,
      path: '/api/v1/pods',
      fieldSelector: `spec.nodeName=${d.nodeName}`,
      sink: podSink,
    });
    this.podEvents = new Reflector({
      ...common,
      path: '/api/v1/events',
      fieldSelector: 'involvedObject.kind=Pod',
      sink: eventSink,
    });
  }

  start(): void {
    this.pods.start();
    this.podEvents.start();
  }

  async stop(): Promise<void> {
    await Promise.all([this.pods.stop(), this.podEvents.stop()]);
  }

  /** The API's pod of this UID, when bound to this node. */
  get(uid: string): Pod | undefined {
    return this.held.get(uid)?.pod;
  }

  all(): Pod[] {
    return [...this.held.values()].map((h) => h.pod);
  }

  ref(uid: string): PodRef | undefined {
    return this.held.get(uid)?.ref;
  }

  private record(op: ConfigOp, h: Held): void {
    const m = h.pod.metadata;
    const deletion =
      (op === 'DELETE' || op === 'ADD') && m.deletionTimestamp
        ? {
            ...(m.deletionTimestamp ? { deletionTimestamp: m.deletionTimestamp } : {}),
            ...(m.deletionGracePeriodSeconds !== undefined
              ? { gracePeriodS: m.deletionGracePeriodSeconds }
              : {}),
          }
        : {};
    this.d.trace.record({ type: 'config.update', op, source: API_SOURCE, ...deletion, ...h.ref });
  }

  private upsert(pod: Pod): void {
    const uid = pod.metadata.uid;
    if (!uid) return;
    const had = this.held.get(uid);
    const h: Held = {
      pod,
      ref: refOf(pod),
      semantic: semantic(pod),
      status: JSON.stringify(pod.status ?? {}),
      events: had?.events ?? new Set(),
    };
    this.held.set(uid, h);
    let op: ConfigOp | undefined;
    if (!had) op = 'ADD';
    else if (had.semantic !== h.semantic) op = pod.metadata.deletionTimestamp ? 'DELETE' : 'UPDATE';
    else if (had.status !== h.status) op = 'RECONCILE';
    if (op) this.record(op, h);
    if (had?.status !== h.status && pod.status?.phase && !this.d.onRuntime(uid))
      this.d.trace.record({ type: 'status.update', ...h.ref, status: pod.status });
    if (!had) {
      for (const [k, e] of this.pending) {
        if (e.involvedObject.uid !== uid) continue;
        this.pending.delete(k);
        this.onEvent('ADDED', e);
      }
    }
  }

  private remove(uid: string): void {
    const h = this.held.get(uid);
    if (!h) return;
    this.held.delete(uid);
    for (const k of h.events) this.events.delete(k);
    this.record('REMOVE', h);
  }

  private onEvent(type: WatchEventType, e: Event): void {
    const key = eventKey(e);
    const uid = e.involvedObject?.uid ?? '';
    const h = this.held.get(uid);
    if (type === 'DELETED') {
      this.events.delete(key);
      this.pending.delete(key);
      h?.events.delete(key);
      return;
    }
    if (!h) {
      this.pending.delete(key);
      this.pending.set(key, e);
      if (this.pending.size > PENDING_EVENTS) this.pending.delete(this.pending.keys().next().value as string);
      return;
    }
    const count = e.count || 1;
    if ((this.events.get(key)?.count ?? 0) >= count) return;
    this.events.set(key, { count, uid });
    h.events.add(key);
    this.d.trace.record({
      type: 'k8s.event',
      eventType: e.type === 'Warning' ? 'Warning' : 'Normal',
      reason: e.reason ?? '',
      message: e.message ?? '',
      count,
      ...(e.involvedObject.fieldPath ? { fieldPath: e.involvedObject.fieldPath } : {}),
      ...h.ref,
    });
  }
}
