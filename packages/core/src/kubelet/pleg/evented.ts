import type { Clock, Timer } from '../../clock/clock.ts';
import { type ContainerEventResponse, type ContainerEventStream, nsToMs } from '../../cri/types.ts';
import type { TraceRecorder } from '../../events/recorder.ts';
import type { PodCache } from '../container/cache.ts';
import type { PodStatusRT } from '../container/runtime.ts';
import type { Channel } from '../util/channel.ts';
import { type GenericPLEG, getPodIPs, type RelistDuration } from './generic.ts';
import {
  ContainerDied,
  ContainerRemoved,
  ContainerStarted,
  type PodLifeCycleEventType,
  type PodLifecycleEvent,
} from './pleg.ts';

/** globalCacheUpdatePeriod: how often the cache's global timestamp is bumped while events drive it. */
const GLOBAL_CACHE_UPDATE_PERIOD_MS = 5_000;

/** What the evented PLEG needs from the runtime manager (kuberuntime). */
export interface EventedRuntime {
  /** CRI GetContainerEvents; `onEnd(err)` once when the stream breaks (undefined when cancelled). */
  streamEvents(
    onEvent: (ev: ContainerEventResponse) => void,
    onEnd: (err?: Error) => void,
  ): ContainerEventStream;
  /** The pod status an event carries; undefined when it has no sandbox metadata. */
  generatePodStatus(ev: ContainerEventResponse): PodStatusRT | undefined;
}

export interface EventedPLEGOptions {
  /** eventedPlegMaxStreamRetries: stream failures before falling back to relisting */
  maxStreamRetries: number;
  /** the generic PLEG's period/threshold after the fallback (1 s / 3 min) */
  fallbackRelistDuration: RelistDuration;
}

/**
 * EventedPLEG (pkg/kubelet/pleg/evented.go, gate EventedPLEG): turns the runtime's GetContainerEvents stream
 * into pod lifecycle events on the generic PLEG's channel (the sync loop reads one channel), and writes the
 * status each event carries into the pod cache, stamped with the event's time (an older write is refused,
 * see PodCache.ignoreOlderWrites). The generic PLEG keeps relisting beside it, slowly (300 s / 10 min).
 *
 *   STARTED → ContainerStarted   STOPPED → ContainerDied   CREATED → (cache only)
 *   DELETED → ContainerDied + ContainerRemoved (the cache entry goes when the sandbox is deleted)
 *
 * A broken stream forces one generic relist and is reopened at once; after `maxStreamRetries` failures
 * (containerd 1.6 answers UNIMPLEMENTED every time) it stops itself and restarts the generic PLEG at
 * 1 s / 3 min, for good. Each switch is traced as `pleg.mode`. Every 5 s the cache's global timestamp is
 * bumped, so a pod worker waiting for fresh state of an idle pod waits at most that long.
 */
export class EventedPLEG {
  private inUse = false;
  private stream: ContainerEventStream | undefined;
  private cacheTicker: Timer | undefined;
  private attempts = 0;
  private lastError = '';
  /** evented_pleg_connection_error_count */
  connectionErrors = 0;

  constructor(
    private readonly runtime: EventedRuntime,
    private readonly generic: GenericPLEG,
    private readonly cache: PodCache,
    private readonly clock: Clock,
    private readonly trace: TraceRecorder,
    private readonly options: EventedPLEGOptions,
  ) {}

  /** 'evented' while the stream drives the cache, 'generic' before start and after the fallback. */
  get mode(): 'generic' | 'evented' {
    return this.inUse ? 'evented' : 'generic';
  }

  private get channel(): Channel<PodLifecycleEvent> {
    return this.generic.watch();
  }

  start(): void {
    if (this.inUse) return;
    this.inUse = true;
    this.trace.record({ type: 'pleg.mode', mode: 'evented', reason: 'EventedPLEG started' });
    this.cacheTicker = this.clock.setTicker(GLOBAL_CACHE_UPDATE_PERIOD_MS, () =>
      this.cache.updateTime(this.clock.now()),
    );
    this.connect();
  }

  stop(): void {
    if (!this.inUse) return;
    this.inUse = false;
    this.cacheTicker?.stop();
    this.cacheTicker = undefined;
    const s = this.stream;
    this.stream = undefined;
    s?.cancel();
  }

  /** Healthy while the shared event channel has room. */
  healthy(): [boolean, string | undefined] {
    const n = this.channel.length;
    if (n >= this.channel.capacity) {
      return [false, `EventedPLEG: pleg event channel capacity is full with ${n} events`];
    }
    return [true, undefined];
  }

  private connect(): void {
    if (!this.inUse) return;
    if (this.attempts >= this.options.maxStreamRetries) {
      this.fallBack();
      return;
    }
    let ended = false;
    const onEnd = (err?: Error) => {
      if (ended) return;
      ended = true;
      if (this.stream === stream) this.stream = undefined;
      if (!err || !this.inUse) return;
      this.connectionErrors++;
      this.attempts++;
      this.lastError = err.message;
      void this.generic.relist(); // for the latest state and the running-pods gauges
      queueMicrotask(() => this.connect());
    };
    let stream: ContainerEventStream | undefined;
    try {
      stream = this.runtime.streamEvents((ev) => this.onEvent(ev), onEnd);
    } catch (e) {
      onEnd(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    if (!ended) this.stream = stream;
  }

  /** Stop ourselves, restart the generic PLEG at its normal period/threshold. */
  private fallBack(): void {
    this.stop();
    this.generic.stop();
    this.generic.update(this.options.fallbackRelistDuration);
    this.generic.start();
    this.trace.record({
      type: 'pleg.mode',
      mode: 'generic',
      reason: `Fall back to Generic PLEG relisting since Evented PLEG is not working: ${this.lastError}`,
    });
  }

  /** processCRIEvents, for one event. */
  private onEvent(ev: ContainerEventResponse): void {
    if (!this.inUse) return;
    const status = this.runtime.generatePodStatus(ev);
    if (!status) return; // "received ContainerEventResponse with nil PodSandboxStatus"
    const pid = status.id;
    status.ips = getPodIPs(this.cache, pid, status);
    let send: boolean;
    if (ev.container_event_type === 'CONTAINER_DELETED_EVENT') {
      if (status.sandboxStatuses.some((s) => s.id === ev.container_id)) this.cache.delete(pid);
      send = true;
    } else {
      send = this.cache.set(pid, status, undefined, nsToMs(ev.created_at));
    }
    if (!send) return;
    switch (ev.container_event_type) {
      case 'CONTAINER_STOPPED_EVENT':
        this.send(status, ev.container_id, ContainerDied);
        return;
      case 'CONTAINER_STARTED_EVENT':
        this.send(status, ev.container_id, ContainerStarted);
        return;
      case 'CONTAINER_DELETED_EVENT':
        this.send(status, ev.container_id, ContainerDied);
        this.send(status, ev.container_id, ContainerRemoved);
        return;
      case 'CONTAINER_CREATED_EVENT':
        return; // the cache is updated; creation is no lifecycle event
    }
  }

  private send(status: PodStatusRT, cid: string, type: PodLifeCycleEventType): void {
    if (!this.channel.trySend({ id: status.id, type, data: cid })) {
      this.generic.discardedEvents++;
      return;
    }
    const name = status.containerStatuses.find((c) => c.id === cid)?.name;
    this.trace.record({
      type: 'pleg.event',
      podUID: status.id,
      pod: `${status.namespace}/${status.name}`,
      event: type,
      containerID: cid,
      ...(name ? { containerName: name } : {}),
    });
  }
}
