/**
 * Container and sandbox removal (kuberuntime_gc.go, and the removal parts of kuberuntime_container.go and
 * pod_container_deletor.go).
 *
 * Outside the periodic GC: pruning init containers before a start, purging them when the sandbox is
 * recreated, and the pod container deletor's cleanup after a ContainerDied event (keep the newest exited
 * instance per name). Failures to remove are ignored, as in the kubelet: the next pass tries again.
 *
 * The periodic GC (ContainerGC, run every minute by container/container-gc.ts): ContainerGC lists, asks the
 * pure plans of kuberuntime-gc-plan.ts what to remove, and sends the CRI calls. Only what carries our
 * ownership label is ever removed (see there).
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Pod } from '../../api/v1.ts';
import type { PassiveClock } from '../../clock/clock.ts';
import { type CriRuntime, isNotFound } from '../../cri/types.ts';
import type { GCPolicy, GCResult, RuntimeGarbageCollector } from '../container/container-gc.ts';
import type { PodStatusRT } from '../container/runtime.ts';
import { type CallContext, grpcMessage, type TracedCall } from './instrumented-services.ts';
import {
  type GCContainer,
  type GCSandbox,
  type PodStateProvider,
  parsePodUIDFromLogsDirectory,
  planEvictContainers,
  planEvictPodLogsDirectories,
  planEvictSandboxes,
} from './kuberuntime-gc-plan.ts';
import {
  DefaultTerminationGracePeriodSeconds,
  getContainerInfoFromAnnotations,
  getContainerInfoFromLabels,
  isManaged,
  KubernetesContainerNameLabel,
  KubernetesPodUIDLabel,
} from './labels.ts';
import type { RuntimeContext } from './runtime-context.ts';
import { cmpNsDesc } from './util.ts';

/**
 * removeContainer (kuberuntime_container.go): the container's status is read first (the kubelet reads it to
 * remove the container's logs) and only then RemoveContainer is sent. A container already removed therefore
 * fails at ContainerStatus with the runtime's NotFound ("failed to get container status ..."), and
 * RemoveContainer is not sent; containerd itself answers a RemoveContainer of an unknown container with
 * success. Rejects with that error; every caller logs it and goes on, as the kubelet's do.
 */
export async function removeContainer(
  ctx: Pick<RuntimeContext, 'call' | 'cri'>,
  id: string,
  ref: CallContext,
): Promise<void> {
  try {
    await ctx.call('ContainerStatus', ref, () => ctx.cri.containerStatus(id));
  } catch (err) {
    throw new Error(`failed to get container status "${id}": ${grpcMessage(err)}`, { cause: err });
  }
  await ctx.call('RemoveContainer', ref, () => ctx.cri.removeContainer(id));
}

/** removeContainer for the pruning below: false when it failed (the next pass tries again). */
async function tryRemove(ctx: RuntimeContext, pod: Pod, id: string, name: string): Promise<boolean> {
  return removeContainer(ctx, id, { ...ctx.podRef(pod), container: name }).then(
    () => true,
    () => false,
  );
}

/** Keep only the newest exited/unknown instance of each init container. */
export async function pruneInitContainersBeforeStart(
  ctx: RuntimeContext,
  pod: Pod,
  status: PodStatusRT,
): Promise<void> {
  for (const init of pod.spec.initContainers ?? []) {
    let count = 0;
    for (const s of status.containerStatuses) {
      if (s.name !== init.name || (s.state !== 'exited' && s.state !== 'unknown')) continue;
      if (++count === 1) continue;
      await tryRemove(ctx, pod, s.id, s.name);
    }
  }
}

/** Remove every instance of every init container (the sandbox is being recreated). */
export async function purgeInitContainers(ctx: RuntimeContext, pod: Pod, status: PodStatusRT): Promise<void> {
  const names = new Set((pod.spec.initContainers ?? []).map((c) => c.name));
  for (const s of status.containerStatuses) {
    if (names.has(s.name)) await tryRemove(ctx, pod, s.id, s.name);
  }
}

/**
 * After ContainerDied: remove exited instances of `containerName` in the pod beyond the newest `keep`
 * (default 1 = max(MaxPerPodContainer, minDeadContainerInPod)). Returns the IDs removed.
 */
