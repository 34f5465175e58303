/**
 * A v1 Pod built from what the runtime shows of one pod, for GET /api/v1/pods in observe mode. Nothing here
 * comes from an API server: name, namespace and uid are the sandbox's io.kubernetes.pod.* labels (grouped by
 * the runtime manager), containers and their states come from ContainerStatus (restart counts from the
 * io.kubernetes.container.restartCount annotation), the pod IP from PodSandboxStatus. The runtime does not
 * say which containers were init containers, whether a container is ready, or what the spec was: with the
 * API's spec (`spec`) those are read from it; without, the spec lists each container by name and image, the
 * init containers are inferred from the order they ran in, and the Initialized and Ready conditions say
 * what is inferred or unknown (pod-roles.ts). The phase is read off the regular containers' states.
 *
 * Every observed pod is annotated `syncscope.io/observed: "true"`; `syncscope.io/owner` says whose it is by
 * the ownership label: `syncscope` for pods a Syncscope in managed mode created, `kubelet` for the rest.
 * A pure function of its inputs; called by the observer on each PLEG event of the pod.
 */
import type { AdmittedPod } from '@syncscope/core';
import type { ContainerStatus, Pod, PodSpec, PodStatus } from '@syncscope/core/api';
import type { ContainerStatusRT, PodStatusRT } from '@syncscope/core/kubelet/container/runtime';
import { initRoles, podConditions, readinessOf } from './pod-roles.ts';

const OBSERVED_ANNOTATION = 'syncscope.io/observed';
const OWNER_ANNOTATION = 'syncscope.io/owner';

export interface ObservedIdentity {
  uid: string;
  name: string;
  namespace: string;
  /** ms since the epoch: the oldest sandbox's creation */
  createdAt: number;
  /** every sandbox and container carries Syncscope's ownership label */
  managed: boolean;
}

/** A container's open back-off, as the observer infers or the log confirms it. */
export interface OpenBackoff {
  delayS: number;
  until: number;
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function containerID(status: PodStatusRT, id: string): string {
  return `${status.runtimeName || 'containerd'}://${id}`;
}

function stateOf(
  c: ContainerStatusRT,
  status: PodStatusRT,
): Pick<ContainerStatus, 'state' | 'ready' | 'started'> {
  switch (c.state) {
    case 'running':
      return { state: { running: { startedAt: iso(c.startedAt) } }, ready: true, started: true };
    case 'exited':
      return {
        state: {
          terminated: {
            exitCode: c.exitCode,
            reason: c.reason || (c.exitCode === 0 ? 'Completed' : 'Error'),
            ...(c.message ? { message: c.message } : {}),
            ...(c.startedAt ? { startedAt: iso(c.startedAt) } : {}),
            finishedAt: iso(c.finishedAt),
            containerID: containerID(status, c.id),
          },
        },
        ready: false,
        started: false,
      };
    default:
      return { state: { waiting: { reason: 'ContainerCreating' } }, ready: false, started: false };
  }
}

export function observedPod(
  who: ObservedIdentity,
  status: PodStatusRT,
  backoff: (container: string) => OpenBackoff | undefined,
  now: number,
  spec?: PodSpec,
): AdmittedPod {
  // newest first, as the runtime manager sorts them: the first of a name is the current instance
  const byName = new Map<string, ContainerStatusRT[]>();
  for (const c of status.containerStatuses) byName.set(c.name, [...(byName.get(c.name) ?? []), c]);
  const roles = initRoles(byName, spec);
  const specOf = (name: string) =>
    [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])].find((c) => c.name === name);
  const containerStatuses: ContainerStatus[] = [];
  const initContainerStatuses: ContainerStatus[] = [];
  const readiness = new Map<string, true | false | 'unknown'>();
  for (const [name, [cur, prev]] of byName) {
    if (!cur) continue;
    let s = stateOf(cur, status);
    let last = prev && prev.state === 'exited' ? stateOf(prev, status).state : undefined;
    const open = cur.state === 'exited' ? backoff(name) : undefined;
    if (open && now < open.until) {
      last = s.state;
      s = {
        state: {
          waiting: {
            reason: 'CrashLoopBackOff',
            message: `back-off ${open.delayS}s restarting failed container=${name} pod=${who.name}_${who.namespace}(${who.uid})`,
          },
        },
        ready: false,
        started: false,
      };
    }
    const init = roles.names.has(name);
    const counted = !init || specOf(name)?.restartPolicy === 'Always';
    const ready = readinessOf(s.state.running !== undefined, specOf(name), spec !== undefined);
    if (counted) readiness.set(name, ready);
    (init ? initContainerStatuses : containerStatuses).push({
      name,
      ...s,
      ready: ready === true,
      ...(last ? { lastState: last } : { lastState: {} }),
      restartCount: cur.restartCount,
      image: cur.image,
      imageID: cur.imageRef,
      containerID: containerID(status, cur.id),
    });
  }
  // in the order they run: the spec's, or the order they were seen to run in
  const order = [...roles.names];
  initContainerStatuses.sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
  const sandboxReady = status.sandboxStatuses[0]?.state === 'ready';
  const states = containerStatuses.map((c) => c.state ?? {});
  let phase: PodStatus['phase'] = 'Pending';
  if (states.some((s) => s.running)) phase = 'Running';
  else if (sandboxReady)
    phase = states.some((s) => s.terminated || s.waiting?.reason === 'CrashLoopBackOff')
      ? 'Running'
      : 'Pending';
  else if (states.length > 0 && states.every((s) => s.terminated))
    phase = states.every((s) => s.terminated?.exitCode === 0) ? 'Succeeded' : 'Failed';
  const ip = status.ips[0];
  const listed = (names: string[]) =>
    names.map((name) => ({ name, image: byName.get(name)?.[0]?.image ?? '' }));
  const names = [...byName.keys()];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: who.name,
      namespace: who.namespace,
      uid: who.uid,
      creationTimestamp: iso(who.createdAt),
      annotations: {
        [OBSERVED_ANNOTATION]: 'true',
        [OWNER_ANNOTATION]: who.managed ? 'syncscope' : 'kubelet',
      },
    },
    spec: spec ?? {
      ...(order.length > 0 ? { initContainers: listed(order) } : {}),
      containers: listed(names.filter((n) => !roles.names.has(n))),
    },
    status: {
      phase,
      conditions: podConditions(roles, spec, initContainerStatuses, containerStatuses, readiness, phase),
      ...(ip ? { podIP: ip, podIPs: status.ips.map((i) => ({ ip: i })) } : {}),
      ...(who.createdAt ? { startTime: iso(who.createdAt) } : {}),
      ...(initContainerStatuses.length > 0 ? { initContainerStatuses } : {}),
      containerStatuses,
    },
  } as AdmittedPod;
}

/**
 * The pod as shown when the API holds it too: the API's metadata and spec (the kubelet's input: labels,
 * deletionTimestamp and grace, the containers as declared), the status as the runtime shows it. A pod the
 * runtime does not show is the API's object as it is, annotated observed.
 */
export function withApiPod(fromRuntime: AdmittedPod | undefined, api: Pod): AdmittedPod {
  const annotations = {
    ...api.metadata.annotations,
    ...(fromRuntime?.metadata.annotations ?? { [OBSERVED_ANNOTATION]: 'true' }),
  };
  return {
    ...api,
    metadata: { ...api.metadata, annotations },
    ...(fromRuntime?.status ? { status: fromRuntime.status } : {}),
  } as AdmittedPod;
}
