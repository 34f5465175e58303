/**
 * How the observed kubelet's own log joins the live trace in observe mode. A log follower (a file or the
 * journal) parses lines into trace payloads and hands each one to `joinLogEvent`; this decides whether it
 * belongs, ties it to a pod the runtime shows, and records it.
 *
 * What joins: config ops (`config.update`), sync results and errors (`sync.result`), back-off windows
 * (`backoff`), probe results (`probe.result`), kills (`runtime.call` of StopContainer, `worker.update` of
 * SyncPodKill) and Kubernetes Events (`k8s.event`); config ops and Events not when the API is watched (the
 * API's own are recorded, api-source.ts). Everything else is left out: the observer's own PLEG
 * already records what the runtime shows (pleg.event, relists), and the log's view of those would count
 * every change twice.
 *
 * Matching: by `podUID` when the payload has one, else by `pod` ("namespace/name"), against the pods the
 * observer currently sees. A payload about a pod the runtime does not show is not recorded ('unmatched').
 * The recorded event carries the observer's podUID and pod, so the views find it with the pod's other events.
 *
 * A container back-off the log states turns the inferred window into a confirmed one (InferredBackoff.confirm):
 * the log's delay wins; repeats of the same window for the same exit are recorded once.
 *
 * Called by the follower on the event loop, one payload at a time; returns at once and never throws for a
 * payload's content.
 */
import type { PassiveClock } from '@syncscope/core/clock';
import type { TraceRecorder } from '@syncscope/core/events/recorder';
import type { PodRef, TracePayload } from '@syncscope/core/events/trace';
import type { InferredBackoff } from './backoff-infer.ts';

/** A parsed log line as a follower emits it: a trace payload, with the envelope fields a parser may add. */
export type LogEventPayload = TracePayload & {
  time?: number;
  seq?: number;
  node?: string;
  origin?: { line: number };
  inferred?: boolean;
};

/** The observer's side of the join: which pods it sees, where events go, the back-off table. */
export interface LogJoin {
  trace: Pick<TraceRecorder, 'record'>;
  backoff: InferredBackoff;
  clock: PassiveClock;
  /** The API's pods are watched (api-source.ts): its config ops and Events come from there, not the log. */
  readonly apiWatched?: boolean;
  /** The observed pod a log event names, by uid or else by "namespace/name"; undefined when not observed. */
  podRef(podUID: string | undefined, pod: string | undefined): PodRef | undefined;
}

/** recorded: in the trace; confirmed: a back-off window now confirmed; the rest were not recorded. */
export type JoinResult = 'recorded' | 'confirmed' | 'repeated' | 'unmatched' | 'ignored';

/** The payload types a log event may join the trace with. */
const LOG_JOIN_TYPES = [
  'config.update',
  'sync.result',
  'backoff',
  'probe.result',
  'runtime.call',
  'worker.update',
  'k8s.event',
] as const;

function joins(ev: LogEventPayload): boolean {
  if (!(LOG_JOIN_TYPES as readonly string[]).includes(ev.type)) return false;
  if (ev.type === 'runtime.call') return ev.method === 'StopContainer';
  if (ev.type === 'worker.update') return ev.updateType === 'SyncPodKill';
  return true;
}

export function joinLogEvent(join: LogJoin, ev: LogEventPayload): JoinResult {
  if (!joins(ev)) return 'ignored';
  if (join.apiWatched && (ev.type === 'config.update' || ev.type === 'k8s.event')) return 'ignored';
  const named = ev as { podUID?: unknown; pod?: unknown };
  const ref = join.podRef(
    typeof named.podUID === 'string' && named.podUID !== '' ? named.podUID : undefined,
    typeof named.pod === 'string' && named.pod !== '' ? named.pod : undefined,
  );
  if (!ref) return 'unmatched';
  if (ev.type === 'backoff' && ev.kind === 'container' && ev.delayS > 0) {
    const at = typeof ev.time === 'number' && Number.isFinite(ev.time) ? ev.time : join.clock.now();
    return join.backoff.confirm(ref, ev.container, ev.delayS, at) ? 'confirmed' : 'repeated';
  }
  // the envelope is the recorder's to assign; the origin stays with the log
  const { time: _t, seq: _s, node: _n, origin: _o, ...payload } = ev;
  join.trace.record({ ...payload, podUID: ref.podUID, pod: ref.pod } as TracePayload);
  return 'recorded';
}
