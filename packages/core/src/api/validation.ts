/**
 * Admission of a v1 Pod manifest, in two steps as the API server does it:
 *
 *   decodePod    strict decoding: every field must be known (kubectl --validate=strict) and of the right JSON
 *                type. Failure is a BadRequest: `Pod in version "v1" cannot be handled as a Pod: strict decoding
 *                error: unknown field "spec.foo"`.
 *   validatePod  ValidatePodCreate's rules that matter to a node: names, containers, images, policies, probe
 *                numbers, ports. Failure is an Invalid with one cause per field error, each rendered like
 *                field.Error (`spec.containers[0].image: Required value`).
 *
 * Called by the server's POST handler (and usable by the web UI: browser-safe, no Node imports). Pure.
 */

import { type FieldType, POD_SCHEMA } from './pod-schema.ts';
import type { Pod, StatusCause } from './v1.ts';

/** One field error, as k8s.io/apimachinery/pkg/util/validation/field.Error. */
export interface FieldError {
  field: string;
  /** metav1 CauseType: FieldValueRequired, FieldValueInvalid, FieldValueNotSupported, FieldValueDuplicate, ... */
  reason: string;
  /** The error body: `Required value`, `Invalid value: "x": must be ...`. */
  message: string;
}

export type DecodeResult = { ok: true; pod: Pod } | { ok: false; message: string; causes: StatusCause[] };

/** Strictly decodes an already-parsed manifest: unknown fields and wrong JSON types are errors; nulls drop. */
export function decodePod(raw: unknown): DecodeResult {
  const errors: string[] = [];
  const causes: StatusCause[] = [];
  const value = walk(raw, { object: POD_SCHEMA }, '', errors, causes);
  if (causes.length > 0) {
    const unknown = causes.filter((c) => c.reason === 'FieldValueInvalid').map((c) => c.message);
    const parts = [...errors];
    if (unknown.length > 0) parts.push(`strict decoding error: ${unknown.join(', ')}`);
    return {
      ok: false,
      message: `Pod in version "v1" cannot be handled as a Pod: ${parts.join('; ')}`,
      causes,
    };
  }
  const pod = (value ?? {}) as Pod;
  // status is the node's to write; whatever the client sent is dropped.
  delete pod.status;
  return { ok: true, pod };
}

function walk(v: unknown, t: FieldType, path: string, errors: string[], causes: StatusCause[]): unknown {
  if (v === null || v === undefined) return undefined;
  const typeError = (want: string) => {
    const m = `json: cannot unmarshal ${jsonKind(v)} into field ${path || '<root>'} of type ${want}`;
    errors.push(m);
    causes.push({ field: path, reason: 'FieldValueTypeInvalid', message: m });
    return undefined;
  };
  if (t === 'any') return v;
  if (t === 'string') return typeof v === 'string' ? v : typeError('string');
  if (t === 'bool') return typeof v === 'boolean' ? v : typeError('bool');
  if (t === 'int') return typeof v === 'number' && Number.isInteger(v) ? v : typeError('int');
  if (t === 'intOrString') {
    return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v))
      ? v
      : typeError('IntOrString');
  }
  if (t === 'stringMap') {
    if (!isPlainObject(v)) return typeError('map[string]string');
    for (const [k, val] of Object.entries(v)) {
      if (typeof val !== 'string') walk(val, 'string', `${path}.${k}`, errors, causes);
    }
    return v;
  }
  if ('array' in t) {
    if (!Array.isArray(v)) return typeError('array');
    return v.map((item, i) => walk(item, t.array, `${path}[${i}]`, errors, causes));
  }
  if (!isPlainObject(v)) return typeError('object');
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(v)) {
    const sub = path ? `${path}.${k}` : k;
    const ft = t.object[k];
    if (ft === undefined) {
      const m = `unknown field "${sub}"`;
      causes.push({ field: sub, reason: 'FieldValueInvalid', message: m });
      continue;
    }
    const w = walk(val, ft, sub, errors, causes);
    if (w !== undefined) out[k] = w;
  }
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  return typeof v;
}

