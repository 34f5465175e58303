import { describe, expect, it } from 'vitest';
import { OWNERSHIP_LABEL } from '../configuration.ts';
import { defaultGCPolicy, type GCPolicy } from '../container/container-gc.ts';
import {
  type GCContainer,
  type GCSandbox,
  type PodStateProvider,
  parsePodUIDFromLogsDirectory,
  planEvictContainers,
  planEvictPodLogsDirectories,
  planEvictSandboxes,
} from './kuberuntime-gc-plan.ts';

const SEC = 1_000_000_000n;
const ns = (s: number) => String(BigInt(s) * SEC);
const NOW = 1_000_000; // ms: 1000 s after the epoch

const ours = (uid: string, extra: Record<string, string> = {}): Record<string, string> => ({
  'io.kubernetes.pod.uid': uid,
  'io.kubernetes.pod.name': `pod-${uid}`,
  'io.kubernetes.pod.namespace': 'default',
  [OWNERSHIP_LABEL]: 'true',
  ...extra,
});
const foreign = (uid: string): Record<string, string> => {
  const { [OWNERSHIP_LABEL]: _, ...rest } = ours(uid);
  return rest;
};

function sandbox(id: string, uid: string, createdS: number, ready = false, labels = ours(uid)): GCSandbox {
  return {
    id,
    metadata: { name: `pod-${uid}`, uid, namespace: 'default', attempt: 0 },
    state: ready ? 'SANDBOX_READY' : 'SANDBOX_NOTREADY',
    created_at: ns(createdS),
    labels,
  };
}

function container(
  id: string,
  uid: string,
  name: string,
  createdS: number,
  state: GCContainer['state'] = 'CONTAINER_EXITED',
  opts: { sandbox?: string; labels?: Record<string, string> } = {},
): GCContainer {
  return {
    id,
    pod_sandbox_id: opts.sandbox ?? `sb-${uid}`,
    metadata: { name, attempt: 0 },
    state,
    created_at: ns(createdS),
    labels: opts.labels ?? ours(uid, { 'io.kubernetes.container.name': name }),
    annotations: {},
  };
}

/** The pod workers' answers: `gone` UIDs are deleted and terminated (or unknown to synced workers),
 *  `terminated` ones terminated but still in the API. */
function podState(gone: string[], terminated: string[] = []): PodStateProvider {
  return {
    shouldPodContentBeRemoved: (uid) => gone.includes(uid),
    shouldPodRuntimeBeRemoved: (uid) => gone.includes(uid) || terminated.includes(uid),
  };
}

const evictContainers = (
  containers: GCContainer[],
  state: PodStateProvider,
  policy: GCPolicy = defaultGCPolicy,
  allSourcesReady = true,
) =>
  planEvictContainers({
    containers,
    now: NOW,
    policy,
    allSourcesReady,
    evictNonDeletedPods: false,
    podState: state,
    ownershipLabel: OWNERSHIP_LABEL,
  }).map((c) => c.id);

const evictSandboxes = (sandboxes: GCSandbox[], containers: GCContainer[], state: PodStateProvider) =>
  planEvictSandboxes({
    sandboxes,
    containers,
    evictNonDeletedPods: false,
    podState: state,
    ownershipLabel: OWNERSHIP_LABEL,
  }).map((s) => s.id);

describe('planEvictSandboxes (evictSandboxes)', () => {
  it('keeps the newest sandbox of a pod that still exists, ready or not, and removes its older dead ones', () => {
    const sandboxes = [
      sandbox('old', 'live', 10),
      sandbox('older', 'live', 5),
      sandbox('newest', 'live', 20),
    ];
    expect(evictSandboxes(sandboxes, [], podState([]))).toEqual(['older', 'old']);
    // a single dead sandbox of a live pod stays (the pod may still need it)
    expect(evictSandboxes([sandbox('only', 'live', 10)], [], podState([]))).toEqual([]);
  });

  it('removes every dead sandbox of a deleted pod, the newest too', () => {
    const sandboxes = [sandbox('a', 'gone', 10), sandbox('b', 'gone', 20)];
    expect(evictSandboxes(sandboxes, [], podState(['gone']))).toEqual(['a', 'b']);
  });

  it('never removes a ready sandbox or one a container is in, whoever owns the container', () => {
    const sandboxes = [
      sandbox('ready', 'gone', 10, true),
      sandbox('in-use', 'gone', 20),
      sandbox('in-use-foreign', 'gone', 25),
      sandbox('dead', 'gone', 30),
    ];
    const containers = [
      container('c1', 'gone', 'app', 20, 'CONTAINER_EXITED', { sandbox: 'in-use' }),
      container('c2', 'x', 'app', 20, 'CONTAINER_EXITED', {
        sandbox: 'in-use-foreign',
        labels: foreign('x'),
      }),
    ];
    expect(evictSandboxes(sandboxes, containers, podState(['gone']))).toEqual(['dead']);
  });

  it('never removes a sandbox without our ownership label, even of a pod that is gone', () => {
    const sandboxes = [
      sandbox('theirs-1', 'other', 10, false, foreign('other')),
      sandbox('theirs-2', 'other', 20, false, foreign('other')),
      sandbox('mine', 'gone', 10),
    ];
    expect(evictSandboxes(sandboxes, [], podState(['gone', 'other']))).toEqual(['mine']);
    // an older dead sandbox of a live pod is removed only when it is ours
    expect(evictSandboxes(sandboxes.slice(0, 2), [], podState([]))).toEqual([]);
  });

  it('keeps the newest sandbox of a terminated pod still in the API (evictNonDeletedPods is off)', () => {
    const sandboxes = [sandbox('a', 'done', 10), sandbox('b', 'done', 20)];
    expect(evictSandboxes(sandboxes, [], podState([], ['done']))).toEqual(['a']);
    const all = planEvictSandboxes({
      sandboxes,
      containers: [],
      evictNonDeletedPods: true,
      podState: podState([], ['done']),
      ownershipLabel: OWNERSHIP_LABEL,
    });
    expect(all.map((s) => s.id)).toEqual(['a', 'b']);
  });
});

