/**
 * What an observed pod's status (pod-view.ts) worked out rather than read, for the status.update the observer
 * records: the runtime states each container's state, exit and restart count, but not readiness (the kubelet's
 * prober decides it, and an observer sees no probe results), not the phase (getPhase over the states), and a
 * CrashLoopBackOff is the back-off rule over the exits it saw. The pod-state reducer shows these as inferred by
 * their rule, or unknown, never as stated.
 */

import type { ContainerStatus, PodSpec, PodStatus } from '@syncscope/core/api';
import { RULES } from '@syncscope/core/pod-state';
import type { TraceOf } from '@syncscope/core/trace';

export type StatusDerivation = NonNullable<TraceOf<'status.update'>['derived']>[number];

const NO_PROBE_RESULTS =
  'the runtime does not report readiness, and the container has a readiness or startup probe whose results an observer does not see';
const NO_SPEC =
  "the runtime does not report readiness, and without the pod's spec (no API server watched) whether the container has a readiness probe is not known";

function readiness(cs: ContainerStatus, spec: PodSpec | undefined): StatusDerivation {
  const field = 'ready';
  if (!cs.state?.running) return { container: cs.name, field, basis: 'inferred', why: RULES.notReady };
  if (!spec) return { container: cs.name, field, basis: 'unknown', why: NO_SPEC };
  const c = [...(spec.initContainers ?? []), ...spec.containers].find((x) => x.name === cs.name);
  if (c?.readinessProbe || c?.startupProbe)
    return { container: cs.name, field, basis: 'unknown', why: NO_PROBE_RESULTS };
  return { container: cs.name, field, basis: 'inferred', why: RULES.observedReady };
}

/** The facts of `status` (built by observedPod with `spec`, when the API gave one) that no read stated. */
export function statusDerivations(status: PodStatus, spec: PodSpec | undefined): StatusDerivation[] {
  const out: StatusDerivation[] = [{ field: 'phase', basis: 'inferred', why: RULES.observedPhase }];
  for (const cs of [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])]) {
    if (cs.state?.waiting?.reason === 'CrashLoopBackOff')
      out.push({ container: cs.name, field: 'state', basis: 'inferred', why: RULES.observedBackoff });
    out.push(readiness(cs, spec));
  }
  return out;
}