export async function removeOldExitedContainers(
  ctx: RuntimeContext,
  podUID: string,
  containerName: string,
  keep = 1,
): Promise<string[]> {
  const list = await ctx.call('ListContainers', { podUID, container: containerName }, () =>
    ctx.cri.listContainers({ label_selector: { [KubernetesPodUIDLabel]: podUID } }),
  );
  const exited = list
    .filter((c) => c.labels[KubernetesContainerNameLabel] === containerName && c.state === 'CONTAINER_EXITED')
    .sort((a, b) => cmpNsDesc(a.created_at, b.created_at));
  const removed: string[] = [];
  for (const c of exited.slice(keep)) {
    try {
      await removeContainer(ctx, c.id, { podUID, container: containerName });
      removed.push(c.id);
    } catch {
      // retried on the next ContainerDied or by GC
    }
  }
  return removed;
}

// ---- the periodic GC ---------------------------------------------------------------------------------------

/** The pod logs directory as GC touches it (the kubelet's osInterface); tests pass a fake. */
export interface PodLogsFS {
  /** entry names; rejects when the directory cannot be read */
  readDir(dir: string): Promise<string[]>;
  /** os.RemoveAll */
  removeAll(path: string): Promise<void>;
}

/**
 * Synchronous on purpose: a run reads one directory and removes a few, once a minute, and finishes in one go,
 * so a FakeClock test sees it end at the time it started (async file I/O would end at a real-time moment the
 * fake clock knows nothing of). The simulated node writes its logs the same way.
 */
const nodeFS: PodLogsFS = {
  readDir: async (dir) => readdirSync(dir),
  removeAll: async (path) => rmSync(path, { recursive: true, force: true }),
};

export interface ContainerGCDeps {
  cri: CriRuntime;
  /** traces each CRI call as `runtime.call` */
  call: TracedCall;
  clock: PassiveClock;
  podStateProvider: PodStateProvider;
  ownershipLabel: string;
  podLogsDirectory: string;
  minimumGracePeriodSeconds: number;
  fs?: PodLogsFS;
}

/**
 * containerGC (kuberuntime_gc.go): GarbageCollect's three steps, each on its own listing, each failing on its
 * own (the errors are aggregated). Removals that fail are left for the next run, as in the kubelet. Called by
 * RealContainerGC, one run at a time; a run stops between CRI calls once `signal` fires.
 */
export class ContainerGC implements RuntimeGarbageCollector {
  /** UIDs of pods seen with our label in a listing, until their log directory is gone */
  private readonly ownPodUIDs = new Set<string>();
  private readonly fs: PodLogsFS;

  constructor(private readonly deps: ContainerGCDeps) {
    this.fs = deps.fs ?? nodeFS;
  }

  async garbageCollect(
    policy: GCPolicy,
    allSourcesReady: boolean,
    evictNonDeletedPods: boolean,
    signal?: AbortSignal,
  ): Promise<GCResult> {
    const r: GCResult = { containers: 0, sandboxes: 0, podLogDirs: 0, errors: [] };
    const step = async (fn: () => Promise<void>) => {
      if (signal?.aborted) return;
      try {
        await fn();
      } catch (e) {
        r.errors.push(e instanceof Error ? e.message : String(e));
      }
    };
    await step(async () => {
      r.containers = await this.evictContainers(policy, allSourcesReady, evictNonDeletedPods, signal);
    });
    await step(async () => {
      r.sandboxes = await this.evictSandboxes(evictNonDeletedPods, signal);
    });
    await step(async () => {
      r.podLogDirs = await this.evictPodLogsDirectories(allSourcesReady);
    });
    return r;
  }

  /** getKubeletContainers(allContainers=true) */
  private async listContainers(): Promise<GCContainer[]> {
    const { cri, call } = this.deps;
    const list = await call('ListContainers', {}, () => cri.listContainers({}));
    for (const c of list)
      if (this.owns(c.labels)) this.ownPodUIDs.add(getContainerInfoFromLabels(c.labels).podUID);
    return list;
  }

  /** getKubeletSandboxes(all=true) */
  private async listSandboxes(): Promise<GCSandbox[]> {
    const { cri, call } = this.deps;
    const list = await call('ListPodSandbox', {}, () => cri.listPodSandbox({}));
    for (const s of list) if (s.metadata && this.owns(s.labels)) this.ownPodUIDs.add(s.metadata.uid);
    return list;
  }

  private owns(labels: Record<string, string>): boolean {
    return isManaged(labels, this.deps.ownershipLabel);
  }

