/**
 * The pod lifecycle event generator's contract (pkg/kubelet/pleg/pleg.go). The PLEG turns changes it sees
 * in the runtime into events on `watch()`; the sync loop reads them and syncs the pod. It also keeps the
 * pod status cache fresh, which is what the pod workers actually read.
 *
 * Two implementations: GenericPLEG (relist every second; ./generic.ts) and EventedPLEG on CRI
 * GetContainerEvents (kubelet gate EventedPLEG; ./evented.ts), which shares the generic PLEG's channel, runs
 * beside it (relisting every 300 s) and hands back to it (every 1 s) when the stream keeps failing.
 */
import type { PlegEventType } from '../../events/trace.ts';
import type { Channel } from '../util/channel.ts';

export type PodLifeCycleEventType = PlegEventType;

export const ContainerStarted: PodLifeCycleEventType = 'ContainerStarted';
export const ContainerDied: PodLifeCycleEventType = 'ContainerDied';
export const ContainerRemoved: PodLifeCycleEventType = 'ContainerRemoved';
export const ContainerChanged: PodLifeCycleEventType = 'ContainerChanged';

/** One event: the pod, what happened, and the container (or sandbox) ID it happened to. */
export interface PodLifecycleEvent {
  id: string;
  type: PodLifeCycleEventType;
  data: string;
}

export interface PodLifecycleEventGenerator {
  start(): void;
  stop(): void;
  watch(): Channel<PodLifecycleEvent>;
  /** [healthy, error text when not] */
  healthy(): [boolean, string | undefined];
  /** One relist, by hand (tests) or from the loop. */
  relist(): Promise<void>;
}

/** The PLEG's folded view of a container or sandbox state (plegContainerState). */
export type PlegContainerState = 'running' | 'exited' | 'unknown' | 'non-existent';

/** Events are "sync-worthy" unless they say a container was removed (kubelet.go isSyncPodWorthy). */
export function isSyncPodWorthy(ev: PodLifecycleEvent): boolean {
  return ev.type !== ContainerRemoved;
}
