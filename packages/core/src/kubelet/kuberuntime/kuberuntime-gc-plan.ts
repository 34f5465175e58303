/**
 * What a container GC run removes (kuberuntime_gc.go: evictableContainers + evictContainers, evictSandboxes,
 * evictPodLogsDirectories), as pure functions of the runtime's lists and the pod workers' answers. ContainerGC
 * (kuberuntime-gc.ts) lists, asks these and sends the CRI calls, in the kubelet's order: containers first, then
 * sandboxes from a fresh listing (so a sandbox whose last dead containers were just removed goes in the same
 * run), then pod log directories.
 *
 * Ownership: the kubelet takes everything in its containerd namespace for its own. We share it, so only
 * sandboxes and containers with our ownership label are candidates, and a log directory only when its pod
 * was seen with our label. A sandbox any container points at, ours or not, is in use.
 */
import type { Container, PodSandbox } from '../../cri/types.ts';
import type { GCPolicy } from '../container/container-gc.ts';
import { getContainerInfoFromLabels, isManaged } from './labels.ts';
import { cmpNsDesc } from './util.ts';

/** A ListPodSandbox item, the fields GC reads. */
export type GCSandbox = Pick<PodSandbox, 'id' | 'metadata' | 'state' | 'created_at' | 'labels'>;
/** A ListContainers item, the fields GC reads. */
export type GCContainer = Pick<
  Container,
  'id' | 'pod_sandbox_id' | 'metadata' | 'state' | 'created_at' | 'labels' | 'annotations'
>;

/** The pod workers' answers GC needs (podStateProvider in kuberuntime_manager.go). */
export interface PodStateProvider {
  /** evicted, or deleted and terminated; an unknown UID once the workers have synced */
  shouldPodContentBeRemoved(uid: string): boolean;
  /** terminated; an unknown UID once the workers have synced */
  shouldPodRuntimeBeRemoved(uid: string): boolean;
}

/** containerGCInfo: a dead container of ours. `unknown` ones are stopped before they are removed. */
export interface ContainerGCInfo {
  id: string;
  podUID: string;
  name: string;
  createdAt: string;
  unknown: boolean;
}

/** sandboxGCInfo: a sandbox of ours; `active` when ready or any container is in it. */
export interface SandboxGCInfo {
  id: string;
  podUID: string;
  createdAt: string;
  active: boolean;
}

export interface EvictContainersInput {
  containers: readonly GCContainer[];
  /** ms since the epoch: MinAge counts back from it */
  now: number;
  policy: GCPolicy;
  allSourcesReady: boolean;
  evictNonDeletedPods: boolean;
  podState: PodStateProvider;
  ownershipLabel: string;
}

/** Newest first (byCreated). */
const newestFirst = (a: { createdAt: string }, b: { createdAt: string }) =>
  cmpNsDesc(a.createdAt, b.createdAt);

/**
 * evictContainers: which dead containers to remove, oldest of each group first. Evictable: ours, not running,
 * created at least MinAge ago; grouped per (pod UID, container name). With all sources ready every instance
 * of a pod whose content should be removed (deleted and terminated, evicted, or unknown to synced workers)
 * goes; then MaxPerPodContainer per group, then MaxContainers on the node (an equal share per group, at least
 * 1, then the oldest across groups). A removal that will fail counts as done, as the kubelet assumes.
 */
