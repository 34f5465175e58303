/**
 * What the runtime does not say of an observed pod: which containers were init containers, and whether the
 * running ones are ready. The kubelet labels a container with its pod and its name
 * (io.kubernetes.container.name) and annotates its hash and restart count (kuberuntime/labels.go); nothing
 * marks an init container and nothing shows a probe. So each answer carries where it came from, in the
 * words of core's provenance model:
 *
 *   init containers   stated by the API's spec when it is known; else inferred by RULES.initOrder from the
 *                     instances' creation and exit times, on the pod's Initialized condition
 *   ready             from the spec's probes (a running container without a readiness or startup probe is
 *                     ready); without a spec, a running container is shown ready and the pod's Ready
 *                     condition says it is inferred; a probe whose results the runtime cannot show leaves
 *                     the Ready condition Unknown
 *
 * Pure functions (pkg/kubelet/status/generate.go for the conditions' reasons and messages).
 */
import type { Container, ContainerStatus, PodCondition, PodPhase, PodSpec } from '@syncscope/core/api';
import type { ContainerStatusRT } from '@syncscope/core/kubelet/container/runtime';
import { provenance, RULES } from '@syncscope/core/pod-state';

/** Which containers were init containers, and on what ground. */
export interface InitRoles {
  names: ReadonlySet<string>;
  basis: 'stated' | 'inferred';
}

/** The ground of a running container shown ready without a spec. */
const READY_WITHOUT_SPEC =
  'a running container without a readiness probe is ready; the runtime does not show whether it has one';
const PROBE_UNSEEN =
  'a readiness or startup probe decides whether a running container is ready, and the runtime does not show its results';

/**
 * The pod's init containers, in the order they run. `byName`: each container's instances, newest first. With
 * a spec, its initContainers. Without one, the longest run of containers (ordered by their oldest instance's
 * creation) whose newest instance exited 0 before any instance of a later container was created, leaving
 * at least one container after it: the order the kubelet runs init containers in.
 */
export function initRoles(
  byName: ReadonlyMap<string, readonly ContainerStatusRT[]>,
  spec?: PodSpec,
): InitRoles {
  if (spec) return { names: new Set((spec.initContainers ?? []).map((c) => c.name)), basis: 'stated' };
  const firstCreated = (xs: readonly ContainerStatusRT[]) => Math.min(...xs.map((x) => x.createdAt));
  const order = [...byName]
    .filter(([, xs]) => xs.length > 0)
    .sort(([, a], [, b]) => firstCreated(a) - firstCreated(b));
  const names = new Set<string>();
  for (let i = 0; i < order.length - 1; i++) {
    const [name, xs] = order[i] as [string, readonly ContainerStatusRT[]];
    const newest = xs[0] as ContainerStatusRT;
    const laterCreated = Math.min(...order.slice(i + 1).map(([, ys]) => firstCreated(ys)));
    if (newest.state !== 'exited' || newest.exitCode !== 0 || newest.finishedAt <= 0) break;
    if (newest.finishedAt > laterCreated) break;
    names.add(name);
  }
  return { names, basis: 'inferred' };
}

type Readiness = true | false | 'unknown';

/** A container's readiness as far as the runtime and the spec tell it (undefined spec: not known). */
export function readinessOf(running: boolean, spec: Container | undefined, specKnown: boolean): Readiness {
  if (!running) return false;
  if (!specKnown) return true;
  return spec?.readinessProbe || spec?.startupProbe ? 'unknown' : true;
}

const goList = (names: string[]) => `[${names.join(' ')}]`;

/**
 * The Initialized and Ready conditions of an observed pod. `readiness` holds each regular (and restartable
 * init) container's readiness by name.
 */
export function podConditions(
  roles: InitRoles,
  spec: PodSpec | undefined,
  init: readonly ContainerStatus[],
  regular: readonly ContainerStatus[],
  readiness: ReadonlyMap<string, Readiness>,
  phase: PodPhase,
): PodCondition[] {
  const out: PodCondition[] = [];
  const initialized = initializedCondition(roles, spec, init, regular);
  if (initialized) out.push(initialized);
  out.push(readyCondition(spec, readiness, phase));
  return out;
}

function initializedCondition(
  roles: InitRoles,
  spec: PodSpec | undefined,
  init: readonly ContainerStatus[],
  regular: readonly ContainerStatus[],
): PodCondition | undefined {
  if (!spec) {
    if (roles.names.size === 0) return undefined;
    return {
      type: 'Initialized',
      status: 'True',
      message: provenance({ basis: 'inferred', value: true, rule: RULES.initOrder }),
    };
  }
  const started = regular.some((c) => c.state.running || c.state.terminated);
  if (started) return { type: 'Initialized', status: 'True' };
  const unknown: string[] = [];
  const incomplete: string[] = [];
  for (const c of spec.initContainers ?? []) {
    const s = init.find((x) => x.name === c.name);
    if (!s) unknown.push(c.name);
    else if (c.restartPolicy === 'Always' ? !s.started : s.state.terminated?.exitCode !== 0)
      incomplete.push(c.name);
  }
  const msgs: string[] = [];
  if (unknown.length > 0) msgs.push(`containers with unknown status: ${goList(unknown)}`);
  if (incomplete.length > 0) msgs.push(`containers with incomplete status: ${goList(incomplete)}`);
  if (msgs.length === 0) return { type: 'Initialized', status: 'True' };
  return {
    type: 'Initialized',
    status: 'False',
    reason: 'ContainersNotInitialized',
    message: msgs.join(', '),
  };
}

function readyCondition(
  spec: PodSpec | undefined,
  readiness: ReadonlyMap<string, Readiness>,
  phase: PodPhase,
): PodCondition {
  if (phase === 'Succeeded') return { type: 'Ready', status: 'False', reason: 'PodCompleted' };
  if (phase === 'Failed') return { type: 'Ready', status: 'False', reason: 'PodFailed' };
  const counted = spec
    ? [...(spec.initContainers ?? []).filter((c) => c.restartPolicy === 'Always'), ...spec.containers].map(
        (c) => c.name,
      )
    : [...readiness.keys()];
  const unknown = counted.filter((n) => !readiness.has(n));
  const unready = counted.filter((n) => readiness.get(n) === false);
  const msgs: string[] = [];
  if (unknown.length > 0) msgs.push(`containers with unknown status: ${goList(unknown)}`);
  if (unready.length > 0) msgs.push(`containers with unready status: ${goList(unready)}`);
  if (msgs.length > 0)
    return { type: 'Ready', status: 'False', reason: 'ContainersNotReady', message: msgs.join(', ') };
  if (counted.length === 0 || counted.some((n) => readiness.get(n) === 'unknown'))
    return {
      type: 'Ready',
      status: 'Unknown',
      message: provenance({
        basis: 'unknown',
        why: counted.length === 0 ? 'the runtime shows no container of the pod' : PROBE_UNSEEN,
      }),
    };
  if (!spec)
    return {
      type: 'Ready',
      status: 'True',
      message: provenance({ basis: 'inferred', value: true, rule: READY_WITHOUT_SPEC }),
    };
  return { type: 'Ready', status: 'True' };
}
