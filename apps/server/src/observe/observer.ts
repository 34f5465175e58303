/**
 * The kubelet's PLEG as an observer: observe mode's engine. No pod worker, no sync loop, no call that changes
 * the node: the runtime manager (for its GetPods grouping and GetPodStatus) and the generic PLEG (same code,
 * same transition table, 1 s relist; the evented one with its fallback when configured, as in managed mode)
 * run over a read-only CRI client (readOnlyCri), and record into the same trace: pleg.relist, pleg.event,
 * runtime.call, and from here status.update (the pod as built by pod-view.ts, on change) and inferred
 * `backoff` windows (backoff-infer.ts).
 *
 * Every pod on the runtime is observed: the kubelet's, known by their io.kubernetes.pod.* labels, and pods a
 * Syncscope in managed mode created (they carry the same labels plus its ownership label, which decides how
 * they are shown: pod-view.ts). It implements the routes' Engine: the reads answer from memory at once; addPod
 * updatePod and deletePod throw a 403 Status (observe mode changes nothing).
 *
 * start() begins relisting and reading the PLEG channel; stop() ends both (the runtime is left as it was).
 */
import {
  type AdmittedPod,
  type Clock,
  type EventedPLEG,
  type GenericPLEG,
  KubeGenericRuntimeManager,
  type NodeInfo,
  PodCache,
  type PodStatusRT,
  type RuntimePod,
  type TraceRecorder,
  type VersionResponse,
} from '@syncscope/core';
import type { Event } from '@syncscope/core/api';
import type { PodRef } from '@syncscope/core/events/trace';
import type { Engine } from '../engine.ts';
import { StatusError, status } from '../status.ts';
import { InferredBackoff, previousExitAt } from './backoff-infer.ts';
import { type JoinResult, joinLogEvent, type LogEventPayload, type LogJoin } from './log-events.ts';
import { type ApiPods, ObservedPods } from './observed-pods.ts';
import { OBSERVE_REFUSAL, type ObserverDeps, observedNodeInfo, observerPlegs } from './observer-runtime.ts';
import { type ObservedIdentity, type OpenBackoff, observedPod } from './pod-view.ts';
import { statusDerivations } from './status-derived.ts';

export { OBSERVE_REFUSAL } from './observer-runtime.ts';

export class Observer implements Engine, LogJoin {
  readonly trace: TraceRecorder;
  readonly clock: Clock;
  readonly backoff: InferredBackoff;
  readonly pleg: GenericPLEG;
  readonly eventedPleg: EventedPLEG | undefined;
  private readonly runtime: KubeGenericRuntimeManager;
  private readonly cache = new PodCache();
  /** the pods shown: the runtime's, and the API's once attached (observed-pods.ts) */
  private readonly view = new ObservedPods();
  private readonly open = new Map<string, OpenBackoff>();
  /** container instances already seen (their start is counted once) */
  private readonly instances = new Set<string>();
  private listed = new Map<string, RuntimePod>();
  private versionInfo: VersionResponse | undefined;
  private runtimeError = '';
  private consuming: Promise<void> | undefined;
  private stopped = true;

  constructor(private readonly deps: ObserverDeps) {
    const { clock, trace, config } = deps;
    this.clock = clock;
    this.trace = trace;
    this.backoff = new InferredBackoff(clock, { record: (p) => this.recordBackoff(p) }, config);
    this.runtime = new KubeGenericRuntimeManager({
      cri: deps.cri,
      clock,
      trace,
      config,
      recorder: { event: () => {} },
    });
    ({ pleg: this.pleg, eventedPleg: this.eventedPleg } = observerPlegs(
      this.runtime,
      this.cache,
      deps,
      (pods, at) => {
        this.listed = new Map(pods.map((p) => [p.id, p]));
        this.backoff.relisted(at);
      },
    ));
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.readVersion();
    this.pleg.start();
    this.eventedPleg?.start();
    this.consuming = this.consume();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.eventedPleg?.stop();
    this.pleg.stop();
    this.pleg.watch().close();
    await this.consuming;
  }

  private async readVersion(): Promise<void> {
    try {
      this.versionInfo = await this.runtime.version();
      this.runtimeError = '';
    } catch (e) {
      this.runtimeError = `container runtime: ${(e as Error).message}`;
      const t = this.clock.setTimer(5_000, () => {
        if (!this.stopped) void this.readVersion();
      });
      if (this.stopped) t.stop();
    }
  }

  /** Reads the PLEG's channel, as the sync loop would, and updates what the views show. */
  private async consume(): Promise<void> {
    const ch = this.pleg.watch();
    for (;;) {
      const ev = await ch.receive();
      if (!ev || this.stopped) return;
      this.onPlegEvent(ev.id, ev.type, ev.data);
    }
  }

