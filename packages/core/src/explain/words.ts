/**
 * The words the explanation shares with the live step-through: Go durations as the kubelet prints them
 * (10s, 1m20s, 5m0s), the back-off outcome ("in back-off 20s until 12:00:41 → CrashLoopBackOff"), and one
 * line per source step. Times are formatted by a ClockFormat the caller passes (UTC by default).
 * Browser-safe: no Node imports.
 */
import type { TraceEvent } from '../events/trace.ts';
import { formatGoDuration } from '../kubelet/util/flowcontrol/go-duration.ts';

export type ClockFormat = (ms: number) => string;

const pad = (n: number) => String(n).padStart(2, '0');

/** HH:MM:SS in UTC. */
export const utcClock: ClockFormat = (ms) => {
  const d = new Date(ms);
  return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
};

/** A duration in ms as Go prints it. */
export const goMs = (ms: number): string => formatGoDuration(Math.round(ms));

/** "in back-off 20s until 12:00:41 → CrashLoopBackOff": a refused start, as the step-through words it. */
export function backoffOutcome(delayMs: number, until: number, reason: string, fmt: ClockFormat): string {
  return `in back-off ${goMs(delayMs)} until ${fmt(until)} → ${reason}`;
}

const short = (id: string) => id.replace(/^[a-z]+:\/\//, '').slice(0, 12);

/** The source's step in a few words (the web's event line says the same at more length). */
export function sourceWords(ev: TraceEvent): string {
  switch (ev.type) {
    case 'config.update':
      return `config ${ev.op} from ${ev.source}${ev.gracePeriodS !== undefined ? `, grace ${goMs(ev.gracePeriodS * 1000)}` : ''}`;
    case 'pleg.event':
      return `PLEG ${ev.event} ${ev.containerName ?? short(ev.containerID)}${ev.exitCode !== undefined ? ` (exit ${ev.exitCode})` : ''}`;
    case 'backoff':
      return `${ev.kind === 'image' ? 'image pull' : 'container'} back-off ${goMs(ev.delayS * 1000)} for ${ev.container}`;
    case 'sync.result': {
      const acts = ev.actions.map((a) => `${a.action}${a.error ? `✗${a.error}` : ''}`).join(', ');
      return `${ev.workType} ${ev.error || ev.actions.some((a) => a.error) ? 'failed' : 'done'}${acts ? `: ${acts}` : ''}`;
    }
    case 'runtime.call':
      return `CRI ${ev.method}${ev.container ? ` ${ev.container}` : ''}${ev.error ? ` ✗ ${ev.error}` : ''}`;
    case 'probe.result':
      return `${ev.probe} probe ${ev.container || '(container not named)'}: ${ev.result}`;
    case 'worker.update':
      return `worker update ${ev.updateType}`;
    case 'worker.state':
      return `worker ${ev.from ?? '∅'} → ${ev.to}`;
    case 'sync.start':
      return `${ev.workType} starts (${ev.updateType})`;
    case 'status.update':
      return `status ${ev.status.phase ?? ''}`.trim();
    case 'k8s.event':
      return `${ev.eventType} ${ev.reason}: ${ev.message}`;
    case 'log.raw':
      return ev.text.length > 120 ? `${ev.text.slice(0, 120)}…` : ev.text;
    default:
      return ev.type;
  }
}