describe('planEvictContainers (evictContainers)', () => {
  it('keeps the newest dead instance per container of a live pod (MaxPerPodContainer 1), never a running one', () => {
    const containers = [
      container('app-1', 'live', 'app', 10),
      container('app-2', 'live', 'app', 20),
      container('app-3', 'live', 'app', 30),
      container('app-4', 'live', 'app', 40, 'CONTAINER_RUNNING'),
      container('side-1', 'live', 'side', 10),
    ];
    expect(evictContainers(containers, podState([]))).toEqual(['app-1', 'app-2']);
  });

  it('removes every dead container of a deleted pod once all sources are ready, and only then', () => {
    const containers = [container('a', 'gone', 'app', 10), container('b', 'gone', 'app', 20)];
    expect(evictContainers(containers, podState(['gone']))).toEqual(['a', 'b']);
    expect(evictContainers(containers, podState(['gone']), defaultGCPolicy, false)).toEqual(['a']);
  });

  it('never removes a container without our ownership label', () => {
    const theirs = (id: string, t: number) =>
      container(id, 'other', 'app', t, 'CONTAINER_EXITED', { labels: foreign('other') });
    expect(evictContainers([theirs('t1', 10), theirs('t2', 20)], podState(['other']))).toEqual([]);
  });

  it('keeps containers younger than MinAge', () => {
    const containers = [container('old', 'gone', 'app', 900), container('young', 'gone', 'app', 995)];
    expect(evictContainers(containers, podState(['gone']), { ...defaultGCPolicy, minAgeMs: 10_000 })).toEqual(
      ['old'],
    );
  });

  it('caps the node at MaxContainers: an equal share per container (at least one), then the oldest', () => {
    const containers = [
      container('a1', 'p', 'a', 10),
      container('a2', 'p', 'a', 20),
      container('a3', 'p', 'a', 30),
      container('b1', 'p', 'b', 15),
      container('c1', 'q', 'c', 5),
    ];
    const policy: GCPolicy = { minAgeMs: 0, maxPerPodContainer: -1, maxContainers: 2 };
    // share: max(1, 2/3) = 1 each → a1, a2 go; then 3 > 2 → the oldest of the rest (c1)
    expect(evictContainers(containers, podState([]), policy)).toEqual(['a1', 'a2', 'c1']);
  });

  it('marks a container in unknown state, to be stopped before it is removed', () => {
    const plan = planEvictContainers({
      containers: [container('u', 'gone', 'app', 10, 'CONTAINER_UNKNOWN')],
      now: NOW,
      policy: defaultGCPolicy,
      allSourcesReady: true,
      evictNonDeletedPods: false,
      podState: podState(['gone']),
      ownershipLabel: OWNERSHIP_LABEL,
    });
    expect(plan).toEqual([{ id: 'u', podUID: 'gone', name: 'app', createdAt: ns(10), unknown: true }]);
  });
});

describe('planEvictPodLogsDirectories (evictPodLogsDirectories)', () => {
  const dirs = ['default_web_gone', 'default_db_live', 'kube-system_dns_theirs'];

  it('removes the log directories of our pods that are gone, once all sources are ready', () => {
    const input = { dirs, podState: podState(['gone', 'theirs']), ownPodUIDs: new Set(['gone', 'live']) };
    expect(planEvictPodLogsDirectories({ ...input, allSourcesReady: true })).toEqual(['default_web_gone']);
    expect(planEvictPodLogsDirectories({ ...input, allSourcesReady: false })).toEqual([]);
  });

  it('reads the UID after the last underscore', () => {
    expect(parsePodUIDFromLogsDirectory('ns_name_with_underscores_1234-abcd')).toBe('1234-abcd');
  });
});
