/**
 * Runs of the same outcome a pod's trouble is read from (./trouble.ts): the syncs that failed in a row, and
 * each container's probe results in a row. Folded by the reducer (./reducer.ts) event by event, O(1) each.
 */
import type { TraceOf } from '../events/trace.ts';
import type { PodFold } from './fold.ts';
import type { Source } from './types.ts';

/** A sync that failed extends the run of failures; one that did not ends it. */
export function noteSync(p: PodFold, ev: TraceOf<'sync.result'>, from: Source): void {
  const failed = ev.actions.find((a) => a.error);
  const error = ev.error ?? (failed ? `${failed.action} ${failed.target}: ${failed.error}` : undefined);
  if (error === undefined) {
    p.syncError = undefined;
    return;
  }
  p.syncError = { at: ev.time, error, count: (p.syncError?.count ?? 0) + 1, from };
}

/** A probe result: the same result as the last extends its run, another starts a new one. */
export function noteProbe(p: PodFold, ev: TraceOf<'probe.result'>, from: Source): void {
  const key = `${ev.container}/${ev.probe}`;
  const last = p.probes.get(key);
  if (last?.result === ev.result) {
    last.count++;
    return;
  }
  p.probes.set(key, {
    container: ev.container,
    probe: ev.probe,
    result: ev.result,
    since: ev.time,
    count: 1,
    from,
  });
}
