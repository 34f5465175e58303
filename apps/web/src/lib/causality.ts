/**
 * Cause and effect in one pod's trace: which PLEG event, config op or resync woke the pod worker, the
 * worker update it delivered, and the SyncPod run that update became. Read by the timeline (flow arrows)
 * and the step panel ("woke" / "woken by"). Pure; O(events).
 *
 * How the engine's pod worker (packages/core/src/kubelet/pod-workers.ts) orders these, which the matching
 * follows:
 *   - the sync loop turns each sync-worthy PLEG event (all but ContainerRemoved) and each config op of
 *     the pod into one UpdatePod call, recorded as `worker.update` right after its cause;
 *   - an update that finds the worker idle is taken at once; one that arrives while a sync is running
 *     waits as the pending update (later ones coalesce into it) and is taken when that sync's
 *     `sync.result` is recorded;
 *   - the worker records `sync.start` only after the pod cache is newer than its last sync, so a taken
 *     update's run can start well after the update (at the next relist).
 * An update with no cause before it is a resync: the sync loop's periodic or requeued sync of the pod.
 */
import type { TraceEvent, TraceOf } from '@syncscope/core/trace';

/** A cause older than this when the next update arrives is not that update's cause. */
const CAUSE_WINDOW_MS = 5_000;

interface FlowCause {
  kind: 'pleg' | 'config' | 'resync';
  seq: number;
  time: number;
  label: string;
}

interface FlowUpdate {
  seq: number;
  time: number;
  updateType: string;
  coalesced: boolean;
}

interface FlowRun {
  /** The run's `sync.start` (absent when the trace starts inside it) and `sync.result` (absent while running). */
  startSeq: number | null;
  resultSeq: number | null;
  start: number;
  end: number | null;
  workType: string;
}

/** One wake-up: a cause, the update it delivered, and the run that update became (null if not yet). */
export interface WakeChain {
  cause: FlowCause;
  update: FlowUpdate;
  run: FlowRun | null;
}

function plegLabel(ev: TraceOf<'pleg.event'>): string {
  const who = ev.containerName ?? ev.containerID.slice(0, 12);
  return `PLEG ${ev.event}${who ? ` ${who}` : ''}`;
}

/** Every wake-up chain of the pod's events (ascending seq), oldest first. */
export function wakeChains(events: readonly TraceEvent[]): WakeChain[] {
  const chains: WakeChain[] = [];
  let causes: FlowCause[] = [];
  // the chains taken by the worker and waiting for (or in) their run; the chains pending behind a run
  let taken: WakeChain[] = [];
  let pending: WakeChain[] = [];
  let busy = false;
  let running: FlowRun | null = null;

  for (const ev of events) {
    switch (ev.type) {
      case 'pleg.event':
        if (ev.event !== 'ContainerRemoved')
          causes.push({ kind: 'pleg', seq: ev.seq, time: ev.time, label: plegLabel(ev) });
        break;
      case 'config.update':
        causes.push({ kind: 'config', seq: ev.seq, time: ev.time, label: `config ${ev.op} (${ev.source})` });
        break;
      case 'worker.update': {
        if (ev.dropped) break;
        causes = causes.filter((c) => ev.time - c.time <= CAUSE_WINDOW_MS);
        const update = { seq: ev.seq, time: ev.time, updateType: ev.updateType, coalesced: ev.coalesced };
        const cause = causes.shift() ?? {
          kind: 'resync' as const,
          seq: ev.seq,
          time: ev.time,
          label: `resync (${ev.updateType})`,
        };
        const chain: WakeChain = { cause, update, run: null };
        chains.push(chain);
        if (busy) pending.push(chain);
        else {
          taken = [chain];
          busy = true;
        }
        break;
      }
      case 'sync.start':
        running = { startSeq: ev.seq, resultSeq: null, start: ev.time, end: null, workType: ev.workType };
        for (const c of taken) c.run = running;
        break;
      case 'sync.result': {
        const run = running ?? {
          startSeq: null,
          resultSeq: null,
          start: ev.time - ev.durationMs,
          end: null,
          workType: ev.workType,
        };
        run.resultSeq = ev.seq;
        run.end = ev.time;
        running = null;
        taken = pending;
        pending = [];
        busy = taken.length > 0;
        break;
      }
      default:
        break;
    }
  }
  return chains;
}

/** The seqs a chain touches: selecting any of them selects the chain. */
function chainSeqs(c: WakeChain): number[] {
  return [c.cause.seq, c.update.seq, c.run?.startSeq ?? -1, c.run?.resultSeq ?? -1].filter((s) => s >= 0);
}

/** The chains a selected step belongs to (a run woken by several coalesced updates has several). */
export function chainsOf(chains: readonly WakeChain[], seq: number): WakeChain[] {
  return chains.filter((c) => chainSeqs(c).includes(seq));
}
