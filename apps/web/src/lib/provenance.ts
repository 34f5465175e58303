/**
 * What a trace states and what it does not. The engine's own trace states every duration; a kubelet log's
 * events carry `durationMs` 0 where the log gave none (a sync error, a CRI call: docs/kubelet-log.md), and
 * `inferred` where the importer added an event the log implies without a line for it. The views print a
 * duration only when it was stated, and draw an inferred event apart, naming the rule it came from.
 */
import type { TraceEvent } from '@syncscope/core/trace';
import { RULES } from './pod-state-core.ts';

/** The event's duration in ms when its source stated one; null for a log's 0 ("no duration in the log"). */
export function statedDurationMs(ev: TraceEvent & { durationMs: number }): number | null {
  return ev.origin !== undefined && ev.durationMs === 0 ? null : ev.durationMs;
}

/** " 12 ms", or "" when the source stated no duration. */
export function durationWords(ev: TraceEvent & { durationMs: number }): string {
  const ms = statedDurationMs(ev);
  return ms === null ? '' : ` ${Math.round(ms)} ms`;
}

/** The importer's rule for the one event it infers: a ContainerStarted before a death with no start. */
export const INFERRED_STARTED = `inferred: ${RULES.startedBeforeDeath}`;

/** The importer's rule behind an inferred event, as a title says it ("inferred: <rule>"). */
export function inferredTitle(ev: TraceEvent): string | null {
  if (!ev.inferred) return null;
  if (ev.type === 'pleg.event' && ev.event === 'ContainerStarted') return INFERRED_STARTED;
  return 'inferred: the log implies it without a line for it';
}