// --- validation (pkg/apis/core/validation, the parts a node cares about) ---

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const required = (field: string, detail?: string): FieldError => ({
  field,
  reason: 'FieldValueRequired',
  message: detail ? `Required value: ${detail}` : 'Required value',
});
const invalid = (field: string, value: unknown, detail: string): FieldError => ({
  field,
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${JSON.stringify(value)}: ${detail}`,
});
const notSupported = (field: string, value: unknown, supported: readonly string[]): FieldError => ({
  field,
  reason: 'FieldValueNotSupported',
  message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((s) => `"${s}"`).join(', ')}`,
});
const duplicate = (field: string, value: unknown): FieldError => ({
  field,
  reason: 'FieldValueDuplicate',
  message: `Duplicate value: ${JSON.stringify(value)}`,
});
const forbidden = (field: string, detail: string): FieldError => ({
  field,
  reason: 'FieldValueForbidden',
  message: `Forbidden: ${detail}`,
});

/** `field: message`, as field.Error.Error() prints it. */
export function formatFieldError(e: FieldError): string {
  return `${e.field}: ${e.message}`;
}

/** `Pod "x" is invalid: a` or `... is invalid: [a, b]`, as errors.NewInvalid aggregates them. */
export function invalidMessage(name: string, errs: FieldError[]): string {
  const parts = errs.map(formatFieldError);
  const body = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
  return `The Pod "${name}" is invalid: ${body}`;
}

function checkLabel(field: string, v: string, out: FieldError[]): void {
  if (v.length > 63) out.push(invalid(field, v, 'must be no more than 63 characters'));
  if (!DNS1123_LABEL.test(v)) out.push(invalid(field, v, LABEL_MSG));
}

function checkNonNegative(field: string, v: number | undefined, out: FieldError[]): void {
  if (v !== undefined && v < 0) out.push(invalid(field, v, 'must be greater than or equal to 0'));
}

/**
 * Validates a decoded pod for creation in namespace `namespace`. Returns the field errors, empty when valid.
 * Runs before defaulting, so absent optional fields are fine.
 */
export function validatePod(pod: Pod, namespace: string): FieldError[] {
  const out: FieldError[] = [];
  const raw = pod as unknown as Record<string, unknown>;
  if (raw.apiVersion !== 'v1') {
    if (raw.apiVersion === undefined) out.push(required('apiVersion'));
    else out.push(notSupported('apiVersion', raw.apiVersion, ['v1']));
  }
  if (raw.kind !== 'Pod') {
    if (raw.kind === undefined) out.push(required('kind'));
    else out.push(notSupported('kind', raw.kind, ['Pod']));
  }
  const meta = pod.metadata ?? ({} as Pod['metadata']);
  if (!meta.name) out.push(required('metadata.name', 'name or generateName is required'));
  else {
    if (meta.name.length > 253)
      out.push(invalid('metadata.name', meta.name, 'must be no more than 253 characters'));
    if (!DNS1123_SUBDOMAIN.test(meta.name)) out.push(invalid('metadata.name', meta.name, SUBDOMAIN_MSG));
  }
  if (meta.namespace !== undefined && meta.namespace !== namespace) {
    out.push(
      invalid(
        'metadata.namespace',
        meta.namespace,
        'the namespace of the provided object does not match the namespace sent on the request',
      ),
    );
  }
  const spec = pod.spec;
  if (!spec) {
    out.push(required('spec'));
    return out;
  }
  const containers = spec.containers ?? [];
  if (containers.length === 0) out.push(required('spec.containers'));
  const names = new Set<string>();
  const check = (list: Pod['spec']['containers'], base: string, init: boolean) => {
    list.forEach((c, i) => {
      const p = `${base}[${i}]`;
      validateContainer(c, p, init, out);
      if (c.name) {
        if (names.has(c.name)) out.push(duplicate(`${p}.name`, c.name));
        names.add(c.name);
      }
    });
  };
  check(spec.initContainers ?? [], 'spec.initContainers', true);
  check(containers, 'spec.containers', false);
  if (spec.restartPolicy !== undefined && !RESTART_POLICIES.includes(spec.restartPolicy)) {
    out.push(notSupported('spec.restartPolicy', spec.restartPolicy, RESTART_POLICIES));
  }
  checkNonNegative('spec.terminationGracePeriodSeconds', spec.terminationGracePeriodSeconds, out);
  if (spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds < 1) {
    out.push(
      invalid(
        'spec.activeDeadlineSeconds',
        spec.activeDeadlineSeconds,
        'must be between 1 and 2147483647, inclusive',
      ),
    );
  }
  if (spec.dnsPolicy !== undefined && !DNS_POLICIES.includes(spec.dnsPolicy)) {
    out.push(notSupported('spec.dnsPolicy', spec.dnsPolicy, DNS_POLICIES));
  }
  return out;
}

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'] as const as readonly string[];
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'] as const as readonly string[];
const DNS_POLICIES = [
  'ClusterFirstWithHostNet',
  'ClusterFirst',
  'Default',
  'None',
] as const as readonly string[];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'] as const as readonly string[];

