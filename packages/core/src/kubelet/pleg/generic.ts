import type { Clock, Timer } from '../../clock/clock.ts';
import type { TraceRecorder } from '../../events/recorder.ts';
import type { PodCache } from '../container/cache.ts';
import type {
  ContainerStateName,
  PodStatusRT,
  Runtime,
  RuntimePod,
  SandboxStateName,
} from '../container/runtime.ts';
import { Channel } from '../util/channel.ts';
import { formatGoDuration } from '../util/flowcontrol/go-duration.ts';
import {
  ContainerChanged,
  ContainerDied,
  ContainerRemoved,
  ContainerStarted,
  type PlegContainerState,
  type PodLifecycleEvent,
  type PodLifecycleEventGenerator,
} from './pleg.ts';

export interface RelistDuration {
  relistPeriodMs: number;
  relistThresholdMs: number;
}

/** convertState: CRI CREATED folds to unknown (only running and exited matter to the PLEG). */
export function convertState(state: ContainerStateName): PlegContainerState {
  switch (state) {
    case 'created':
      return 'unknown';
    case 'running':
      return 'running';
    case 'exited':
      return 'exited';
    case 'unknown':
      return 'unknown';
  }
}

/** Sandboxes are treated as containers: READY counts as running, NOTREADY as exited. */
function convertSandboxState(state: SandboxStateName): PlegContainerState {
  return state === 'ready' ? 'running' : 'exited';
}

/** generateEvents: the transition table. No event when the state did not change. */
export function generateEvents(
  podID: string,
  cid: string,
  oldState: PlegContainerState,
  newState: PlegContainerState,
): PodLifecycleEvent[] {
  if (newState === oldState) return [];
  const ev = (type: PodLifecycleEvent['type']): PodLifecycleEvent => ({ id: podID, type, data: cid });
  switch (newState) {
    case 'running':
      return [ev(ContainerStarted)];
    case 'exited':
      return [ev(ContainerDied)];
    case 'unknown':
      return [ev(ContainerChanged)];
    case 'non-existent':
      // an exited container already reported its death
      return oldState === 'exited' ? [ev(ContainerRemoved)] : [ev(ContainerDied), ev(ContainerRemoved)];
  }
}

interface PodRecord {
  old?: RuntimePod;
  current?: RuntimePod;
}

/**
 * GenericPLEG (pkg/kubelet/pleg/generic.go): every relist period it lists all runtime pods
 * (GetPods(all=true)), diffs every container and sandbox against the previous listing, and for each pod
 * with a change reads its full status (GetPodStatus) into the cache before sending the events.
 *
 * Assumes no container is created, exits and is removed within one relist period (it would go unseen).
 * A pod whose status read fails keeps its old record and is re-inspected next relist, so its events are
 * detected again rather than lost. The event channel holds 1000; when full, events are dropped and counted.
 *
 * relist() may be called by hand; the loop started by start() never overlaps two relists.
 */
export class GenericPLEG implements PodLifecycleEventGenerator {
  private readonly eventChannel: Channel<PodLifecycleEvent>;
  private readonly podRecords = new Map<string, PodRecord>();
  private podsToReinspect = new Map<string, RuntimePod | undefined>();
  private relistTime = 0;
  private inFlight: Promise<void> | undefined;
  private timer: Timer | undefined;
  private stopped = true;
  /** pleg_discard_events */
  discardedEvents = 0;

  constructor(
    private readonly runtime: Runtime,
    private readonly cache: PodCache,
    private readonly clock: Clock,
    private readonly trace: TraceRecorder,
    private relistDuration: RelistDuration,
    channelCapacity: number,
  ) {
    this.eventChannel = new Channel<PodLifecycleEvent>(channelCapacity);
  }

  watch(): Channel<PodLifecycleEvent> {
    return this.eventChannel;
  }

