/**
 * The trace as OpenTelemetry spans, without the SDK: SpanModel reads TraceEvents in seq order (push) and hands
 * each span to `emit` when it ends, as a plain SpanRecord. exporter.ts turns records into the SDK's spans.
 *
 * The shape, per pod (one trace per pod, its id taken from the pod UID, so every node's spans of a pod join):
 *
 *   SyncPod | TerminatingPod | TerminatedPod    a span per pod-worker state (worker.state), root of the node's part
 *     SyncPod | SyncTerminatingPod | …          a span per sync run (sync.start → sync.result), with its result
 *       CRI StartContainer, …                  a span per CRI call of the pod (runtime.call)
 *
 * PLEG events, back-off windows, probe results, Kubernetes Events, config ops and worker updates are span events
 * on the innermost open span (or, before any span of the pod is open, on the first one that opens). In observe
 * mode there are no pod workers: a pod's events and runs go into `Observed` spans of at most `windowMs` each. A failed
 * sync (its error, or a failed action) and a failed CRI call set the span status to error.
 *
 * Contract: push runs inside TraceRecorder.record (synchronously, on the engine's thread): it only touches
 * maps and arrays of the open spans, never blocks and never throws on a well-formed event. Memory is bounded
 * by the open spans: at most two a pod, each with at most `maxEvents` events (the rest are counted as dropped).
 * A pod's state goes two container-GC periods after its worker is Forgotten (tick); close() ends every open span.
 */
import { createHash } from 'node:crypto';
import type { TraceEvent, WorkerState } from '@syncscope/core/trace';
import { spanEventOf } from './span-events.ts';
import type { Attrs, SpanEventRecord, SpanRecord } from './span-record.ts';

export type { Attrs, SpanEventRecord, SpanRecord } from './span-record.ts';

export interface SpanModelOptions {
  emit: (span: SpanRecord) => void;
  /** A fresh 16-hex-digit span id per call (exporter.ts: random; tests: a counter). */
  spanId: () => string;
  /** Events kept per span (default 128, the SDK's own limit). */
  maxEvents?: number;
  /**
   * Observe mode (no pod workers of our own): events of a pod with no open span go to an `Observed` span,
   * which tick() ends once it is older than this (default 30 s). Without it they wait for the pod's first
   * worker span, and tick() drops what waited longer than that.
   */
  observed?: boolean;
  windowMs?: number;
}

const WORKER_SPANS: ReadonlySet<WorkerState> = new Set(['SyncPod', 'TerminatingPod', 'TerminatedPod']);
const RUN_NAMES: Record<string, string> = {
  SyncPod: 'SyncPod',
  TerminatingPod: 'SyncTerminatingPod',
  TerminatedPod: 'SyncTerminatedPod',
};
const IMAGE_METHODS = new Set(['PullImage', 'ImageStatus', 'ListImages', 'RemoveImage', 'ImageFsInfo']);
const MAX_PENDING = 32;
/** How long a finished pod's last worker span stays a parent: two container-GC periods (1 min each). */
const LAST_KEPT_MS = 120_000;

interface Pod {
  traceId: string;
  attrs: Attrs;
  /** the open pod-worker span, or in observe mode the open Observed span (`observed`) */
  worker?: SpanRecord;
  observed?: boolean;
  /** the last worker span that ended: CRI calls after it (a finished pod's cleanup) become its children */
  last?: { spanId: string; endMs: number };
  run?: SpanRecord;
  /** events seen while no span was open */
  pending: SpanEventRecord[];
}

/** The pod's trace id: a UUID's own 16 bytes, else the first 16 bytes of the UID's SHA-256. Never all zeros. */
export function traceIdOf(podUID: string): string {
  const hex = podUID.replace(/-/g, '').toLowerCase();
  if (/^[0-9a-f]{32}$/.test(hex) && !/^0+$/.test(hex)) return hex;
  return createHash('sha256').update(podUID).digest('hex').slice(0, 32);
}

export class SpanModel {
  private readonly pods = new Map<string, Pod>();
  private readonly maxEvents: number;
  private readonly windowMs: number;

  constructor(private readonly opts: SpanModelOptions) {
    this.maxEvents = opts.maxEvents ?? 128;
    this.windowMs = opts.windowMs ?? 30_000;
  }

  /** Pods with an open span or pending events. */
  get openPods(): number {
    return this.pods.size;
  }