function validateContainer(
  c: Pod['spec']['containers'][number],
  p: string,
  init: boolean,
  out: FieldError[],
): void {
  if (!c.name) out.push(required(`${p}.name`));
  else checkLabel(`${p}.name`, c.name, out);
  if (!c.image || c.image.trim() === '') out.push(required(`${p}.image`));
  if (c.imagePullPolicy !== undefined && !PULL_POLICIES.includes(c.imagePullPolicy)) {
    out.push(notSupported(`${p}.imagePullPolicy`, c.imagePullPolicy, PULL_POLICIES));
  }
  if (c.restartPolicy !== undefined) {
    if (!init) out.push(forbidden(`${p}.restartPolicy`, 'may not be set for non-init containers'));
    else if (c.restartPolicy !== 'Always')
      out.push(notSupported(`${p}.restartPolicy`, c.restartPolicy, ['Always']));
  }
  if (
    c.terminationMessagePolicy !== undefined &&
    !['File', 'FallbackToLogsOnError'].includes(c.terminationMessagePolicy)
  ) {
    out.push(
      notSupported(`${p}.terminationMessagePolicy`, c.terminationMessagePolicy, [
        'File',
        'FallbackToLogsOnError',
      ]),
    );
  }
  (c.ports ?? []).forEach((port, j) => {
    const pp = `${p}.ports[${j}]`;
    if (port.containerPort === undefined) out.push(required(`${pp}.containerPort`));
    else checkPort(`${pp}.containerPort`, port.containerPort, out);
    if (port.hostPort !== undefined && port.hostPort !== 0) checkPort(`${pp}.hostPort`, port.hostPort, out);
    if (port.protocol !== undefined && !PROTOCOLS.includes(port.protocol)) {
      out.push(notSupported(`${pp}.protocol`, port.protocol, PROTOCOLS));
    }
  });
  (c.env ?? []).forEach((e, j) => {
    if (!e.name) out.push(required(`${p}.env[${j}].name`));
  });
  for (const kind of ['livenessProbe', 'readinessProbe', 'startupProbe'] as const) {
    const probe = c[kind];
    if (!probe) continue;
    const pp = `${p}.${kind}`;
    if (init && c.restartPolicy !== 'Always') {
      out.push(forbidden(pp, 'may not be set for init containers without restartPolicy=Always'));
    }
    const handlers = [probe.exec, probe.httpGet, probe.tcpSocket].filter((h) => h !== undefined).length;
    if (handlers === 0) out.push(required(pp, 'must specify a handler type'));
    if (handlers > 1) out.push(forbidden(pp, 'may not specify more than 1 handler type'));
    for (const f of [
      'initialDelaySeconds',
      'timeoutSeconds',
      'periodSeconds',
      'successThreshold',
      'failureThreshold',
    ] as const) {
      checkNonNegative(`${pp}.${f}`, probe[f], out);
    }
    if (probe.terminationGracePeriodSeconds !== undefined && probe.terminationGracePeriodSeconds <= 0) {
      out.push(
        invalid(
          `${pp}.terminationGracePeriodSeconds`,
          probe.terminationGracePeriodSeconds,
          'must be greater than 0',
        ),
      );
    }
    if (kind !== 'readinessProbe' && probe.successThreshold !== undefined && probe.successThreshold !== 1) {
      out.push(invalid(`${pp}.successThreshold`, probe.successThreshold, 'must be 1'));
    }
    const port = probe.httpGet?.port ?? probe.tcpSocket?.port;
    if (typeof port === 'number')
      checkPort(`${pp}.${probe.httpGet ? 'httpGet' : 'tcpSocket'}.port`, port, out);
  }
}

function checkPort(field: string, v: number, out: FieldError[]): void {
  if (v < 1 || v > 65535) out.push(invalid(field, v, 'must be between 1 and 65535, inclusive'));
}
