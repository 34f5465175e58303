/**
 * PodStateReducer: folds any trace (the engine's, an imported kubelet log's, an observer's) into each pod's
 * and container's state as the kubelet would report it, every fact with its provenance (./types.ts).
 *
 *   const r = new PodStateReducer();
 *   for (const ev of events) r.add(ev);     // O(1) amortised per event
 *   r.snapshot(uid)                          // the pod now; computed on demand, cached until its next event
 *
 * What each event says (config.update, worker.*, pleg.event, sync.result, backoff, runtime.call,
 * probe.result, status.update) is ./fold-event.ts, the rules it names ./rules.ts.
 * Browser-safe: no Node imports.
 */
import type { TraceEvent } from '../events/trace.ts';
import { PodBackoffs } from './backoffs.ts';
import { containerSnapshot } from './container-snapshot.ts';
import { PodContainers } from './containers.ts';
import type { PodFold } from './fold.ts';
import { foldEvent } from './fold-event.ts';
import { podSnapshot } from './snapshot.ts';
import type { PodSnapshot, Source } from './types.ts';

function sourceOf(ev: TraceEvent): Source {
  return ev.origin ? { seq: ev.seq, line: ev.origin.line } : { seq: ev.seq };
}

export class PodStateReducer {
  private readonly pods = new Map<string, PodFold>();
  private asOf = 0;

  /** Folds one event (events in seq order). */
  add(ev: TraceEvent): void {
    if (ev.time > this.asOf) this.asOf = ev.time;
    const uid = 'podUID' in ev ? ev.podUID : undefined;
    const name = 'pod' in ev ? ev.pod : undefined;
    if (!uid || !name) return;
    let p = this.pods.get(uid);
    if (!p) {
      p = {
        uid,
        pod: name,
        removed: false,
        containers: new PodContainers(),
        backoffs: new PodBackoffs(),
        seq: 0,
        firstSeen: ev.time,
        lastSeen: ev.time,
        probes: new Map(),
      };
      this.pods.set(uid, p);
    }
    if (ev.node !== undefined) p.node = ev.node;
    if (ev.time > p.lastSeen) p.lastSeen = ev.time;
    p.seq = ev.seq;
    p.cached = undefined;
    foldEvent(p, ev, sourceOf(ev));
  }

  addAll(events: Iterable<TraceEvent>): this {
    for (const ev of events) this.add(ev);
    return this;
  }

  /** The pod now (undefined when the trace never named it). Cached until the pod's next event. */
  snapshot(uid: string): PodSnapshot | undefined {
    const p = this.pods.get(uid);
    if (!p) return undefined;
    if (!p.cached || p.cached.asOf !== this.asOf) p.cached = podSnapshot(p, this.asOf);
    return p.cached;
  }

  /**
   * The pod's containers now and whether it is deleted or removed, without the rest of its snapshot (phase,
   * kubectl's words, back-offs): a reader at every event pays for the containers alone.
   */
  containers(uid: string): Pick<PodSnapshot, 'containers' | 'deletedAt' | 'removed'> | undefined {
    const p = this.pods.get(uid);
    if (!p) return undefined;
    if (p.cached && p.cached.asOf === this.asOf) return p.cached;
    const containers = [...p.containers.slots.values()].map((s) =>
      containerSnapshot(s, p.added !== undefined),
    );
    containers.sort((a, b) => Number(b.init ?? false) - Number(a.init ?? false));
    return { containers, removed: p.removed, ...(p.deleted ? { deletedAt: p.deleted.at } : {}) };
  }

  /**
   * Drops everything known of a pod (a long-lived reader's bound on memory once the pod was removed and
   * shown as such). A later event of the pod starts it anew.
   */
  forget(uid: string): void {
    this.pods.delete(uid);
  }

  /** Every pod the trace named, in order of first appearance. */
  snapshots(): PodSnapshot[] {
    const out: PodSnapshot[] = [];
    for (const uid of this.pods.keys()) out.push(this.snapshot(uid) as PodSnapshot);
    return out;
  }

  /** The time of the last event folded: the trace's "now". */
  get now(): number {
    return this.asOf;
  }
}
