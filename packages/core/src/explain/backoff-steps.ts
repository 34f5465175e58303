/**
 * The back-off half of a pod's explanation: each container's deaths, windows and restarts read by the
 * crash-loop rule (./ladder.ts), each restart by its timing (./restart-timing.ts). Called by ./pod-explainer.ts
 * with the pod-state model's containers at the step; a new back-off window is read by ./backoff-window.ts.
 * Browser-safe: no Node imports.
 */
import type { TraceOf } from '../events/trace.ts';
import type { ContainerSnapshot, PodSnapshot } from '../pod-state/types.ts';
import { sameWindowReading, windowReading } from './backoff-window.ts';
import { ContainerLadder, type DeathReading } from './ladder.ts';
import type { ExplainParams } from './params.ts';
import { missingRestart, restartReading } from './restart-timing.ts';
import type { Reading } from './types.ts';
import { backoffOutcome, type ClockFormat, goMs } from './words.ts';

/** What the back-off steps read of the pod at a step: its containers, and whether it is going away. */
export type PodContainersNow = Pick<PodSnapshot, 'containers' | 'deletedAt' | 'removed'>;

/** The pod's state at a step, from the caller's reducer: its containers (cheap), or its whole snapshot. */
export interface PodAt {
  containers(): PodContainersNow;
  snapshot(): PodSnapshot;
}

/** deaths kept waiting for their restart (a pod has few containers; more are old) */
const MAX_PENDING = 64;

function nameOf(c: ContainerSnapshot | undefined, given: string | undefined, id: string): string {
  return c && c.name.basis !== 'unknown' ? c.name.value : (given ?? id.slice(0, 12));
}

/** A death no start has restarted yet: its name when known; whether a relist before its death's read the
 *  pod's status (listed it running, or had another event of the pod); whether it was marked missing. */
interface Pending {
  ladder: ContainerLadder;
  name?: string;
  listed: boolean;
  settled?: boolean;
}

