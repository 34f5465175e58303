import { describe, expect, it } from 'vitest';
import { decodePod } from './validation.ts';

const pod = (container: Record<string, unknown>, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web' },
  spec: { containers: [{ name: 'app', image: 'busybox', ...container }], ...spec },
});

const failure = (raw: unknown) => {
  const d = decodePod(raw);
  if (d.ok) throw new Error('decoded');
  return d;
};

describe('strict decoding against the Pod schema', () => {
  it('names the Go type of a number out of an int32 field', () => {
    const d = failure(pod({ livenessProbe: { exec: {}, periodSeconds: 2 ** 31 } }));
    expect(d.message).toBe(
      'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into field ' +
        'spec.containers[0].livenessProbe.periodSeconds of type int32',
    );
    expect(d.causes).toEqual([
      {
        field: 'spec.containers[0].livenessProbe.periodSeconds',
        reason: 'FieldValueTypeInvalid',
        message: expect.stringContaining('of type int32'),
      },
    ]);
  });

  it('reads IntOrString, maps and booleans with their Go names', () => {
    const d = failure({
      ...pod({ ports: [{ containerPort: 80 }], tty: 'yes', readinessProbe: { tcpSocket: { port: true } } }),
      metadata: { name: 'web', labels: { a: 1 }, annotations: [] },
    });
    expect(d.causes.map((c) => c.message)).toEqual([
      'json: cannot unmarshal number into field metadata.labels.a of type string',
      'json: cannot unmarshal array into field metadata.annotations of type map[string]string',
      'json: cannot unmarshal string into field spec.containers[0].tty of type bool',
      'json: cannot unmarshal boolean into field spec.containers[0].readinessProbe.tcpSocket.port of type IntOrString',
    ]);
  });

  it('reads a bare number in a ResourceList as its text and refuses a quantity that does not parse', () => {
    const ok = decodePod(pod({ resources: { limits: { cpu: 2, memory: '64Mi' } } }));
    expect(ok.ok && ok.pod.spec.containers[0]?.resources?.limits).toEqual({ cpu: '2', memory: '64Mi' });
    const d = failure(pod({ resources: { requests: { cpu: 'lots', memory: '1e999' } } }));
    expect(d.causes.map((c) => [c.field, c.reason])).toEqual([
      ['spec.containers[0].resources.requests.cpu', 'FieldValueInvalid'],
      ['spec.containers[0].resources.requests.memory', 'FieldValueInvalid'],
    ]);
    expect(d.message).toBe(
      `Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
    );
  });

  it('refuses a __proto__ or constructor key in an object type as an unknown field', () => {
    const d = failure(JSON.parse('{"kind":"Pod","spec":{"__proto__":{},"constructor":1,"containers":[]}}'));
    expect(d.message).toBe(
      'Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.__proto__", unknown field "spec.constructor"',
    );
  });

  it('leaves presence to validation, drops nulls and keeps opaque fields as sent', () => {
    const d = decodePod({
      spec: {
        containers: [{ env: [{ name: 'A', value: null }], volumeMounts: [{ x: null }] }],
        volumes: null,
      },
    });
    expect(d.ok).toBe(true);
    if (d.ok) {
      expect(d.pod.spec).toEqual({ containers: [{ env: [{ name: 'A' }], volumeMounts: [{ x: null }] }] });
    }
  });

  it('refuses a manifest that is not an object', () => {
    expect(failure('pod').message).toBe(
      'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal string into field <root> of type object',
    );
  });
});