  /** wait.Until(relist, period): relist at once, then period after each relist ends. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const loop = () => {
      if (this.stopped) return;
      void this.relist().finally(() => {
        if (!this.stopped) this.timer = this.clock.setTimer(this.relistDuration.relistPeriodMs, loop);
      });
    };
    loop();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.stop();
  }

  /** Update: new relist period/threshold (the evented PLEG's fallback); used from the next relist on. */
  update(relistDuration: RelistDuration): void {
    this.relistDuration = { ...relistDuration };
  }

  get duration(): Readonly<RelistDuration> {
    return this.relistDuration;
  }

  /** Time of the last successful relist (0 before the first). */
  get lastRelistTime(): number {
    return this.relistTime;
  }

  healthy(): [boolean, string | undefined] {
    if (this.relistTime === 0) return [false, 'pleg has yet to be successful'];
    const elapsed = this.clock.since(this.relistTime);
    if (elapsed > this.relistDuration.relistThresholdMs) {
      const threshold = formatGoDuration(this.relistDuration.relistThresholdMs);
      return [false, `pleg was last seen active ${formatGoDuration(elapsed)} ago; threshold is ${threshold}`];
    }
    return [true, undefined];
  }

  relist(): Promise<void> {
    if (!this.inFlight) this.inFlight = this.doRelist().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  private async doRelist(): Promise<void> {
    const timestamp = this.clock.now();
    let pods: RuntimePod[];
    try {
      pods = await this.runtime.getPods(true);
    } catch {
      return; // "GenericPLEG: Unable to retrieve pods"; relist time not advanced
    }
    this.relistTime = timestamp;
    this.setCurrent(pods);

    const needsReinspection = new Map<string, RuntimePod | undefined>();
    let sent = 0;
    // relist never overlaps itself, and deleting the visited entry (updateRecord) is safe while iterating
    for (const [pid, rec] of this.podRecords) {
      if (sameContainers(rec.old, rec.current) && !this.podsToReinspect.has(pid)) continue;
      const events: PodLifecycleEvent[] = [];
      for (const cid of allContainerIDs(rec.old, rec.current)) {
        events.push(...generateEvents(pid, cid, stateOf(rec.old, cid), stateOf(rec.current, cid)));
      }
      if (events.length === 0 && !this.podsToReinspect.has(pid)) continue;

      const { err, updated } = await this.updateCache(rec.current, pid);
      if (err) {
        needsReinspection.set(pid, rec.current);
        continue;
      }
      // the evented PLEG wrote something newer meanwhile: its events stand, these are stale
      if (!updated) continue;
      // exit codes from the status just read, for a pod still there ("container finished" in generic.go)
      const exitCodes = new Map<string, number>();
      if (rec.current) {
        for (const c of this.cache.get(pid).status.containerStatuses) exitCodes.set(c.id, c.exitCode);
      }
      this.updateRecord(pid);
      for (const ev of events) {
        if (ev.type === ContainerChanged) continue; // computed but never sent
        const name = containerName(rec.old, rec.current, ev.data);
        const ref = { podUID: pid, pod: podKeyOf(rec) };
        const code = exitCodes.get(ev.data);
        if (!this.eventChannel.trySend(ev)) {
          this.discardedEvents++;
          continue;
        }
        sent++;
        this.trace.record({
          type: 'pleg.event',
          ...ref,
          event: ev.type,
          containerID: ev.data,
          ...(name ? { containerName: name } : {}),
          ...(ev.type === ContainerDied && code !== undefined ? { exitCode: code } : {}),
        });
      }
    }
    this.cache.updateTime(timestamp);
    this.podsToReinspect = needsReinspection;
    this.trace.record({
      type: 'pleg.relist',
      durationMs: this.clock.since(timestamp),
      pods: pods.length,
      containers: pods.reduce((n, p) => n + p.containers.length, 0),
      events: sent,
    });
  }

  /**
   * Reads the pod's status into the cache (or deletes the entry when the pod is gone). The entry is stamped
   * with the time just before *its* status was read, not the relist's start (generic.go updateCache): a
   * worker waiting for a status newer than the end of its last sync is woken by the first read that
   * started after it, even in the middle of a relist.
   */
  private async updateCache(
    pod: RuntimePod | undefined,
    pid: string,
  ): Promise<{ err?: Error; updated: boolean }> {
    if (!pod) {
      this.cache.delete(pid);
      return { updated: true };
    }
    const timestamp = this.clock.now();
    let status: PodStatusRT;
    let error: Error | undefined;
    try {
      status = await this.runtime.getPodStatus(pod.id, pod.name, pod.namespace);
      status = { ...status, ips: this.getPodIPs(pid, status) };
    } catch (e) {
      error = e instanceof Error ? e : new Error(String(e));
      status = {
        id: pod.id,
        name: pod.name,
        namespace: pod.namespace,
        ips: [],
        containerStatuses: [],
        sandboxStatuses: [],
        timestamp,
      };
    }
    const updated = this.cache.set(pid, status, error, timestamp);
    return error ? { err: error, updated } : { updated };
  }

  private getPodIPs(pid: string, status: PodStatusRT): string[] {
    return getPodIPs(this.cache, pid, status);
  }

  private setCurrent(pods: RuntimePod[]): void {
    for (const rec of this.podRecords.values()) rec.current = undefined;
    for (const p of pods) {
      const rec = this.podRecords.get(p.id) ?? {};
      rec.current = p;
      this.podRecords.set(p.id, rec);
    }
  }

  private updateRecord(pid: string): void {
    const rec = this.podRecords.get(pid);
    if (!rec) return;
    if (!rec.current) {
      this.podRecords.delete(pid);
      return;
    }
    rec.old = rec.current;
    rec.current = undefined;
  }
}

/** getPodIPs: keeps the previous IPs for a pod that has none now and no READY sandbox (an exited pod). */
export function getPodIPs(cache: PodCache, pid: string, status: PodStatusRT): string[] {
  if (status.ips.length > 0) return status.ips;
  const old = cache.get(pid);
  if (old.error || old.status.ips.length === 0) return [];
  if (status.sandboxStatuses.some((s) => s.state === 'ready')) return status.ips;
  return old.status.ips;
}

/**
 * Whether two listings of a pod hold the very same container and sandbox entries (in any order): then no
 * state changed and there is nothing to diff. (The runtime manager hands out one frozen entry per
 * unchanged item; a listing that is merely equal compares as changed and takes the full diff.)
 */
function sameContainers(a: RuntimePod | undefined, b: RuntimePod | undefined): boolean {
  if (!a || !b) return false;
  return sameItems(a.containers, b.containers) && sameItems(a.sandboxes, b.sandboxes);
}

/** Same length and every entry of `a` in `b`: the same set, as entries of one listing are distinct. */
function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && !b.includes(a[i] as T)) return false;
  return true;
}

function allContainerIDs(...pods: (RuntimePod | undefined)[]): string[] {
  const ids = new Set<string>();
  for (const p of pods) {
    if (!p) continue;
    for (const c of p.containers) ids.add(c.id);
    for (const s of p.sandboxes) ids.add(s.id);
  }
  return [...ids];
}

function stateOf(pod: RuntimePod | undefined, cid: string): PlegContainerState {
  if (!pod) return 'non-existent';
  const c = pod.containers.find((x) => x.id === cid);
  if (c) return convertState(c.state);
  const s = pod.sandboxes.find((x) => x.id === cid);
  if (s) return convertSandboxState(s.state);
  return 'non-existent';
}

function containerName(
  old: RuntimePod | undefined,
  cur: RuntimePod | undefined,
  cid: string,
): string | undefined {
  for (const p of [cur, old]) {
    const c = p?.containers.find((x) => x.id === cid);
    if (c) return c.name;
  }
  return undefined;
}

function podKeyOf(rec: PodRecord): string {
  const p = rec.current ?? rec.old;
  return p ? `${p.namespace}/${p.name}` : '';
}