const bare = (id: string | undefined) => (id ? id.replace(/^[a-z][a-z0-9+.-]*:\/\//, '') : undefined);

export class BackoffSteps {
  /** the ladder of each container instance's chain, by instance ID */
  private readonly byID = new Map<string, ContainerLadder>();
  /** the ladder of each container the source names */
  private readonly byName = new Map<string, ContainerLadder>();
  /** deaths no start has restarted yet, oldest first, with the container's name when known */
  private pending: Pending[] = [];
  /** instances a relist listed running (a ContainerStarted the source saw, not one inferred from a death) */
  private readonly listed = new Set<string>();
  /** the time of the pod's newest PLEG event (its relist read the pod's status into the cache) */
  private lastPleg: number | undefined;

  constructor(
    private readonly p: ExplainParams,
    private readonly fmt: ClockFormat,
    /** the pod's ADD is in the trace: a first death seen is the container's first */
    private readonly fromStart: () => boolean,
  ) {}

  private ladderOf(id: string): ContainerLadder {
    let l = this.byID.get(id);
    if (!l) {
      l = new ContainerLadder(this.p);
      this.byID.set(id, l);
    }
    return l;
  }

  private find(snap: PodContainersNow, id: string): ContainerSnapshot | undefined {
    return snap.containers.find((c) => bare(c.containerID) === id);
  }

  /** A ContainerStarted: a first start, or a restart the rule times. */
  started(ev: TraceOf<'pleg.event'>, snap: PodContainersNow): Reading {
    const id = bare(ev.containerID) as string;
    const c = this.find(snap, id);
    if (!ev.inferred) {
      this.listed.add(id);
      this.lastPleg = ev.time;
    }
    const known = this.byID.get(id);
    if (known?.death) {
      // the same ID running after its death (dockershim's Windows sandbox): the runtime never restarts a
      // container under its ID, so it had not died, and its death restarts nothing
      known.death = undefined;
      this.pending = this.pending.filter((d) => d.ladder !== known);
      return {
        verdict: 'agrees',
        model: [`${nameOf(c, ev.containerName, id)} runs again under its ID: it had not died`],
        rule: 'generic PLEG relist',
      };
    }
    return (
      this.begin(id, c, ev.time, ev.containerName, ev.inferred === true) ?? {
        verdict: 'agrees',
        model: [`${nameOf(c, ev.containerName, id)} not created yet → start`],
        rule: 'computePodActions',
      }
    );
  }

  /**
   * The instance `id` began at `at`: when the one before it in its container died, a restart the rule times
   * (and Next moves the entry); else a first start (undefined). `seenDead`: the source first shows the
   * instance dead (it started and died between two relists).
   */
  private begin(
    id: string,
    c: ContainerSnapshot | undefined,
    at: number,
    given: string | undefined,
    seenDead: boolean,
  ): Reading | undefined {
    if (this.byID.has(id)) return undefined;
    const name = c && c.name.basis !== 'unknown' ? c.name.value : given;
    const last = c && c.lastState.basis !== 'unknown' ? c.lastState.value : null;
    const prevID = bare(last?.containerID);
    let ladder = prevID && prevID !== id ? this.byID.get(prevID) : undefined;
    if (ladder && !this.canRestart(this.pendingOf(ladder), at, seenDead)) ladder = undefined;
    ladder ??= this.pending.find(
      (d) => this.canRestart(d, at, seenDead) && (!name || !d.name || d.name === name),
    )?.ladder;
    if (!ladder) {
      this.byID.set(id, new ContainerLadder(this.p));
      return undefined;
    }
    const paired = ladder;
    this.pending = this.pending.filter((d) => d.ladder !== paired);
    this.byID.set(id, ladder);
    const r = restartReading(ladder, at, nameOf(c, given, id), this.p, this.fmt);
    const death = ladder.death;
    if (seenDead && death && at - death.time < this.p.relistMs / 2)
      r.model.push(
        'the sync read the death from the status before a relist listed it, and restarted it; the next relist lists both',
      );
    ladder.started(at, true);
    return r;
  }

  private pendingOf(l: ContainerLadder): Pending {
    return this.pending.find((d) => d.ladder === l) ?? { ladder: l, listed: false };
  }

  /**
   * Whether a start at `at` can restart the dead instance of `d`: the kubelet restarts a container only
   * after a sync read its death, which a relist showed, so a start the same relist shows is another's (the
   * sandbox's, whose event the relist lists after the containers'), unless the sync that killed it started
   * it again. One case is a restart all the same: the generic PLEG lists the containers and then reads the
   * pod's status into the cache the sync reads, so an instance a relist listed running, or did not list
   * yet, can be read dead by the sync that relist woke, and restarted then; the next relist shows both the
   * death and the new instance, already dead too (`seenDead`), in one go.
   */
  private canRestart(d: Pending, at: number, seenDead: boolean): boolean {
    const death = d.ladder.death;
    if (!death) return false;
    if (death.reading.kind === 'immediate' && death.reading.why === 'killed') return true;
    return at - death.time >= this.p.relistMs / 2 || (seenDead && d.listed);
  }

  /** A ContainerDied of a pod that restarts its containers: what the next sync does with it. */
  died(
    ev: TraceOf<'pleg.event'>,
    snap: PodContainersNow,
    killed: boolean,
  ): { reading: DeathReading; words: string; name: string; restart?: Reading } {
    const id = bare(ev.containerID) as string;
    const c = this.find(snap, id);
    const name = nameOf(c, ev.containerName, id);
    // an instance that started and died between two relists: its start is this death's relist at the latest
    const restart = this.byID.has(id) ? undefined : this.begin(id, c, ev.time, ev.containerName, true);
    const ladder = this.ladderOf(id);
    if (c && c.name.basis !== 'unknown') this.byName.set(c.name.value, ladder);
    const reading = ladder.died(ev.time, ev.seq, killed);
    this.pending = this.pending.filter((d) => d.ladder !== ladder);
    const known = c && c.name.basis !== 'unknown' ? c.name.value : ev.containerName;
    const before = this.lastPleg !== undefined && ev.time - this.lastPleg >= this.p.relistMs / 2;
    const listed = this.listed.delete(id) || before;
    this.lastPleg = ev.time;
    this.pending.push(known ? { ladder, name: known, listed } : { ladder, listed });
    if (this.pending.length > MAX_PENDING) this.pending.shift();
    let words: string;
    if (reading.kind === 'backoff')
      words = backoffOutcome(reading.delayMs, reading.until, 'CrashLoopBackOff', this.fmt);
    else if (reading.why === 'killed')
      words =
        'killed by the sync that restarts it: it ran in the status that sync read, so no back-off applies';
    else if (reading.why === 'expired')
      words = `the back-off entry expired (${goMs(reading.sinceUpdateMs ?? 0)} since its last update > ${goMs(this.p.resetMs)}): restart at once, the ladder starts over`;
    else words = 'no back-off entry yet: restart at the sync this death wakes, then the entry is 10s';
    if (reading.kind === 'immediate' && reading.why === 'no-entry' && this.p.initialBackOffMs !== 10_000)
      words = words.replace('10s', goMs(this.p.initialBackOffMs));
    return restart ? { reading, words, name, restart } : { reading, words, name };
  }

  /**
   * A step of the pod at `at` (`what`, in words) that restarted none of its dead containers: a container whose
   * back-off window ended and whose restart the rule wanted by now (./restart-timing.ts restartDue, the
   * relist, ticker and jitter allowed for) is marked once, at the first such step.
   */
  missing(at: number, what: string): Reading | undefined {
    for (const d of this.pending.filter((d) => !d.settled)) {
      const name = d.name ?? [...this.byName].find(([, l]) => l === d.ladder)?.[0];
      const r = missingRestart(d.ladder, name, at, what, this.p, this.fmt);
      if (r) d.settled = true;
      if (r) return r;
    }
    return undefined;
  }

  /** The pod is going away: none of its dead containers is to be restarted, and no later start restarts one. */
  forgo(): void {
    for (const d of this.pending) d.ladder.death = undefined;
    this.pending = [];
  }

  /** A sync that met a container's window (a failed StartContainer with CrashLoopBackOff). */
  metWindow(container: string, at: number): void {
    const l = this.byName.get(container);
    if (l) l.lastSync = at;
  }

  /** A container back-off the source shows: the window's delay against the rule's. */
  container(ev: TraceOf<'backoff'>, snap: PodContainersNow): Reading {
    const c = snap.containers.find((x) => x.name.basis !== 'unknown' && x.name.value === ev.container);
    const id = bare(c?.containerID) ?? `name:${ev.container}`;
    const ladder = this.ladderOf(id);
    this.byName.set(ev.container, ladder);
    const seen = ev.delayS * 1000;
    const since = ev.until - seen;
    const again = ladder.rungs > 0 && ev.until === ladder.windowUntil;
    // a window before any relist reported its death: the PLEG lists the containers, then fetches the pod's
    // status into the cache the sync reads, so an instance can be listed running and read dead; the window's
    // start is that death, read by the ladder the container already has
    const unlisted = !again && !ladder.death && ladder.entry !== undefined;
    if (unlisted) ladder.died(since, ev.seq);
    const d = ladder.death;
    ladder.lastSync = ev.time;
    if (again) return sameWindowReading(ladder, seen, ev.until, this.fmt);
    ladder.rungs++;
    ladder.windowUntil = ev.until;
    const assumed: string[] = [];
    let reading = d?.reading;
    if (!d || (!this.fromStart() && !ladder.entry && reading?.kind === 'immediate')) {
      reading = ladder.assume(seen, d?.time ?? since, ev.seq);
      assumed.push(
        `the source holds no earlier run of ${ev.container} under the back-off: its entry is taken as ${goMs(seen)}`,
      );
    }
    return windowReading(
      { container: ev.container, seen, since, unlisted, assumed },
      ladder,
      reading,
      this.p,
      this.fmt,
    );
  }
}