  private onPlegEvent(uid: string, type: string, id: string): void {
    const { status } = this.cache.get(uid);
    const listed = this.listed.get(uid);
    if (!listed || (status.containerStatuses.length === 0 && status.sandboxStatuses.length === 0)) {
      this.view.pods.delete(uid);
      this.backoff.forget(uid);
      for (const k of [...this.open.keys()]) if (k.startsWith(`${uid}_`)) this.open.delete(k);
      return;
    }
    const who: ObservedIdentity = {
      uid,
      name: listed.name,
      namespace: listed.namespace,
      createdAt: Math.min(
        ...status.sandboxStatuses.map((s) => s.createdAt).filter((t) => t > 0),
        listed.createdAt || Infinity,
      ),
      managed: listed.managed,
    };
    const ref: PodRef = { podUID: uid, pod: `${who.namespace}/${who.name}` };
    const c = status.containerStatuses.find((x) => x.id === id);
    // A new instance: the kubelet started it after the previous one's exit, stepping the window. It may have
    // run and exited within one relist, so its first event can be its death; by then the kubelet may have
    // removed the previous instance (it keeps one dead instance), whose exit is then the one on record; or the
    // previous instance came and went unseen, and only the restart count tells it existed.
    if (c && !this.instances.has(c.id)) {
      this.instances.add(c.id);
      const prevAt = previousExitAt(status.containerStatuses, c, this.backoff.lastExitAt(uid, c.name));
      if (prevAt !== undefined) this.backoff.restarted(ref, c.name, prevAt, c.startedAt || c.createdAt);
      this.open.delete(`${uid}_${c.name}`);
    }
    if (c && type === 'ContainerDied' && c.state === 'exited')
      this.backoff.exited(ref, c.name, c.finishedAt, c.exitCode, c.restartCount);
    if (type === 'ContainerRemoved') this.instances.delete(id);
    this.update(who, ref, status);
  }

  private update(who: ObservedIdentity, ref: PodRef, status: PodStatusRT): void {
    const spec = this.view.apiPod(who.uid)?.spec;
    const open = (name: string) => this.open.get(`${who.uid}_${name}`);
    const pod = observedPod(who, status, open, this.clock.now(), spec);
    const statusJson = JSON.stringify(pod.status);
    const had = this.view.pods.get(who.uid);
    this.view.pods.set(who.uid, { who, ref, status, pod, statusJson });
    if (had?.statusJson === statusJson || !pod.status) return;
    const derived = statusDerivations(pod.status, spec);
    this.trace.record({ type: 'status.update', ...ref, status: pod.status, derived });
  }

  /** Back-off windows go to the trace and to the pod's shown state (CrashLoopBackOff while open). */
  private recordBackoff(p: Parameters<TraceRecorder['record']>[0]): ReturnType<TraceRecorder['record']> {
    const ev = this.trace.record(p);
    if (p.type !== 'backoff') return ev;
    this.open.set(`${p.podUID}_${p.container}`, { delayS: p.delayS, until: p.until });
    const o = this.view.pods.get(p.podUID);
    if (o) this.update(o.who, o.ref, o.status);
    return ev;
  }

  // ---- the API's pods (observed-pods.ts) --------------------------------------------------------------

  attachApi(api: ApiPods): void {
    this.view.attachApi(api);
  }

  get apiWatched(): boolean {
    return this.view.apiWatched;
  }

  onRuntime(uid: string): boolean {
    return this.view.onRuntime(uid);
  }

  // ---- the log join (log-events.ts) ----------------------------------------------------------------

  podRef(podUID: string | undefined, pod: string | undefined): PodRef | undefined {
    return this.view.podRef(podUID, pod);
  }

  /** One parsed line of the observed kubelet's log (a follower calls this). */
  joinLog(ev: LogEventPayload): JoinResult {
    return joinLogEvent(this, ev);
  }

  // ---- Engine ----------------------------------------------------------------------------------------

  addPod(): void {
    throw new StatusError(status(403, 'Forbidden', OBSERVE_REFUSAL));
  }

  updatePod(): void {
    throw new StatusError(status(403, 'Forbidden', OBSERVE_REFUSAL));
  }

  deletePod(): void {
    throw new StatusError(status(403, 'Forbidden', OBSERVE_REFUSAL));
  }

  getPods(): AdmittedPod[] {
    return this.view.getPods();
  }

  getPod(namespace: string, name: string): AdmittedPod | undefined {
    return this.view.getPod(namespace, name);
  }

  getPodByUID(uid: string): AdmittedPod | undefined {
    return this.view.shown(uid);
  }

  getEvents(): Event[] {
    return [];
  }

  async listRuntimePods(): Promise<RuntimePod[]> {
    return [...this.listed.values()];
  }

  nodeInfo(): NodeInfo {
    return observedNodeInfo(this.deps, this, this.versionInfo, this.runtimeError);
  }
}
