import type { ContainerStatusRT, PodStatusRT } from './container/runtime.ts';
import { Channel } from './util/channel.ts';

/** containerDeletorBufferLimit: removal requests waiting at most; more are dropped (GC catches them). */
const CONTAINER_DELETOR_BUFFER_LIMIT = 50;

/** minDeadContainerInPod: exited instances of one container name kept by the deletor at least. */
const MIN_DEAD_CONTAINER_IN_POD = 1;

interface RemovalRequest {
  id: string;
  podUID: string;
  pod: string;
  container: string;
}

/** What the deletor needs from the runtime manager (kubecontainer Runtime.DeleteContainer). */
export interface ContainerDeleter {
  deleteContainer(
    containerID: string,
    ref: { podUID: string; pod: string; container: string },
  ): Promise<void>;
}

/**
 * getContainersToDeleteInPod: the exited instances to remove after `filterContainerID` died — those with its
 * name beyond the newest `containersToKeep`; with an empty filter, exited instances of every name. A filter
 * that names no container of the pod (e.g. a sandbox) selects nothing.
 */
export function getContainersToDeleteInPod(
  filterContainerID: string,
  podStatus: PodStatusRT,
  containersToKeep: number,
): ContainerStatusRT[] {
  const matched = filterContainerID
    ? podStatus.containerStatuses.find((c) => c.id === filterContainerID)
    : undefined;
  if (filterContainerID && !matched) return [];
  const candidates = podStatus.containerStatuses.filter(
    (c) => c.state === 'exited' && (!matched || c.name === matched.name),
  );
  if (candidates.length <= containersToKeep) return [];
  return [...candidates].sort((a, b) => b.createdAt - a.createdAt).slice(containersToKeep);
}

/**
 * podContainerDeletor (pod_container_deletor.go): removes dead containers right after the PLEG reports a
 * ContainerDied, so a crash-looping pod keeps only its running instance and the newest exited one per name.
 *
 * deleteContainersInPod is called from the sync loop and never blocks: each removal is queued (at most 50
 * waiting; when full, the request is dropped as the kubelet drops it) and one background worker sends the
 * CRI RemoveContainer calls one at a time. Failures are ignored; container GC removes leftovers later.
 */
export class PodContainerDeletor {
  private readonly worker = new Channel<RemovalRequest>(CONTAINER_DELETOR_BUFFER_LIMIT);
  /** requests dropped because the queue was full */
  dropped = 0;
  /** the removal being sent, if any */
  private current: Promise<void> = Promise.resolve();
  private paused = false;

  constructor(
    private readonly runtime: ContainerDeleter,
    private readonly containersToKeep = MIN_DEAD_CONTAINER_IN_POD,
  ) {
    void this.run();
  }

  /** Queues the removals; removeAll (evicted, or deleted and terminated) keeps no exited container. */
  deleteContainersInPod(filterContainerID: string, podStatus: PodStatusRT, removeAll: boolean): void {
    const keep = removeAll ? 0 : this.containersToKeep;
    const filter = removeAll ? '' : filterContainerID;
    const pod = `${podStatus.namespace}/${podStatus.name}`;
    for (const c of getContainersToDeleteInPod(filter, podStatus, keep)) {
      const req = { id: c.id, podUID: podStatus.id, pod, container: c.name };
      if (!this.worker.trySend(req)) this.dropped++; // "Failed to issue the request to remove container"
    }
  }

  /** Requests waiting (tests). */
  get pending(): number {
    return this.worker.length;
  }

  stop(): void {
    this.worker.close();
  }

  /**
   * Sends no more removals until resume(): the queued requests are dropped (container GC removes what they
   * named) and the promise resolves once the removal in flight, if any, has returned. The Kubelet calls it
   * when it stops, so nothing of a stopped engine still acts on the runtime.
   */
  async pause(): Promise<void> {
    this.paused = true;
    while (this.worker.tryReceive()) {
      // dropped
    }
    await this.current;
  }

  resume(): void {
    this.paused = false;
  }

  private async run(): Promise<void> {
    for (;;) {
      const req = await this.worker.receive();
      if (req === undefined) return;
      if (this.paused) continue;
      // "DeleteContainer returned error" is ignored; GC retries
      this.current = this.runtime.deleteContainer(req.id, req).catch(() => {});
      await this.current;
    }
  }
}
