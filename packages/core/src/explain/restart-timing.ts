/**
 * When a restart may come, by the kubelet's rules, and whether the source's came then. The window ends the
 * back-off after the death; the restart comes at the first sync after it:
 *
 *   ≤ v1.34   a failed sync requeues the worker after backOffPeriod ×[1, 1.5) (10 s to 15 s): the sync that
 *             finds the window over comes at most that long after the last one that met it
 *   v1.35+    the worker is requeued at the window's end
 * then the sync ticker hands the worker its work (≤ 1 s), the runtime starts the container (an allowance:
 * the log shows no CRI durations) and the next relist sees it (≤ 1 s). The death the source shows is a relist
 * after the container's finish, so a restart up to one relist before the window's end is not early.
 * A death with no entry in force restarts at the sync the death wakes. A step of the pod past the latest
 * time with the container still dead (a sync, a window met again, a PLEG event) is a restart missing.
 * Browser-safe: no Node imports.
 */
import type { ContainerLadder, DeathReading } from './ladder.ts';
import type { ExplainParams } from './params.ts';
import type { Reading } from './types.ts';
import { type ClockFormat, goMs } from './words.ts';

export const RULE_BACKOFF =
  'doBackOff (kuberuntime_manager.go): the crash-loop entry per container, initial then doubling to the max; a death more than the reset period after its last update starts it over';

/** The reading of a restart at `at` of the ladder's dead container. */
export function restartReading(
  ladder: ContainerLadder,
  at: number,
  name: string,
  p: ExplainParams,
  fmt: ClockFormat,
): Reading {
  const d = ladder.death;
  if (!d) return { verdict: 'agrees', model: [`${name} restarted`], rule: RULE_BACKOFF };
  const reading = d.reading;
  const after = `${goMs(at - d.time)} after its death`;
  if (reading.kind === 'immediate') {
    const latest = d.time + p.relistMs + p.startAllowanceMs;
    const model = [
      `${name} restarted ${after}; the rule restarts it at the sync its death wakes (no back-off entry in force)`,
    ];
    if (at <= latest) return { verdict: 'agrees', model, rule: RULE_BACKOFF };
    return {
      verdict: 'differs',
      model,
      rule: RULE_BACKOFF,
      difference: {
        kind: 'restart-late',
        expected: `by ${fmt(latest)} (death + relist ${goMs(p.relistMs)} + start ${goMs(p.startAllowanceMs)})`,
        seen: `at ${fmt(at)}, ${after}`,
      },
    };
  }
  const { earliest, due, latest } = restartDue(ladder, reading, p);
  const model = [
    `${name} restarted ${after}; back-off ${goMs(reading.delayMs)} ended ${fmt(reading.until)}, the next sync due by ${fmt(due)}`,
  ];
  if (at < earliest)
    return {
      verdict: 'differs',
      model,
      rule: RULE_BACKOFF,
      backoffMs: reading.delayMs,
      difference: {
        kind: 'restart-early',
        expected: `not before ${fmt(earliest)} (back-off ${goMs(reading.delayMs)} − relist ${goMs(p.relistMs)})`,
        seen: `at ${fmt(at)}, ${after}`,
      },
    };
  if (at > latest)
    return {
      verdict: 'differs',
      model,
      rule: RULE_BACKOFF,
      backoffMs: reading.delayMs,
      difference: {
        kind: 'restart-late',
        expected: `by ${fmt(latest)} (the first sync after the window, + ticker, relist and start)`,
        seen: `at ${fmt(at)}, ${after}`,
      },
    };
  return { verdict: 'agrees', model, rule: RULE_BACKOFF, backoffMs: reading.delayMs };
}

/**
 * When the restart after a back-off window may come: not before `earliest` (the window's end less one relist,
 * as the death the source shows is a relist late), the sync that finds the window over by `due`, and the
 * restart seen by `latest` (+ the sync ticker, the start allowance and the relist that lists it).
 */
function restartDue(
  ladder: ContainerLadder,
  reading: Extract<DeathReading, { kind: 'backoff' }>,
  p: ExplainParams,
): { earliest: number; due: number; latest: number } {
  let due: number;
  if (p.requeueAtBackOffEnd) due = reading.until;
  else {
    const maxRequeue = p.backOffPeriodMs * (1 + p.jitterFactor);
    const s = ladder.lastSync;
    due = s !== undefined && s + maxRequeue >= reading.until ? s + maxRequeue : reading.until + maxRequeue;
  }
  const latest = due + p.syncTickerMs + p.relistMs + p.startAllowanceMs;
  return { earliest: reading.until - p.relistMs, due, latest };
}

/**
 * At a step at `at` (`what`) that did not restart `ladder`'s dead container: when its back-off window ended
 * and the restart the rule wants is overdue (past restartDue's latest), the missing restart, both times said.
 */
export function missingRestart(
  ladder: ContainerLadder,
  name: string | undefined,
  at: number,
  what: string,
  p: ExplainParams,
  fmt: ClockFormat,
): Reading | undefined {
  const reading = ladder.death?.reading;
  if (reading?.kind !== 'backoff') return undefined;
  const { due, latest } = restartDue(ladder, reading, p);
  if (at <= latest) return undefined;
  const who = name ?? 'the container';
  return {
    verdict: 'differs',
    model: [
      `${who} not restarted: back-off ${goMs(reading.delayMs)} ended ${fmt(reading.until)}, the next sync due by ${fmt(due)} restarts it`,
    ],
    rule: RULE_BACKOFF,
    backoffMs: reading.delayMs,
    difference: {
      kind: 'restart-missing',
      expected: `a restart of ${who} by ${fmt(latest)} (the first sync after the window, + ticker, relist and start)`,
      seen: `${what} at ${fmt(at)}, ${who} still not restarted`,
    },
  };
}
