import { describe, expect, it } from 'vitest';
import type { Pod } from './v1.ts';
import { decodePod, invalidMessage, validatePod } from './validation.ts';

const base = () => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', creationTimestamp: null },
  spec: { containers: [{ name: 'app', image: 'busybox', resources: {} }] },
  status: {},
});

type RawPod = {
  metadata: Record<string, unknown>;
  spec: Record<string, unknown> & { containers: Record<string, unknown>[] };
};

const errorsOf = (raw: unknown, ns = 'default') => {
  const d = decodePod(raw);
  if (!d.ok) throw new Error(d.message);
  return validatePod(d.pod, ns).map((e) => `${e.field}: ${e.message}`);
};

describe('decodePod', () => {
  it('accepts kubectl run --dry-run output, dropping nulls and status', () => {
    const d = decodePod(base());
    expect(d.ok).toBe(true);
    if (d.ok) {
      expect(d.pod.metadata).toEqual({ name: 'web' });
      expect(d.pod.status).toBeUndefined();
    }
  });

  it('names every unknown field and wrong type', () => {
    const raw = base() as unknown as RawPod;
    const app = raw.spec.containers[0] as Record<string, unknown>;
    raw.spec.foo = 1;
    app.imagePullPolicy = 3;
    raw.metadata.bar = 'x';
    const d = decodePod(raw);
    expect(d.ok).toBe(false);
    if (!d.ok) {
      expect(d.message).toBe(
        'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into field ' +
          'spec.containers[0].imagePullPolicy of type string; strict decoding error: unknown field "metadata.bar", unknown field "spec.foo"',
      );
      expect(d.causes.map((c) => c.field)).toEqual([
        'metadata.bar',
        'spec.containers[0].imagePullPolicy',
        'spec.foo',
      ]);
    }
  });
});

describe('validatePod', () => {
  it('passes a minimal pod', () => {
    expect(errorsOf(base())).toEqual([]);
  });

  it('requires kind Pod, apiVersion v1, a name and a container', () => {
    expect(
      errorsOf({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: {}, spec: { containers: [] } }),
    ).toEqual([
      'apiVersion: Unsupported value: "apps/v1": supported values: "v1"',
      'kind: Unsupported value: "Deployment": supported values: "Pod"',
      'metadata.name: Required value: name or generateName is required',
      'spec.containers: Required value',
    ]);
  });

  it('checks container names as DNS-1123 labels, unique across init and app containers', () => {
    const raw = base() as unknown as RawPod;
    raw.spec.initContainers = [{ name: 'app', image: 'busybox' }];
    raw.spec.containers.push({ name: 'Web_1', image: 'busybox' });
    const errs = errorsOf(raw);
    expect(errs[0]).toBe('spec.containers[0].name: Duplicate value: "app"');
    expect(errs[1]).toMatch(
      /^spec\.containers\[1\]\.name: Invalid value: "Web_1": a lowercase RFC 1123 label must consist of/,
    );
  });

  it('checks policies, probes and ports', () => {
    const raw = base() as unknown as RawPod;
    const app = raw.spec.containers[0] as Record<string, unknown>;
    raw.spec.restartPolicy = 'Sometimes';
    app.imagePullPolicy = 'Often';
    app.ports = [{ containerPort: 0 }, { containerPort: 80, protocol: 'HTTP' }];
    app.livenessProbe = { failureThreshold: -1, successThreshold: 2 };
    expect(errorsOf(raw)).toEqual([
      'spec.containers[0].imagePullPolicy: Unsupported value: "Often": supported values: "Always", "IfNotPresent", "Never"',
      'spec.containers[0].ports[0].containerPort: Invalid value: 0: must be between 1 and 65535, inclusive',
      'spec.containers[0].ports[1].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
      'spec.containers[0].livenessProbe: Required value: must specify a handler type',
      'spec.containers[0].livenessProbe.failureThreshold: Invalid value: -1: must be greater than or equal to 0',
      'spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1',
      'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
    ]);
  });

  it('requires the namespace to match the request', () => {
    const raw = base() as unknown as RawPod;
    raw.metadata.namespace = 'kube-system';
    expect(errorsOf(raw, 'default')).toEqual([
      'metadata.namespace: Invalid value: "kube-system": the namespace of the provided object does not match the namespace sent on the request',
    ]);
  });

  it('aggregates messages as the API server does', () => {
    const pod = { ...base(), spec: { containers: [{ name: 'a', image: '' }] } } as unknown as Pod;
    const errs = validatePod(pod, 'default');
    expect(invalidMessage('web', errs)).toBe(
      'The Pod "web" is invalid: spec.containers[0].image: Required value',
    );
    expect(invalidMessage('web', [...errs, ...errs])).toMatch(/is invalid: \[spec.*, spec.*\]$/);
  });
});