  push(ev: TraceEvent): void {
    const uid = 'podUID' in ev ? ev.podUID : undefined;
    if (uid === undefined || uid === '') return;
    switch (ev.type) {
      case 'worker.state':
        this.workerState(ev, uid);
        return;
      case 'sync.start':
        this.syncStart(ev, uid);
        return;
      case 'sync.result':
        this.syncResult(ev, uid);
        return;
      case 'runtime.call':
        this.criCall(ev, uid);
        return;
      default: {
        const e = spanEventOf(ev);
        if (e) this.addEvent(this.pod(ev, uid), e, ev);
      }
    }
  }

  /**
   * Called every few seconds by the owner: ends Observed spans older than the window (so an observed pod is
   * exported as a row of windows) and forgets pods whose events waited longer than that for a span.
   */
  tick(nowMs: number): void {
    for (const [uid, pod] of this.pods) {
      if (pod.observed && pod.worker && !pod.run && nowMs - pod.worker.startMs >= this.windowMs) {
        this.end(pod.worker, nowMs);
        pod.worker = undefined;
        pod.observed = false;
      }
      const first = pod.pending[0];
      if (first && !pod.worker && !pod.run && nowMs - first.timeMs >= this.windowMs) pod.pending = [];
      const recent = pod.last !== undefined && nowMs - pod.last.endMs < Math.max(this.windowMs, LAST_KEPT_MS);
      if (!pod.worker && !pod.run && pod.pending.length === 0 && !recent) this.pods.delete(uid);
    }
  }

  /** Ends every open span at `nowMs` (a stop, or the end of an imported log) and forgets every pod. */
  close(nowMs: number): void {
    for (const pod of this.pods.values()) {
      if (pod.run) this.end(pod.run, nowMs, { 'syncscope.span.unfinished': true });
      if (pod.worker) this.end(pod.worker, nowMs, { 'syncscope.span.unfinished': true });
    }
    this.pods.clear();
  }

  private pod(ev: TraceEvent, uid: string): Pod {
    let pod = this.pods.get(uid);
    if (!pod) {
      const ref = 'pod' in ev && typeof ev.pod === 'string' ? ev.pod : '';
      const slash = ref.indexOf('/');
      const attrs: Attrs = { 'k8s.pod.uid': uid };
      if (slash > 0) {
        attrs['k8s.namespace.name'] = ref.slice(0, slash);
        attrs['k8s.pod.name'] = ref.slice(slash + 1);
      }
      pod = { traceId: traceIdOf(uid), attrs, pending: [] };
      this.pods.set(uid, pod);
    }
    return pod;
  }

  private open(pod: Pod, ev: TraceEvent, name: string, startMs: number, parent?: SpanRecord): SpanRecord {
    const span: SpanRecord = {
      traceId: pod.traceId,
      spanId: this.opts.spanId(),
      ...(parent ? { parentSpanId: parent.spanId } : {}),
      name,
      startMs,
      endMs: startMs,
      attributes: { ...pod.attrs },
      events: [],
      droppedEvents: 0,
      ...(ev.node !== undefined ? { node: ev.node } : {}),
    };
    return span;
  }

  private end(span: SpanRecord, endMs: number, attrs?: Attrs): void {
    span.endMs = Math.max(endMs, span.startMs);
    if (attrs) Object.assign(span.attributes, attrs);
    this.opts.emit(span);
  }

  private workerState(ev: Extract<TraceEvent, { type: 'worker.state' }>, uid: string): void {
    const pod = this.pod(ev, uid);
    if (pod.worker) {
      if (!pod.observed) pod.last = { spanId: pod.worker.spanId, endMs: ev.time };
      this.end(pod.worker, ev.time, pod.observed ? undefined : { 'k8s.pod.worker.next_state': ev.to });
      pod.worker = undefined;
      pod.observed = false;
    }
    if (WORKER_SPANS.has(ev.to)) {
      pod.worker = this.open(pod, ev, ev.to, ev.time);
      pod.worker.attributes['k8s.pod.worker.state'] = ev.to;
      this.takePending(pod, pod.worker);
    } else if (ev.to === 'Forgotten' && !pod.run && !pod.last) this.pods.delete(uid);
    // else kept until tick(): CRI calls after the worker is gone (container GC's removals) join its last span
  }

  private syncStart(ev: Extract<TraceEvent, { type: 'sync.start' }>, uid: string): void {
    const pod = this.pod(ev, uid);
    this.observe(pod, ev);
    // a run that never reported (not seen in a log) ends where the next begins
    if (pod.run) this.end(pod.run, ev.time, { 'syncscope.span.unfinished': true });
    pod.run = this.open(pod, ev, RUN_NAMES[ev.workType] ?? ev.workType, ev.time, pod.worker);
    pod.run.attributes['k8s.pod.sync.update_type'] = ev.updateType;
    this.takePending(pod, pod.run);
  }

