/**
 * PodVersions: the pods as a watch serves them, read off the trace. A pod's resourceVersion is the seq of
 * the last `config.update` or `status.update` trace event of its UID; a list's is the newest seq issued
 * (trace.next - 1). Every such event is a possible change: the pod as the engine holds it right after the
 * event (the recorder calls listeners synchronously, after the change) is compared with the last version
 * seen, and only a pod whose object really changed (apart from resourceVersion) is a change for watchers.
 * So a restart, which adds every stored pod back and recomputes its status, is no change for an unchanged
 * pod, as the apiserver would see none.
 *
 * What a watch from a resourceVersion RV gets first (changesSince): one event per pod whose object changed
 * after RV, as it is now (ADDED if the pod first appeared after RV, MODIFIED otherwise), and DELETED for
 * each pod removed after RV; oldest change first. Then every change as it happens (subscribe). A version
 * older than what this index covers (`horizon`: the history scanned at start, or the oldest dropped
 * tombstone) is Expired, and the client must list again.
 *
 * Built once per server, after the stored pods are added back and before the engine starts (the routes'
 * plugin is registered then). Listeners are called on the event loop from inside TraceRecorder.record: they
 * must not block or throw.
 */
import type { AdmittedPod } from '@syncscope/core';
import type { Pod, PodStatus } from '@syncscope/core/api';
import type { TraceEvent } from '@syncscope/core/trace';
import type { TraceSource } from '../context.ts';
import type { Engine } from '../engine.ts';

/** Trace events read at start to rebuild the versions (the ring's preload after a restart holds as many). */
const WATCH_HISTORY_EVENTS = 50_000;
/** Removed pods remembered for DELETED events to watchers resuming from before the removal. */
const MAX_TOMBSTONES = 10_000;

type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface PodChange {
  type: ChangeType;
  /** The pod, metadata.resourceVersion set to `seq`. */
  pod: AdmittedPod;
  seq: number;
}

interface Known {
  uid: string;
  /** seq of the first event of the pod seen (its creation, or the history's start). */
  first: number;
  /** seq of the last config.update/status.update: the pod's resourceVersion. */
  last: number;
  /** seq of the last event that changed the object. */
  changed: number;
  /** The object without resourceVersion, serialised, to tell a change. */
  json: string;
  pod: AdmittedPod;
}

interface Tombstone {
  first: number;
  seq: number;
  pod: AdmittedPod;
}

type Listener = (c: PodChange) => void;

function isPodEvent(ev: TraceEvent): ev is Extract<TraceEvent, { type: 'config.update' | 'status.update' }> {
  return ev.type === 'config.update' || ev.type === 'status.update';
}

/** The pod with its resourceVersion set (a copy; the engine's object is not touched). */
export function withVersion<P extends Pod>(pod: P, rv: number): P {
  return { ...pod, metadata: { ...pod.metadata, resourceVersion: String(rv) } };
}

function contentOf(pod: Pod): string {
  const { resourceVersion: _rv, ...metadata } = pod.metadata;
  return JSON.stringify({ ...pod, metadata });
}

export class PodVersions {
  private readonly pods = new Map<string, Known>();
  private readonly tombstones = new Map<string, Tombstone>();
  private readonly listeners = new Set<Listener>();
  private readonly unsubscribe: () => void;
  /** The oldest seq from which every change is known. */
  private start: number;

  constructor(
    private readonly trace: Pick<TraceSource, 'since' | 'subscribe' | 'next' | 'oldest'>,
    private readonly engine: Pick<Engine, 'getPodByUID' | 'getPods'>,
    historyEvents = WATCH_HISTORY_EVENTS,
  ) {
    const from = Math.max(trace.oldest, trace.next - historyEvents) - 1;
    this.start = Math.max(1, from + 1);
    // per pod: its first and last event in the history, and its last event before the newest server.start
    const seen = new Map<string, { first: number; last: number; beforeStart: number }>();
    let lastStart: { seq: number; time: number } | undefined;
    for (const ev of trace.since(Math.max(0, from), (e) => isPodEvent(e) || e.type === 'server.start')) {
      if (ev.type === 'server.start') {
        lastStart = { seq: ev.seq, time: ev.time };
        continue;
      }
      if (!isPodEvent(ev)) continue;
      const s = seen.get(ev.podUID);
      if (!s) seen.set(ev.podUID, { first: ev.seq, last: ev.seq, beforeStart: 0 });
      else {
        if (lastStart && s.last < lastStart.seq) s.beforeStart = s.last;
        s.last = ev.seq;
      }
      if (ev.type === 'config.update' && ev.op === 'REMOVE') {
        const first = s?.first ?? ev.seq;
        this.bury(ev.podUID, { first, seq: ev.seq, pod: withVersion(stub(ev), ev.seq) });
        seen.delete(ev.podUID);
      }
    }
    const before = this.start - 1;
    for (const pod of engine.getPods()) {
      const uid = pod.metadata.uid;
      const s = seen.get(uid);
      const last = s?.last ?? before;
      let first = s?.first ?? before;
      let changed = s?.last ?? before;
      if (s && lastStart && s.last > lastStart.seq) {
        // a pod added back by the restart has not changed since its last event before it
        if (s.beforeStart > 0) changed = s.beforeStart;
        else if (s.first > lastStart.seq && created(pod) < Math.floor(lastStart.time / 1000) * 1000) {
          // added after the restart, yet created before it: a stored pod whose earlier events are older
          first = before; // its history is older than what was read
          changed = before;
        }
      }
      this.pods.set(uid, { uid, first, last, changed, json: contentOf(pod), pod: withVersion(pod, last) });
    }
    this.unsubscribe = trace.subscribe((ev) => {
      if (isPodEvent(ev)) this.onEvent(ev);
    });
  }

