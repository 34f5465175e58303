/**
 * A container back-off window the source shows, read against the crash-loop rule (./ladder.ts): the delay
 * the rule wants for the death before it, or a restart at once where no entry is in force, and where the
 * window's delay is not that, the difference. Called by ./backoff-steps.ts once the window is a new one.
 */
import type { ContainerLadder, DeathReading } from './ladder.ts';
import type { ExplainParams } from './params.ts';
import { RULE_BACKOFF } from './restart-timing.ts';
import type { Reading } from './types.ts';
import { backoffOutcome, type ClockFormat, goMs } from './words.ts';

/** What backoff-steps knows of a new window: its container, delay and start, and how the death was read. */
export interface WindowSeen {
  container: string;
  /** the window's delay, ms */
  seen: number;
  /** when the window started (its end less its delay) */
  since: number;
  /** the death came from the status the sync read, before a relist reported it */
  unlisted: boolean;
  /** what was taken as given for want of an earlier run */
  assumed: string[];
}

/**
 * The reading of a new window on `ladder` (its rung counted) given the rule's reading of the death; the delay
 * the rule wants is kept on the ladder (windowSeen).
 */
export function windowReading(
  w: WindowSeen,
  ladder: ContainerLadder,
  reading: DeathReading | undefined,
  p: ExplainParams,
  fmt: ClockFormat,
): Reading {
  const rung = ladder.rungs;
  const base: Reading = { verdict: 'agrees', model: [], rule: RULE_BACKOFF, window: true };
  if (w.assumed.length) base.assumed = w.assumed;
  const listed = w.unlisted
    ? [`its death came from the status the sync read, before a relist reported it (${fmt(w.since)})`]
    : [];
  if (reading?.kind === 'immediate') {
    base.model = [
      `${w.container}: no back-off entry in force (${reading.why === 'expired' ? 'expired' : 'first death'}) → restart at once`,
    ];
    base.verdict = 'differs';
    base.difference = {
      kind: 'backoff-unexpected',
      expected: 'restart at once, no back-off',
      seen: `back-off ${goMs(w.seen)}`,
    };
    return base;
  }
  const want = reading?.kind === 'backoff' ? reading.delayMs : w.seen;
  base.backoffMs = want;
  ladder.windowSeen = want;
  base.model = [
    `window ${rung}: ${backoffOutcome(want, w.since + want, 'CrashLoopBackOff', fmt)} (${goMs(p.initialBackOffMs)} doubling to ${goMs(p.maxBackOffMs)})`,
    ...listed,
  ];
  if (!w.assumed.length && want !== w.seen) {
    base.verdict = 'differs';
    base.difference = {
      kind: 'backoff-delay',
      expected: `back-off ${goMs(want)}`,
      seen: `back-off ${goMs(w.seen)}`,
    };
  } else if (w.assumed.length && !ladder.isRung(w.seen)) {
    base.verdict = 'differs';
    base.difference = {
      kind: 'backoff-delay',
      expected: `a rung of ${goMs(p.initialBackOffMs)} doubling to ${goMs(p.maxBackOffMs)}`,
      seen: `back-off ${goMs(w.seen)}`,
    };
  }
  return base;
}

/** A sync that met a window already read (`seen` ms, until `until`): the same window again. */
export function sameWindowReading(
  ladder: ContainerLadder,
  seen: number,
  until: number,
  fmt: ClockFormat,
): Reading {
  return {
    verdict: 'agrees',
    model: [`the same window again: a sync met it (back-off ${goMs(seen)} until ${fmt(until)})`],
    rule: RULE_BACKOFF,
    ...(ladder.windowSeen !== undefined ? { backoffMs: ladder.windowSeen } : {}),
  };
}
