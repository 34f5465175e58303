/**
 * results.Manager (pkg/kubelet/prober/results/results_manager.go): the cache of probe results by container,
 * one instance per probe type (liveness, readiness, startup).
 *
 * Writers: the probe workers of that type (worker.ts), which publish a result only once it has crossed its
 * threshold. Readers: computePodActions (liveness/startup Failure → kill), ProberManager.updatePodStatus
 * (started/ready), and the sync loop, which receives every *change* on `updates`.
 *
 * Containers are keyed by their runtime ID. `get`, `set` and `remove` accept either the bare ID ("3f2a…") or
 * the API form from ContainerStatus.containerID ("containerd://3f2a…"); both name the same entry. An update
 * carries the ID exactly as the worker passed it (the API form, as the status manager compares it).
 */
import type { Pod } from '../../api/v1.ts';
import type { ProbeResult, ProbeType } from '../../events/trace.ts';
import { Channel } from '../util/channel.ts';

export type { ProbeResult, ProbeType };

/** Capacity of the updates channel (results_manager.go `make(chan Update, 20)`). */
export const RESULTS_UPDATES_CAPACITY = 20;

/** results.Update: a published result that differs from the one cached before. */
export interface ProbeUpdate {
  containerID: string;
  result: ProbeResult;
  podUID: string;
}

/** The runtime ID without the "<type>://" prefix (kubecontainer.ParseContainerID(...).ID). */
export function containerIDKey(containerID: string): string {
  const i = containerID.indexOf('://');
  return i >= 0 ? containerID.slice(i + 3) : containerID;
}

export class ResultsManager {
  private readonly cache = new Map<string, ProbeResult>();

  /**
   * Every change, in order. Bounded like the kubelet's channel: when the sync loop falls 20 updates behind,
   * further updates wait for room (in Go the worker's send blocks; here the send is queued and the worker
   * goes on, so no probe worker ever stalls on a slow consumer).
   */
  readonly updates = new Channel<ProbeUpdate>(RESULTS_UPDATES_CAPACITY);

  constructor(readonly probeType: ProbeType) {}

  get(containerID: string): ProbeResult | undefined {
    return this.cache.get(containerIDKey(containerID));
  }

  /** Caches the result; when it is new or differs from the cached one, sends an update. */
  set(containerID: string, result: ProbeResult, pod: Pod): void {
    const key = containerIDKey(containerID);
    if (this.cache.get(key) === result) return;
    this.cache.set(key, result);
    const update: ProbeUpdate = { containerID, result, podUID: pod.metadata.uid ?? '' };
    if (!this.updates.trySend(update)) void this.updates.send(update).catch(() => undefined);
  }

  remove(containerID: string): void {
    this.cache.delete(containerIDKey(containerID));
  }

  /** Number of cached results (tests, /api/v1/node). */
  get size(): number {
    return this.cache.size;
  }
}