  private async evictContainers(
    policy: GCPolicy,
    allSourcesReady: boolean,
    evictNonDeletedPods: boolean,
    signal?: AbortSignal,
  ): Promise<number> {
    const { deps } = this;
    const containers = await this.listContainers();
    const plan = planEvictContainers({
      containers,
      now: deps.clock.now(),
      policy,
      allSourcesReady,
      evictNonDeletedPods,
      podState: deps.podStateProvider,
      ownershipLabel: deps.ownershipLabel,
    });
    const byID = new Map(containers.map((c) => [c.id, c]));
    let removed = 0;
    for (const c of plan) {
      if (signal?.aborted) break;
      const listed = byID.get(c.id);
      const l = getContainerInfoFromLabels(listed?.labels ?? {});
      const ref: CallContext = { podUID: c.podUID, container: c.name };
      if (l.podName) ref.pod = `${l.podNamespace}/${l.podName}`;
      // "Container is in unknown state, try killing it before removal"; a failed stop skips it
      if (c.unknown && !(await this.stopUnknown(c.id, listed?.annotations ?? {}, ref))) continue;
      await removeContainer(deps, c.id, ref).then(
        () => removed++,
        () => undefined, // "Failed to remove container": the next run tries again
      );
    }
    return removed;
  }

  /**
   * killContainer for a container we no longer know (pod nil): the pod's grace period from the container's
   * annotations, at least the minimum. No preStop hook and no Killing event here (the kubelet rebuilds the
   * pod from the labels for those); a container in unknown state is not one to run a hook in.
   */
  private async stopUnknown(
    id: string,
    annotations: Record<string, string>,
    ref: CallContext,
  ): Promise<boolean> {
    const { cri, call, minimumGracePeriodSeconds } = this.deps;
    const a = getContainerInfoFromAnnotations(annotations);
    const grace = Math.max(
      a.podTerminationGracePeriod ?? DefaultTerminationGracePeriodSeconds,
      minimumGracePeriodSeconds,
    );
    try {
      await call('StopContainer', { ...ref, gracePeriodS: grace }, () => cri.stopContainer(id, grace));
      return true;
    } catch (err) {
      return isNotFound(err);
    }
  }

  private async evictSandboxes(evictNonDeletedPods: boolean, signal?: AbortSignal): Promise<number> {
    const { deps } = this;
    const containers = await this.listContainers();
    const sandboxes = await this.listSandboxes();
    const plan = planEvictSandboxes({
      sandboxes,
      containers,
      evictNonDeletedPods,
      podState: deps.podStateProvider,
      ownershipLabel: deps.ownershipLabel,
    });
    const byID = new Map(sandboxes.map((s) => [s.id, s]));
    let removed = 0;
    for (const s of plan) {
      if (signal?.aborted) break;
      const m = byID.get(s.id)?.metadata;
      const ref: CallContext = { podUID: s.podUID, ...(m ? { pod: `${m.namespace}/${m.name}` } : {}) };
      if (await this.removeSandbox(s.id, ref)) removed++;
    }
    return removed;
  }

  /**
   * removeSandbox: StopPodSandbox first (normally already done by killPod; this guards the rare case it was
   * not), then RemovePodSandbox. A failed stop leaves the sandbox for the next run.
   */
  private async removeSandbox(id: string, ref: CallContext): Promise<boolean> {
    const { cri, call } = this.deps;
    try {
      await call('StopPodSandbox', ref, () => cri.stopPodSandbox(id));
      await call('RemovePodSandbox', ref, () => cri.removePodSandbox(id));
      return true;
    } catch {
      return false; // "Failed to stop sandbox before removing" / "Failed to remove sandbox"
    }
  }

  /**
   * evictPodLogsDirectories. A pod logs directory that does not exist holds nothing to remove: the engine
   * never makes it (the runtime does, with the first container log), so that is no error here.
   */
  private async evictPodLogsDirectories(allSourcesReady: boolean): Promise<number> {
    if (!allSourcesReady) return 0;
    const root = this.deps.podLogsDirectory;
    let dirs: string[];
    try {
      dirs = await this.fs.readDir(root);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') dirs = [];
      else
        throw new Error(
          `failed to read podLogsDirectory "${root}": ${e instanceof Error ? e.message : String(e)}`,
        );
    }
    const plan = planEvictPodLogsDirectories({
      dirs,
      allSourcesReady,
      podState: this.deps.podStateProvider,
      ownPodUIDs: this.ownPodUIDs,
    });
    let removed = 0;
    for (const name of plan) {
      try {
        await this.fs.removeAll(join(root, name));
        removed++;
      } catch {
        // "Failed to remove pod logs directory": the next run tries again
      }
    }
    // forget pods with no directory left (one still in the runtime comes back with the next listing)
    const left = new Set(dirs.filter((d) => !plan.includes(d)).map(parsePodUIDFromLogsDirectory));
    for (const uid of this.ownPodUIDs) if (!left.has(uid)) this.ownPodUIDs.delete(uid);
    return removed;
  }
}
