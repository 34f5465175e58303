/**
 * resourceVersion for the Kubernetes API, from the trace's seq (one durable, monotonic counter: seqs are
 * reserved on disk before they are issued, so a restart never reuses one):
 *   - a pod's is the seq of the last `config.update` or `status.update` of its UID, as the pod watch's index
 *     (watch.ts PodVersions) keeps it: one place for a pod's version, read by lists, gets and watches;
 *   - an Event's is the seq of the last `k8s.event` record that counted it (same pod, fieldPath, type,
 *     reason and message: the recorder's aggregation key);
 *   - a list's is the newest seq issued (`next - 1`).
 *
 * ResourceVersions is fed by a trace listener (synchronous, O(1) per event) and seeded at construction
 * from the newest events still in memory, so after a restart an Event keeps the version of its last recorded
 * count. A pod or event never seen gets the list version at the moment it is first asked about, kept from
 * then on, so two reads without a change answer the same version.
 */
import type { TraceEvent } from '@syncscope/core/trace';
import type { TraceSource } from '../context.ts';

/** Where a pod's version comes from (PodVersions, the watch's index). */
export interface PodVersionSource {
  version(uid: string): number | undefined;
}

/** Events read back at construction: the newest ones, which the in-memory ring holds. */
const SEED_EVENTS = 50_000;
/** Event keys remembered (the recorder keeps 10,000 aggregates); the least recently counted go first. */
const MAX_EVENT_KEYS = 20_000;

/** The aggregation key of an Event as the kubelet's recorder folds it. */
export function eventKey(
  podUID: string,
  fieldPath: string | undefined,
  type: string,
  reason: string,
  message: string,
): string {
  return [podUID, fieldPath ?? '', type, reason, message].join('\u0000');
}

export class ResourceVersions {
  /** versions handed out to pods the index did not know (kept, so a second read answers the same) */
  private readonly unknownPods = new Map<string, number>();
  private readonly events = new Map<string, number>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly trace: TraceSource,
    private readonly podVersions: PodVersionSource,
  ) {
    const from = Math.max(0, trace.next - 1 - SEED_EVENTS, trace.oldest - 1);
    for (const ev of trace.since(from, isVersioned)) this.observe(ev);
    this.unsubscribe = trace.subscribe((ev) => this.observe(ev));
  }

  /** The trace listener: remembers the seq of every Event count. */
  observe(ev: TraceEvent): void {
    if (ev.type === 'config.update' && ev.op === 'REMOVE') this.unknownPods.delete(ev.podUID);
    else if (ev.type === 'k8s.event') {
      const key = eventKey(ev.podUID, ev.fieldPath, ev.eventType, ev.reason, ev.message);
      this.events.delete(key);
      this.events.set(key, ev.seq);
      if (this.events.size > MAX_EVENT_KEYS) this.events.delete(this.events.keys().next().value as string);
    }
  }

  /** The newest seq issued: the resourceVersion of a list answered now. */
  listVersion(): number {
    return Math.max(0, this.trace.next - 1);
  }

  /** The resourceVersion of the pod with this UID. */
  pod(uid: string): string {
    let v = this.podVersions.version(uid) ?? this.unknownPods.get(uid);
    if (v === undefined) {
      v = this.listVersion();
      this.unknownPods.set(uid, v);
    }
    return String(v);
  }

  /** The resourceVersion of the Event with this aggregation key (eventKey). */
  event(key: string): string {
    let v = this.events.get(key);
    if (v === undefined) {
      v = this.listVersion();
      this.events.set(key, v);
    }
    return String(v);
  }

  close(): void {
    this.unsubscribe();
  }
}

function isVersioned(ev: TraceEvent): boolean {
  return ev.type === 'k8s.event';
}
