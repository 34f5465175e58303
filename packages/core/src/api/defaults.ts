/**
 * API defaulting of a v1 Pod (pkg/apis/core/v1/defaults.go, the fields the kubelet reads), applied by the
 * server after validation and before the pod reaches the engine, so the engine always sees a complete spec:
 * the same spec the API server would have stored. Pure: returns a new object, never mutates its input.
 */
import type { Container, Pod, Probe } from './v1.ts';

/** DefaultTerminationGracePeriodSeconds (k8s.io/api core/v1). */
export const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;
export const DEFAULT_TERMINATION_MESSAGE_PATH = '/dev/termination-log';

/** SetDefaults_Container: Always for `:latest` or an untagged image, else IfNotPresent. Digests count as tags. */
export function defaultImagePullPolicy(image: string): 'Always' | 'IfNotPresent' {
  if (image.includes('@')) return 'IfNotPresent';
  const lastSlash = image.lastIndexOf('/');
  const colon = image.indexOf(':', lastSlash + 1);
  if (colon < 0) return 'Always';
  return image.slice(colon + 1) === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultProbe(p: Probe | undefined): Probe | undefined {
  if (!p) return undefined;
  const out: Probe = {
    ...p,
    timeoutSeconds: p.timeoutSeconds || 1,
    periodSeconds: p.periodSeconds || 10,
    successThreshold: p.successThreshold || 1,
    failureThreshold: p.failureThreshold || 3,
  };
  if (p.httpGet) out.httpGet = { path: '/', scheme: 'HTTP', ...p.httpGet };
  return out;
}

function defaultContainer(c: Container): Container {
  const out: Container = {
    ...c,
    imagePullPolicy: c.imagePullPolicy ?? defaultImagePullPolicy(c.image),
    terminationMessagePath: c.terminationMessagePath ?? DEFAULT_TERMINATION_MESSAGE_PATH,
    terminationMessagePolicy: c.terminationMessagePolicy ?? 'File',
  };
  if (c.ports) out.ports = c.ports.map((p) => ({ ...p, protocol: p.protocol ?? 'TCP' }));
  for (const k of ['livenessProbe', 'readinessProbe', 'startupProbe'] as const) {
    const p = defaultProbe(c[k]);
    if (p) out[k] = p;
  }
  return out;
}

/** The pod with API defaults applied (restartPolicy, grace period, dnsPolicy, container and probe defaults). */
export function setPodDefaults(pod: Pod): Pod {
  const spec = pod.spec;
  return {
    ...pod,
    metadata: { ...pod.metadata },
    spec: {
      ...spec,
      restartPolicy: spec.restartPolicy ?? 'Always',
      terminationGracePeriodSeconds:
        spec.terminationGracePeriodSeconds ?? DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS,
      dnsPolicy: spec.dnsPolicy ?? 'ClusterFirst',
      ...(spec.initContainers ? { initContainers: spec.initContainers.map(defaultContainer) } : {}),
      containers: spec.containers.map(defaultContainer),
    },
  };
}