  /** The seq before which changes are not known: a watch from an older version is Expired. */
  get horizon(): number {
    return this.start;
  }

  /** The resourceVersion of a list: the newest seq issued. */
  listVersion(): number {
    return this.trace.next - 1;
  }

  /** A pod's resourceVersion, if it exists. */
  version(uid: string): number | undefined {
    return this.pods.get(uid)?.last;
  }

  /** Every pod, with its resourceVersion. */
  current(): AdmittedPod[] {
    return [...this.pods.values()].map((k) => k.pod);
  }

  /** One pod, with its resourceVersion. */
  get(uid: string): AdmittedPod | undefined {
    return this.pods.get(uid)?.pod;
  }

  /** The changes after `rv` (see the file comment), oldest first; 'expired' when rv is below the horizon. */
  changesSince(rv: number): PodChange[] | 'expired' {
    if (rv < this.start - 1) return 'expired';
    const out: PodChange[] = [];
    for (const k of this.pods.values()) {
      if (k.changed <= rv) continue;
      out.push({ type: k.first > rv ? 'ADDED' : 'MODIFIED', pod: k.pod, seq: k.last });
    }
    for (const t of this.tombstones.values()) {
      if (t.seq > rv && t.first <= rv) out.push({ type: 'DELETED', pod: t.pod, seq: t.seq });
    }
    return out.sort((a, b) => a.seq - b.seq);
  }

  subscribe(l: Listener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  close(): void {
    this.unsubscribe();
    this.listeners.clear();
  }

  private onEvent(ev: Extract<TraceEvent, { type: 'config.update' | 'status.update' }>): void {
    const uid = ev.podUID;
    const known = this.pods.get(uid);
    if (ev.type === 'config.update' && ev.op === 'REMOVE') {
      if (!known) return;
      this.pods.delete(uid);
      const pod = withVersion(known.pod, ev.seq);
      this.bury(uid, { first: known.first, seq: ev.seq, pod });
      this.emit({ type: 'DELETED', pod, seq: ev.seq });
      return;
    }
    const now = this.engine.getPodByUID(uid);
    if (!now) return;
    const json = contentOf(now);
    const pod = withVersion(now, ev.seq);
    if (!known) {
      this.tombstones.delete(uid);
      this.pods.set(uid, { uid, first: ev.seq, last: ev.seq, changed: ev.seq, json, pod });
      this.emit({ type: 'ADDED', pod, seq: ev.seq });
      return;
    }
    known.last = ev.seq;
    known.pod = pod;
    if (known.json === json) return;
    known.json = json;
    known.changed = ev.seq;
    this.emit({ type: 'MODIFIED', pod, seq: ev.seq });
  }

  private emit(c: PodChange): void {
    for (const l of this.listeners) l(c);
  }

  private bury(uid: string, t: Tombstone): void {
    this.tombstones.set(uid, t);
    if (this.tombstones.size <= MAX_TOMBSTONES) return;
    const [oldest, dropped] = this.tombstones.entries().next().value as [string, Tombstone];
    this.tombstones.delete(oldest);
    // a watch from before the dropped removal could no longer be told of it
    this.start = Math.max(this.start, dropped.seq + 1);
  }
}

/**
 * Each pod's last reported status in the newest `events` of the trace (the history a restart preloads), for
 * restorePods: the status a pod had when the server stopped.
 */
export function lastStatuses(
  trace: Pick<TraceSource, 'since' | 'next' | 'oldest'>,
  events = WATCH_HISTORY_EVENTS,
): (uid: string) => PodStatus | undefined {
  const from = Math.max(trace.oldest, trace.next - events) - 1;
  const last = new Map<string, PodStatus>();
  for (const ev of trace.since(Math.max(0, from), (e) => e.type === 'status.update'))
    if (ev.type === 'status.update') last.set(ev.podUID, ev.status);
  return (uid) => last.get(uid);
}

/** The object of a DELETED event for a pod removed before this server started: what the trace says of it. */
function stub(ev: Extract<TraceEvent, { type: 'config.update' }>): AdmittedPod {
  const slash = ev.pod.indexOf('/');
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: ev.pod.slice(slash + 1), namespace: ev.pod.slice(0, slash), uid: ev.podUID },
    spec: { containers: [] },
  };
}

/** When the pod was created; +Infinity when it does not say (never taken for a pod from before a restart). */
function created(pod: Pod): number {
  const t = pod.metadata.creationTimestamp ? Date.parse(pod.metadata.creationTimestamp) : Number.NaN;
  return Number.isNaN(t) ? Number.POSITIVE_INFINITY : t;
}
