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
      'Pod "web" is invalid: spec.containers[0].image: Required value',
    );
    expect(invalidMessage('web', [...errs, ...errs])).toMatch(/is invalid: \[spec.*, spec.*\]$/);
  });
});

describe('labels and annotations (ValidateLabels, ValidateAnnotations)', () => {
  const NAME_MSG =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  const withMeta = (meta: Record<string, unknown>) => {
    const raw = base() as unknown as RawPod;
    Object.assign(raw.metadata, meta);
    return raw;
  };

  it('keeps a __proto__ key from JSON so that it is refused, not dropped', () => {
    const raw = JSON.parse(
      '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"__proto__":"x"},"annotations":{"__proto__":"y"}},"spec":{"containers":[{"name":"app","image":"busybox"}]}}',
    );
    const d = decodePod(raw);
    expect(d.ok).toBe(true);
    if (!d.ok) return;
    expect(Object.keys(d.pod.metadata.labels ?? {})).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(d.pod.metadata.labels)).toBe(Object.prototype);
    expect(validatePod(d.pod, 'default').map((e) => [e.field, e.reason, e.message])).toEqual([
      ['metadata.labels', 'FieldValueInvalid', `Invalid value: "__proto__": ${NAME_MSG}`],
      ['metadata.annotations', 'FieldValueInvalid', `Invalid value: "__proto__": ${NAME_MSG}`],
    ]);
  });

  it('words every key error as IsQualifiedName does', () => {
    const long = 'a'.repeat(64);
    expect(errorsOf(withMeta({ labels: { 'a/b/c': '', '/x': '', 'example.com/': '', [long]: '' } }))).toEqual(
      [
        "metadata.labels: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
        'metadata.labels: Invalid value: "/x": prefix part must be non-empty',
        'metadata.labels: Invalid value: "example.com/": name part must be non-empty',
        `metadata.labels: Invalid value: "example.com/": ${NAME_MSG}`,
        `metadata.labels: Invalid value: "${long}": name part must be no more than 63 characters`,
      ],
    );
    const prefix = `${'a'.repeat(252)}.B`; // 254 characters, and an upper-case letter
    const errs = errorsOf(withMeta({ labels: { [`${prefix}/x`]: 'ok' } }));
    expect(errs).toEqual([
      `metadata.labels: Invalid value: "${prefix}/x": prefix part must be no more than 253 characters`,
      expect.stringMatching(
        /^metadata\.labels: Invalid value: ".*": prefix part a lowercase RFC 1123 subdomain must/,
      ),
    ]);
  });

  it('counts label values in bytes and checks them against the label-value form', () => {
    const v = 'é'.repeat(32); // 32 characters, 64 bytes
    expect(errorsOf(withMeta({ labels: { a: v } }))).toEqual([
      `metadata.labels: Invalid value: "${v}": must be no more than 63 characters`,
      expect.stringMatching(/^metadata\.labels: Invalid value: ".*": a valid label must be an empty string/),
    ]);
    expect(errorsOf(withMeta({ labels: { 'example.com/App_1': 'v1.2-x_y', empty: '' } }))).toEqual([]);
  });

  it('lowercases annotation keys before checking them, and bounds their total size in bytes', () => {
    expect(errorsOf(withMeta({ annotations: { 'Example.COM/Note': 'anything at all: {}' } }))).toEqual([]);
    expect(errorsOf(withMeta({ labels: { 'Example.COM/Note': 'x' } }))[0]).toMatch(
      /^metadata\.labels: Invalid value: "Example\.COM\/Note": prefix part a lowercase RFC 1123 subdomain/,
    );
    const under = { a: 'x'.repeat(256 * 1024 - 1) };
    expect(errorsOf(withMeta({ annotations: under }))).toEqual([]);
    const over = { a: 'é'.repeat(128 * 1024) }; // 1 + 256 KiB bytes, half as many characters
    expect(errorsOf(withMeta({ annotations: over }))).toEqual([
      'metadata.annotations: Too long: must have at most 262144 bytes',
    ]);
  });

  it('validates spec.nodeSelector as labels', () => {
    const raw = base() as unknown as RawPod;
    raw.spec.nodeSelector = { 'kubernetes.io/os': 'linux', 'bad key': 'x' };
    expect(errorsOf(raw)).toEqual([`spec.nodeSelector: Invalid value: "bad key": ${NAME_MSG}`]);
  });
});
