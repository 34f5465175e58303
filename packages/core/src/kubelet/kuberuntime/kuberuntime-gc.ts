/**
 * Container removal done outside the periodic GC: pruning init containers before a start, purging them when
 * the sandbox is recreated (kuberuntime_container.go), and the pod container deletor's cleanup after a
 * ContainerDied event (pod_container_deletor.go: keep the newest exited instance per name). Failures to
 * remove are ignored, as in the kubelet: the next pass tries again.
 */
import type { Pod } from '../../api/v1.ts';
import type { PodStatusRT } from '../container/runtime.ts';
import { type CallContext, grpcMessage } from './instrumented-services.ts';
import { KubernetesContainerNameLabel, KubernetesPodUIDLabel } from './labels.ts';
import type { RuntimeContext } from './runtime-context.ts';
import { cmpNsDesc } from './util.ts';

/**
 * removeContainer (kuberuntime_container.go): the container's status is read first (the kubelet reads it to
 * remove the container's logs) and only then RemoveContainer is sent. A container already removed therefore
 * fails at ContainerStatus with the runtime's NotFound ("failed to get container status ..."), and
 * RemoveContainer is not sent; containerd itself answers a RemoveContainer of an unknown container with
 * success. Rejects with that error; every caller logs it and goes on, as the kubelet's do.
 */
export async function removeContainer(ctx: RuntimeContext, id: string, ref: CallContext): Promise<void> {
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