  private syncResult(ev: Extract<TraceEvent, { type: 'sync.result' }>, uid: string): void {
    const pod = this.pod(ev, uid);
    if (!pod.run) this.observe(pod, ev, ev.time - ev.durationMs);
    const run =
      pod.run ??
      this.open(pod, ev, RUN_NAMES[ev.workType] ?? ev.workType, ev.time - ev.durationMs, pod.worker);
    pod.run = undefined;
    this.takePending(pod, run);
    const failed: string[] = [];
    for (const a of ev.actions) {
      const attrs: Attrs = { 'sync.action': a.action, 'sync.target': a.target };
      if (a.error !== undefined) attrs['sync.error'] = a.error;
      if (a.message !== undefined) attrs['sync.message'] = a.message;
      this.addTo(run, { name: 'SyncResult', timeMs: ev.time, attributes: attrs });
      if (a.error !== undefined)
        failed.push(`failed to "${a.action}" for "${a.target}" with ${a.error}: "${a.message ?? ''}"`);
    }
    const error = ev.error ?? (failed.length > 0 ? `[${failed.join(', ')}]` : undefined);
    if (error !== undefined) run.error = error;
    const attrs: Attrs = { 'k8s.pod.sync.work_type': ev.workType, 'k8s.pod.sync.actions': ev.actions.length };
    if (ev.isTerminal !== undefined) attrs['k8s.pod.sync.is_terminal'] = ev.isTerminal;
    if (ev.requeueAfterMs !== undefined) attrs['k8s.pod.sync.requeue_after_ms'] = ev.requeueAfterMs;
    if (ev.plan) attrs['k8s.pod.sync.plan'] = ev.plan.reasons.join('; ');
    this.end(run, ev.time, attrs);
    if (!pod.worker && this.pendingDone(pod)) this.pods.delete(uid);
  }

  private criCall(ev: Extract<TraceEvent, { type: 'runtime.call' }>, uid: string): void {
    const pod = this.pod(ev, uid);
    this.observe(pod, ev, ev.time - ev.durationMs);
    const parent = pod.run ?? pod.worker;
    const span = this.open(pod, ev, `CRI ${ev.method}`, ev.time - ev.durationMs, parent);
    if (!parent && pod.last) span.parentSpanId = pod.last.spanId;
    const a = span.attributes;
    a['rpc.system'] = 'grpc';
    a['rpc.service'] = IMAGE_METHODS.has(ev.method) ? 'runtime.v1.ImageService' : 'runtime.v1.RuntimeService';
    a['rpc.method'] = ev.method;
    if (ev.container !== undefined) a['k8s.container.name'] = ev.container;
    if (ev.attempt !== undefined) a['k8s.container.restart_count'] = ev.attempt;
    if (ev.gracePeriodS !== undefined) a['cri.grace_period_s'] = ev.gracePeriodS;
    if (ev.code !== undefined) a['rpc.grpc.status_code'] = ev.code;
    if (ev.error !== undefined || ev.code !== undefined) span.error = ev.error ?? `gRPC code ${ev.code}`;
    this.end(span, ev.time);
    if (!parent && !pod.last && this.pendingDone(pod)) this.pods.delete(uid);
  }

  /** Observe mode: opens the pod's Observed span when nothing of the pod is open. */
  private observe(pod: Pod, ev: TraceEvent, startMs = ev.time): void {
    if (!this.opts.observed || pod.run || pod.worker) return;
    pod.worker = this.open(pod, ev, 'Observed', startMs);
    pod.observed = true;
    this.takePending(pod, pod.worker);
  }

  private addEvent(pod: Pod, e: SpanEventRecord, ev: TraceEvent): void {
    this.observe(pod, ev);
    const span = pod.run ?? pod.worker;
    if (span) this.addTo(span, e);
    else if (pod.pending.length < MAX_PENDING) pod.pending.push(e);
  }

  private addTo(span: SpanRecord, e: SpanEventRecord): void {
    if (span.events.length < this.maxEvents) span.events.push(e);
    else span.droppedEvents++;
  }

  private takePending(pod: Pod, span: SpanRecord): void {
    for (const e of pod.pending) this.addTo(span, e);
    pod.pending = [];
  }

  private pendingDone(pod: Pod): boolean {
    return pod.pending.length === 0 && !pod.run;
  }
}
