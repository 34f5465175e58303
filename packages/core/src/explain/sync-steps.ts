/**
 * The pod worker's syncs in a pod's explanation (pod_workers.go): which sync the source's sync step is, and
 * when the next one is due. Called by ./pod-explainer.ts for each `sync.result`; the decision in words is the
 * pod explainer's.
 *
 *   an update          a PLEG event, a probe result or a config op wakes an idle worker at once (UpdatePod)
 *   during a sync      an update that comes while a sync runs is kept pending and run right after it
 *                      (completeWork), once the pod cache is newer than that sync's end (GetNewerThan): at
 *                      the next relist. A worker with a pending sync is woken by the relist's cache write,
 *                      before that relist's own events reach it, so those events come while that sync runs
 *                      and queue one more: two syncs a relist apart after one event, the second with no
 *                      event before it in the source.
 *   a failed sync      requeues the worker after backOffPeriod ×[1, 1.5); a successful one after the resync
 *                      period, jittered alike
 * A failed sync within the requeue with no update since the last sync, and not the one an update queued while
 * the sync before ran, is a duplicate sync. Browser-safe: no Node imports.
 */
import type { TraceOf } from '../events/trace.ts';
import type { ExplainParams } from './params.ts';
import type { PodFlags } from './pod-rules.ts';
import type { NextSync, Reading } from './types.ts';
import { type ClockFormat, goMs } from './words.ts';

const RULE_SYNC =
  'SyncPod → computePodActions; a failed sync requeues the worker after backOffPeriod, jittered';

export class SyncSteps {
  /** the time of the newest failed sync */
  private failedSync: number | undefined;
  /** an update came before the newest sync, maybe while it ran: the sync it queued may come until then */
  private queuedUntil: number | undefined;

  constructor(
    private readonly p: ExplainParams,
    private readonly fmt: ClockFormat,
    private readonly f: PodFlags,
  ) {}

  /** A sync the source shows: agrees, or a duplicate sync; its next sync. The caller puts the decision first. */
  read(ev: TraceOf<'sync.result'>): Reading {
    const { p, fmt } = this;
    const failed = ev.error !== undefined || ev.actions.some((a) => a.error);
    const r: Reading = { verdict: 'agrees', model: [], rule: RULE_SYNC };
    const woke = this.f.woke;
    const queued = !woke && this.queuedUntil !== undefined && ev.time <= this.queuedUntil;
    if (failed) {
      const last = this.failedSync;
      const floor = p.backOffPeriodMs - p.syncTickerMs;
      if (last !== undefined && !woke && !queued && ev.time - last < floor) {
        r.verdict = 'differs';
        r.difference = {
          kind: 'duplicate-sync',
          expected: `the next sync at ${fmt(last + p.backOffPeriodMs)}–${fmt(last + p.backOffPeriodMs * (1 + p.jitterFactor))} (the requeue after the failed sync at ${fmt(last)})`,
          seen: `a sync ${goMs(ev.time - last)} after it, with no event between to wake the worker`,
        };
      }
      this.failedSync = ev.time;
      r.nextSync = this.after(ev.time, p.backOffPeriodMs, 'error requeue');
    } else {
      this.failedSync = undefined;
      r.nextSync = this.after(ev.time, p.resyncMs, 'resync');
    }
    if (queued)
      r.model.push(
        'the sync an update queued while the one before ran: it waited for the next relist (GetNewerThan)',
      );
    // an update before this sync may have come while it ran: its sync runs at the next relist, a period
    // after the one that woke this sync (each allowed to take up to a period)
    this.queuedUntil = woke ? ev.time + 3 * p.relistMs : undefined;
    this.f.woke = false;
    return r;
  }

  private after(at: number, d: number, why: NextSync['why']): NextSync {
    return { from: at + d, to: at + d * (1 + this.p.jitterFactor), why };
  }
}
