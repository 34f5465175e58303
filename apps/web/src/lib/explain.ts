/**
 * Words for trace events: one line per event (the events table, tooltips, the step panel) and, for a
 * `sync.result`, what computePodActions decided and how it turned out, e.g.
 *   "app exited 1 2s ago; restartPolicy Always → restart; in back-off 20s until 12:00:41 → CrashLoopBackOff".
 * Pure: times are formatted by a ClockFormat the caller passes (local time in the UI, UTC in tests).
 */
import { formatGoDuration } from '@syncscope/core/go-duration';
import type { TraceEvent, TraceOf } from '@syncscope/core/trace';
import { durationWords, statedDurationMs } from './provenance.ts';

export type ClockFormat = (ms: number) => string;

const pad = (n: number) => String(n).padStart(2, '0');

/** HH:MM:SS of an engine time, local (the UI) or UTC (tests). */
function clockTime(ms: number, utc = false): string {
  const d = new Date(ms);
  return utc
    ? `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
    : `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export const localClock: ClockFormat = (ms) => clockTime(ms);
export const utcClock: ClockFormat = (ms) => clockTime(ms, true);

/**
 * A number of seconds as Go's time.Duration prints it: 10s, 1m20s, 5m0s, 1h0m0s, 1.5s, 250ms. The
 * formatter is core's (the engine's messages use the same one); this only converts from seconds.
 */
export const goDuration = (seconds: number): string => formatGoDuration(seconds * 1000);

const short = (id: string) => id.replace(/^[a-z]+:\/\//, '').slice(0, 12);

/** ", grace 30s" or ", grace 5s (override)" for a kill that carries its grace period; else "". */
function graceWords(ev: { gracePeriodS?: number; override?: boolean }): string {
  if (ev.gracePeriodS === undefined) return '';
  return `, grace ${goDuration(ev.gracePeriodS)}${ev.override ? ' (override)' : ''}`;
}

/** One line saying what an event is, without its time. */
export function describeEvent(ev: TraceEvent): string {
  switch (ev.type) {
    case 'config.update':
      return `config ${ev.op} from ${ev.source}`;
    case 'worker.update':
      return `worker update ${ev.updateType}${graceWords(ev)}${ev.coalesced ? ' (coalesced)' : ''}${ev.dropped ? `, dropped ${ev.dropped}` : ''}`;
    case 'worker.state':
      return `worker ${ev.from ?? '∅'} → ${ev.to}`;
    case 'sync.start':
      return `${ev.workType} starts (${ev.updateType})`;
    case 'sync.result': {
      const failed = ev.actions.filter((a) => a.error);
      const acts = ev.actions.map((a) => `${a.action}${a.error ? `✗${a.error}` : ''}`).join(', ');
      // a kubelet log's sync error states no duration: the run failed, how long it took is not in the log
      const ms = statedDurationMs(ev);
      const done =
        ms !== null ? `done in ${Math.round(ms)} ms` : failed.length || ev.error ? 'failed' : 'done';
      return `${ev.workType} ${done}${acts ? `: ${acts}` : ''}${ev.error && !failed.length ? ` — ${ev.error}` : ''}`;
    }
    case 'runtime.call':
      return `CRI ${ev.method}${ev.container ? ` ${ev.container}` : ''}${durationWords(ev)}${graceWords(ev)}${ev.error ? ` ✗ ${ev.error}` : ''}`;
    case 'pleg.event': {
      const exit = ev.exitCode !== undefined ? ` (exit ${ev.exitCode})` : '';
      return `PLEG ${ev.event} ${ev.containerName ?? ''} ${short(ev.containerID)}${exit}${ev.inferred ? ' (inferred)' : ''}`.replace(
        /\s+/g,
        ' ',
      );
    }
    case 'status.update': {
      const cs = [...(ev.status.initContainerStatuses ?? []), ...(ev.status.containerStatuses ?? [])];
      return `status ${ev.status.phase}: ${cs.map((c) => `${c.name} ${containerStateWord(c.state)}`).join(', ')}`;
    }
    case 'backoff':
      return `${ev.kind === 'image' ? 'image pull' : 'container'} back-off ${goDuration(ev.delayS)} for ${ev.container}`;
    case 'probe.result':
      // a log's "SyncLoop (probe)" line names the pod, not the container
      return `${ev.probe} probe ${ev.container || '(container not in the log)'}: ${ev.result}${ev.output ? ` (${ev.output})` : ''}`;
    case 'k8s.event':
      return `${ev.eventType} ${ev.reason}: ${ev.message}${ev.count > 1 ? ` (x${ev.count})` : ''}`;
    case 'log.raw':
      // a kubelet line no rule read: its message, cut to what a table row shows
      return ev.text.length > 200 ? `${ev.text.slice(0, 200)}…` : ev.text;
    default:
      return ev.type;
  }
}

/** "Running", "Waiting (CrashLoopBackOff)", "Terminated (Error 1)". */
export function containerStateWord(state: {
  running?: unknown;
  waiting?: { reason?: string };
  terminated?: { exitCode: number; reason?: string };
}): string {
  if (state.running) return 'Running';
  if (state.waiting) return `Waiting${state.waiting.reason ? ` (${state.waiting.reason})` : ''}`;
  if (state.terminated)
    return `Terminated (${state.terminated.reason ?? 'exit'} ${state.terminated.exitCode})`;
  return '—';
}

export interface SyncExplanation {
  /** The decision and its outcome on one line. */
  summary: string;
  /** The same in detail: each reason, each action and its result, what happens next. */
  lines: string[];
}

/**
 * What a SyncPod decided (plan.reasons), what it did (actions) and how that ended. `backoffs` are the
 * back-off events recorded during this sync (between its sync.start and the result), which say how long
 * the refused start waits.
 */
export function explainSync(
  ev: TraceOf<'sync.result'>,
  backoffs: readonly TraceOf<'backoff'>[],
  fmt: ClockFormat = localClock,
): SyncExplanation {
  const reasons = ev.plan?.reasons ?? [];
  const outcomes: string[] = [];
  const lines: string[] = reasons.map((r) => `decided: ${r}`);
  for (const a of ev.actions) {
    if (!a.error) {
      lines.push(`✓ ${a.action} ${a.target}`);
      continue;
    }
    const bo = [...backoffs].reverse().find((b) => b.container === a.target);
    let outcome: string;
    if (a.error === 'CrashLoopBackOff' || a.error === 'ImagePullBackOff') {
      outcome = bo
        ? `in back-off ${goDuration(bo.delayS)} until ${fmt(bo.until)} → ${a.error}`
        : `in back-off → ${a.error}`;
    } else if (a.error === 'ErrImagePull' && bo) {
      outcome = `pull failed → ErrImagePull; next pull after back-off ${goDuration(bo.delayS)} (${fmt(bo.until)})`;
    } else {
      outcome = `${a.action} ${a.target} failed → ${a.error}`;
    }
    outcomes.push(outcome);
    lines.push(`✗ ${a.action} ${a.target}: ${a.error}${a.message ? ` — ${a.message}` : ''}`);
  }
  if (ev.plan && ev.actions.length === 0 && reasons.length === 0) lines.push('nothing to do');
  if (ev.error && outcomes.length === 0) outcomes.push(ev.error);
  if (ev.isTerminal) lines.push('the pod is terminal: the worker will terminate it');
  if (ev.requeueAfterMs !== undefined) {
    lines.push(
      `next sync in ${goDuration(Math.round(ev.requeueAfterMs / 100) / 10)}${ev.error ? ' (error back-off)' : ''}`,
    );
  }
  const did = ev.actions.filter((a) => !a.error).map((a) => `${a.action} ${a.target}`);
  const head = reasons.length
    ? reasons.join('; ')
    : did.length
      ? did.join(', ')
      : `${ev.workType} with nothing to do`;
  return { summary: [head, ...outcomes].join('; '), lines };
}