export function planEvictContainers(input: EvictContainersInput): ContainerGCInfo[] {
  const { policy, podState } = input;
  const newestGCTime = BigInt(input.now - policy.minAgeMs) * 1_000_000n;
  const units = new Map<string, ContainerGCInfo[]>();
  for (const c of input.containers) {
    if (!c.metadata || !isManaged(c.labels, input.ownershipLabel)) continue;
    if (c.state === 'CONTAINER_RUNNING') continue;
    if (newestGCTime < BigInt(c.created_at || '0')) continue;
    const info: ContainerGCInfo = {
      id: c.id,
      podUID: getContainerInfoFromLabels(c.labels).podUID,
      name: c.metadata.name,
      createdAt: c.created_at,
      unknown: c.state === 'CONTAINER_UNKNOWN',
    };
    const key = `${info.podUID}\u0000${info.name}`;
    const unit = units.get(key);
    if (unit) unit.push(info);
    else units.set(key, [info]);
  }

  const out: ContainerGCInfo[] = [];
  /** removeOldestN: the oldest toRemove go (oldest first); the rest is kept. */
  const removeOldestN = (list: ContainerGCInfo[], toRemove: number): ContainerGCInfo[] => {
    const sorted = [...list].sort(newestFirst);
    const keep = Math.max(0, sorted.length - toRemove);
    out.push(...sorted.slice(keep).reverse());
    return sorted.slice(0, keep);
  };
  const enforceMaxPerEvictUnit = (max: number) => {
    for (const [key, unit] of units) {
      if (unit.length > max) units.set(key, removeOldestN(unit, unit.length - max));
    }
  };

  if (input.allSourcesReady) {
    for (const [key, unit] of units) {
      const uid = unit[0]?.podUID ?? '';
      if (
        podState.shouldPodContentBeRemoved(uid) ||
        (input.evictNonDeletedPods && podState.shouldPodRuntimeBeRemoved(uid))
      ) {
        removeOldestN(unit, unit.length);
        units.delete(key);
      }
    }
  }
  if (policy.maxPerPodContainer >= 0) enforceMaxPerEvictUnit(policy.maxPerPodContainer);
  const count = () => [...units.values()].reduce((n, u) => n + u.length, 0);
  if (policy.maxContainers >= 0 && count() > policy.maxContainers) {
    enforceMaxPerEvictUnit(Math.max(1, Math.floor(policy.maxContainers / units.size)));
    const n = count();
    if (n > policy.maxContainers) removeOldestN([...units.values()].flat(), n - policy.maxContainers);
  }
  return out;
}

export interface EvictSandboxesInput {
  sandboxes: readonly GCSandbox[];
  /** every container the runtime lists, ours or not: a sandbox one points at is in use */
  containers: readonly Pick<GCContainer, 'pod_sandbox_id'>[];
  evictNonDeletedPods: boolean;
  podState: PodStateProvider;
  ownershipLabel: string;
}

/**
 * evictSandboxes: a sandbox of ours goes when it is not ready, no container is in it, and its pod's content
 * should be removed, or it is not the pod's newest sandbox (the newest is kept while the pod may still need
 * it, even when not ready). Oldest first. The GC policy does not apply to sandboxes.
 */
export function planEvictSandboxes(input: EvictSandboxesInput): SandboxGCInfo[] {
  const inUse = new Set(input.containers.map((c) => c.pod_sandbox_id));
  const byPod = new Map<string, SandboxGCInfo[]>();
  for (const s of input.sandboxes) {
    if (!s.metadata || !isManaged(s.labels, input.ownershipLabel)) continue;
    const info: SandboxGCInfo = {
      id: s.id,
      podUID: s.metadata.uid,
      createdAt: s.created_at,
      active: s.state === 'SANDBOX_READY' || inUse.has(s.id),
    };
    const list = byPod.get(info.podUID);
    if (list) list.push(info);
    else byPod.set(info.podUID, [info]);
  }
  const out: SandboxGCInfo[] = [];
  for (const [uid, list] of byPod) {
    const removeAll =
      input.podState.shouldPodContentBeRemoved(uid) ||
      (input.evictNonDeletedPods && input.podState.shouldPodRuntimeBeRemoved(uid));
    // removeOldestNSandboxes: of the oldest toRemove, the inactive ones
    const sorted = [...list].sort(newestFirst);
    const keep = removeAll ? 0 : 1;
    out.push(
      ...sorted
        .slice(keep)
        .reverse()
        .filter((s) => !s.active),
    );
  }
  return out;
}

/** parsePodUIDFromLogsDirectory: `<namespace>_<name>_<uid>` → uid. */
export function parsePodUIDFromLogsDirectory(name: string): string {
  return name.slice(name.lastIndexOf('_') + 1);
}

export interface EvictPodLogsDirectoriesInput {
  /** entry names in the pod logs directory */
  dirs: readonly string[];
  allSourcesReady: boolean;
  podState: PodStateProvider;
  /** UIDs of pods seen with our ownership label; no other directory is ever removed */
  ownPodUIDs: ReadonlySet<string>;
}

/** evictPodLogsDirectories: with all sources ready, the log directories of our pods whose content should go. */
export function planEvictPodLogsDirectories(input: EvictPodLogsDirectoriesInput): string[] {
  if (!input.allSourcesReady) return [];
  return input.dirs.filter((name) => {
    const uid = parsePodUIDFromLogsDirectory(name);
    return input.ownPodUIDs.has(uid) && input.podState.shouldPodContentBeRemoved(uid);
  });
}
