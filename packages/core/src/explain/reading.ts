/**
 * What computePodActions (../kubelet/kuberuntime/compute-pod-actions.ts, the engine's own planner) decides
 * from a pod's state as the pod-state model reports it at a step. A log carries no spec and no runtime
 * status, so both are made from the facts known at the step, and every stand-in is said in `assumed`:
 *
 *   spec       the containers the trace names (one stand-in when it names none yet), image unknown (so
 *              no "definition changed"), restartPolicy Always unless a stated phase says otherwise
 *   sandbox    one ready sandbox once a container of the pod has run (a log names sandboxes only by ID)
 *   statuses   running / exited (with the exit code when the trace has it) from the model's state
 * Browser-safe: no Node imports.
 */
import type { Container, Pod } from '../api/v1.ts';
import type { ContainerStatusRT, PodStatusRT } from '../kubelet/container/runtime.ts';
import { computePodActions } from '../kubelet/kuberuntime/compute-pod-actions.ts';
import { hashContainerHex } from '../kubelet/kuberuntime/hash.ts';
import type { ContainerSnapshot, PodSnapshot } from '../pod-state/types.ts';

export interface Decision {
  reasons: string[];
  containersToStart: string[];
  killPod: boolean;
  createSandbox: boolean;
  assumed: string[];
}

/** The hash of a container known by name only (image unknown), worked out once per name. */
const HASHES = new Map<string, string>();
function hashOf(name: string): string {
  let h = HASHES.get(name);
  if (h === undefined) {
    if (HASHES.size > 4096) HASHES.clear();
    h = hashContainerHex({ name, image: '' });
    HASHES.set(name, h);
  }
  return h;
}

/** The stand-in for the containers of a pod the source names none of (an ADD before any runtime step). */
const UNNAMED = "the pod's containers";

const bare = (id: string | undefined) => (id ? id.replace(/^[a-z][a-z0-9+.-]*:\/\//, '') : '');

function runtimeStatus(c: ContainerSnapshot, name: string, assumed: Set<string>): ContainerStatusRT | null {
  if (c.state.basis === 'unknown') return null;
  const s = c.state.value;
  const last = c.lastState.basis === 'unknown' ? null : c.lastState.value;
  const term = s.kind === 'terminated' ? s : s.kind === 'waiting' ? last : null;
  const base = {
    name,
    createdAt: 0,
    startedAt: 0,
    finishedAt: 0,
    exitCode: 0,
    image: '',
    imageRef: '',
    hash: hashOf(name),
    restartCount: 0,
    reason: '',
    message: '',
  };
  if (s.kind === 'running')
    return { ...base, id: bare(c.containerID), state: 'running', startedAt: s.startedAt ?? 0 };
  if (!term) return null;
  if (term.exitCode === undefined) assumed.add(`${name}: the exit code is not in the source (assumed 1)`);
  return {
    ...base,
    id: bare(term.containerID ?? c.containerID),
    state: 'exited',
    exitCode: term.exitCode ?? 1,
    finishedAt: term.finishedAt ?? 0,
    reason: term.reason ?? '',
  };
}

/**
 * The decision at `now` from the pod's snapshot; `spec` when the source has it (the engine's own pods).
 * Containers the trace knows only by ID are left out of the spec, and said so.
 */
export function decide(snap: PodSnapshot, now: number, spec?: Pod): Decision {
  const assumed = new Set<string>();
  const [namespace = 'default', name = snap.pod] = snap.pod.split('/');
  const statuses: ContainerStatusRT[] = [];
  const containers: Container[] = [];
  let ran = false;
  for (const c of snap.containers) {
    if (c.init) continue;
    let cname: string;
    if (c.name.basis === 'unknown') {
      cname = c.key.slice(0, 12);
      assumed.add(
        `${cname}: the source gives this container only by ID (it may be the sandbox); named by it`,
      );
    } else cname = c.name.value;
    containers.push({ name: cname, image: '' });
    const rt = runtimeStatus(c, cname, assumed);
    if (rt) {
      statuses.push(rt);
      ran = true;
    }
  }
  if (!spec && containers.length === 0) {
    // a pod has at least one container: with none named yet, one stands in for them all
    containers.push({ name: UNNAMED, image: '' });
    assumed.add(`the source names none of the pod's containers yet: "${UNNAMED}" stands in for them`);
  }
  let pod = spec;
  if (!pod) {
    const phase = snap.phase.basis === 'stated' ? snap.phase.value : undefined;
    pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace,
        uid: snap.uid,
        ...(snap.deletedAt !== undefined
          ? { deletionTimestamp: new Date(snap.deletedAt).toISOString() }
          : {}),
      },
      spec: { containers, restartPolicy: 'Always' },
    };
    assumed.add(
      `no pod spec in the source: containers from the names it gives, restartPolicy Always${phase ? ` (phase ${phase} stated)` : ''}`,
    );
  }
  const status: PodStatusRT = {
    id: snap.uid,
    name,
    namespace,
    ips: ran ? ['0.0.0.0'] : [],
    containerStatuses: statuses,
    sandboxStatuses: ran
      ? [{ id: 'sandbox', state: 'ready', attempt: 0, createdAt: 0, ip: '0.0.0.0', hostNetwork: false }]
      : [],
    timestamp: now,
  };
  if (ran) assumed.add('the sandbox is not in the source: assumed ready, as a container of the pod ran');
  const a = computePodActions(pod, status, { now });
  return {
    reasons: a.reasons,
    containersToStart: a.containersToStart.map((i) => pod.spec.containers[i]?.name ?? `#${i}`),
    killPod: a.killPod,
    createSandbox: a.createSandbox,
    assumed: [...assumed],
  };
}
