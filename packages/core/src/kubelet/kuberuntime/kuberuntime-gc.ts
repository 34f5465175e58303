/**
 * Container removal done outside the periodic GC: pruning init containers before a start, purging them when
 * the sandbox is recreated (kuberuntime_container.go), and the pod container deletor's cleanup after a
 * ContainerDied event (pod_container_deletor.go: keep the newest exited instance per name). Failures to
 * remove are ignored, as in the kubelet: the next pass tries again.
 */
import type { Pod } from '../../api/v1.ts';
import type { PodStatusRT } from '../container/runtime.ts';
import { KubernetesContainerNameLabel, KubernetesPodUIDLabel } from './labels.ts';
import type { RuntimeContext } from './runtime-context.ts';
import { cmpNsDesc } from './util.ts';

async function removeContainer(
  ctx: RuntimeContext,
  pod: Pod | undefined,
  id: string,
  name: string,
): Promise<boolean> {
  try {
    await ctx.call('RemoveContainer', { ...(pod ? ctx.podRef(pod) : {}), container: name }, () =>
      ctx.cri.removeContainer(id),
    );
    return true;
  } catch {
    return false;
  }
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
      await removeContainer(ctx, pod, s.id, s.name);
    }
  }
}

/** Remove every instance of every init container (the sandbox is being recreated). */
export async function purgeInitContainers(ctx: RuntimeContext, pod: Pod, status: PodStatusRT): Promise<void> {
  const names = new Set((pod.spec.initContainers ?? []).map((c) => c.name));
  for (const s of status.containerStatuses) {
    if (names.has(s.name)) await removeContainer(ctx, pod, s.id, s.name);
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
      await ctx.call('RemoveContainer', { podUID, container: containerName }, () =>
        ctx.cri.removeContainer(c.id),
      );
      removed.push(c.id);
    } catch {
      // retried on the next ContainerDied or by GC
    }
  }
  return removed;
}
