/**
 * Admission of a v1 Pod manifest, in two steps as the API server does it:
 *
 *   decodePod    strict decoding against the Pod's schema (./pod-schema.ts, checked by ./decode.ts): every
 *                field must be known (kubectl --validate=strict) and of the right JSON type. Failure is a BadRequest: `Pod in version "v1" cannot be handled as a Pod: strict decoding
 *                error: unknown field "spec.foo"`.
 *   validatePod  ValidatePodCreate's rules that matter to a node: names, containers, images, policies, probe
 *                numbers, ports. Failure is an Invalid with one cause per field error, each rendered like
 *                field.Error (`spec.containers[0].image: Required value`).
 *
 * Called by the server's POST handler (and usable by the web UI: browser-safe, no Node imports). Pure.
 */

import { decodeStrict } from './decode.ts';
import { INT32_MAX, parseQuantity } from './pod-schema.ts';

export { parseQuantity };

import { byteLength } from '../util/utf8.ts';
import type { Container, Pod, StatusCause } from './v1.ts';

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
  const { value, errors, causes } = decodeStrict(raw);
  if (causes.length > 0) {
    const unknown = causes.filter((c) => c.message.startsWith('unknown field')).map((c) => c.message);
    const parts = [...new Set(errors)];
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

// --- validation (pkg/apis/core/validation, the parts a node cares about) ---

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const QUALIFIED_NAME_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const ENV_NAME_MSG =
  "a valid environment variable name must consist only of printable ASCII characters other than '='";
const RANGE_MSG = (lo: number, hi: number) => `must be between ${lo} and ${hi}, inclusive`;

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
  return `Pod "${name}" is invalid: ${body}`;
}

function checkLabel(field: string, v: string, out: FieldError[]): void {
  if (v.length > 63) out.push(invalid(field, v, 'must be no more than 63 characters'));
  if (!DNS1123_LABEL.test(v)) out.push(invalid(field, v, LABEL_MSG));
}

function checkNonNegative(field: string, v: number | undefined, out: FieldError[]): void {
  if (v !== undefined && v < 0) out.push(invalid(field, v, 'must be greater than or equal to 0'));
}

const QUALIFIED_NAME_FORM = `a qualified name ${QUALIFIED_NAME_MSG.replace(/^name part /, '')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`;

/**
 * IsQualifiedName (apimachinery util/validation): an optional DNS-1123 subdomain prefix and a `/`, then a
 * name part of at most 63 characters. Returns the apiserver's messages, every one that applies, in its order.
 */
export function qualifiedNameErrors(key: string): string[] {
  const parts = key.split('/');
  if (parts.length > 2) return [QUALIFIED_NAME_FORM];
  const errs: string[] = [];
  const name = parts.length === 2 ? (parts[1] as string) : key;
  if (parts.length === 2) {
    const prefix = parts[0] as string;
    if (prefix === '') errs.push('prefix part must be non-empty');
    else {
      if (byteLength(prefix) > 253) errs.push('prefix part must be no more than 253 characters');
      if (!DNS1123_SUBDOMAIN.test(prefix)) errs.push(`prefix part ${SUBDOMAIN_MSG}`);
    }
  }
  if (name === '') errs.push('name part must be non-empty');
  else if (byteLength(name) > 63) errs.push('name part must be no more than 63 characters');
  if (!QUALIFIED_NAME.test(name)) errs.push(QUALIFIED_NAME_MSG);
  return errs;
}

function checkQualifiedName(field: string, key: string, out: FieldError[]): void {
  for (const msg of qualifiedNameErrors(key)) out.push(invalid(field, key, msg));
}

/** ValidateLabels (apimachinery meta/v1/validation): each key a qualified name, each value a label value. */
export function checkLabels(
  labels: Record<string, string> | undefined,
  field: string,
  out: FieldError[],
): void {
  for (const [k, v] of Object.entries(labels ?? {})) {
    checkQualifiedName(field, k, out);
    if (byteLength(v) > 63) out.push(invalid(field, v, 'must be no more than 63 characters'));
    if (!LABEL_VALUE.test(v)) out.push(invalid(field, v, LABEL_VALUE_MSG));
  }
}

/** TotalAnnotationSizeLimitB: keys and values together, in bytes. */
export const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;

/**
 * ValidateAnnotations (apimachinery api/validation): each key a qualified name once lowercased (case does
 * not matter in annotation keys), and keys plus values at most 256 KiB.
 */
export function checkAnnotations(
  annotations: Record<string, string> | undefined,
  field: string,
  out: FieldError[],
): void {
  let size = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) {
    for (const msg of qualifiedNameErrors(k.toLowerCase())) out.push(invalid(field, k, msg));
    size += byteLength(k) + byteLength(v);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) {
    out.push({
      field,
      reason: 'FieldValueTooLong',
      message: `Too long: must have at most ${TOTAL_ANNOTATION_SIZE_LIMIT_BYTES} bytes`,
    });
  }
}

function checkMetadata(meta: Pod['metadata'], namespace: string, out: FieldError[]): void {
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
  } else checkLabel('metadata.namespace', namespace, out);
  checkLabels(meta.labels, 'metadata.labels', out);
  checkAnnotations(meta.annotations, 'metadata.annotations', out);
}

/**
 * Validates a decoded pod for creation in namespace `namespace`. Returns the field errors, empty when valid.
 * Runs before defaulting, so absent optional fields are fine; a zero that defaulting replaces (a probe's
 * periodSeconds 0 becomes 10, successThreshold 0 becomes 1) is accepted, as the API server does.
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
  checkMetadata(pod.metadata ?? ({} as Pod['metadata']), namespace, out);
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
      validateContainer(c ?? ({} as Container), p, init, out);
      if (c?.name) {
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
  checkGracePeriod('spec.terminationGracePeriodSeconds', spec.terminationGracePeriodSeconds, out);
  const deadline = spec.activeDeadlineSeconds;
  if (deadline !== undefined && (deadline < 1 || deadline > INT32_MAX)) {
    out.push(invalid('spec.activeDeadlineSeconds', deadline, RANGE_MSG(1, INT32_MAX)));
  }
  if (spec.dnsPolicy !== undefined && !DNS_POLICIES.includes(spec.dnsPolicy)) {
    out.push(notSupported('spec.dnsPolicy', spec.dnsPolicy, DNS_POLICIES));
  }
  checkLabels((spec as { nodeSelector?: Record<string, string> }).nodeSelector, 'spec.nodeSelector', out);
  return out;
}

/**
 * The longest grace period accepted, in seconds (about 68 years). The API server bounds it only by int64;
 * here a deletion time must stay a representable date and a timer a representable delay.
 */
export const MAX_GRACE_PERIOD_SECONDS = INT32_MAX;

function checkGracePeriod(field: string, v: number | undefined, out: FieldError[]): void {
  if (v === undefined) return;
  if (v < 0) out.push(invalid(field, v, 'must be greater than or equal to 0'));
  else if (v > MAX_GRACE_PERIOD_SECONDS) out.push(invalid(field, v, RANGE_MSG(0, MAX_GRACE_PERIOD_SECONDS)));
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
const SCHEMES = ['HTTP', 'HTTPS'] as const as readonly string[];

function validateContainer(c: Container, p: string, init: boolean, out: FieldError[]): void {
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
  const tmp = c.terminationMessagePolicy;
  if (tmp !== undefined && !['File', 'FallbackToLogsOnError'].includes(tmp)) {
    out.push(notSupported(`${p}.terminationMessagePolicy`, tmp, ['File', 'FallbackToLogsOnError']));
  }
  checkPorts(c.ports ?? [], `${p}.ports`, out);
  (c.env ?? []).forEach((e, j) => {
    const ep = `${p}.env[${j}]`;
    if (!e?.name) out.push(required(`${ep}.name`));
    else if (!/^[\x20-\x3c\x3e-\x7e]+$/.test(e.name)) out.push(invalid(`${ep}.name`, e.name, ENV_NAME_MSG));
    const valueFrom = (e as { valueFrom?: unknown } | undefined)?.valueFrom;
    if (e?.value && valueFrom !== undefined) {
      out.push(invalid(`${ep}.valueFrom`, '', 'may not be specified when `value` is not empty'));
    }
  });
  checkResources(c.resources, `${p}.resources`, out);
  for (const kind of ['livenessProbe', 'readinessProbe', 'startupProbe'] as const) {
    const probe = c[kind];
    if (!probe) continue;
    const pp = `${p}.${kind}`;
    if (init && c.restartPolicy !== 'Always') {
      out.push(forbidden(pp, 'may not be set for init containers without restartPolicy=Always'));
    }
    checkHandler(probe, pp, ['exec', 'httpGet', 'tcpSocket', 'grpc'], out);
    for (const f of [
      'initialDelaySeconds',
      'timeoutSeconds',
      'periodSeconds',
      'successThreshold',
      'failureThreshold',
    ] as const) {
      checkNonNegative(`${pp}.${f}`, probe[f], out);
    }
    const tg = probe.terminationGracePeriodSeconds;
    if (tg !== undefined && (tg <= 0 || tg > MAX_GRACE_PERIOD_SECONDS)) {
      out.push(invalid(`${pp}.terminationGracePeriodSeconds`, tg, 'must be greater than 0'));
    }
    const st = probe.successThreshold;
    if (kind !== 'readinessProbe' && st !== undefined && st !== 0 && st !== 1) {
      out.push(invalid(`${pp}.successThreshold`, st, 'must be 1'));
    }
  }
  for (const hook of ['postStart', 'preStop'] as const) {
    const h = c.lifecycle?.[hook];
    if (h) checkHandler(h, `${p}.lifecycle.${hook}`, ['exec', 'httpGet', 'tcpSocket', 'sleep'], out);
  }
}

type AnyHandler = Record<string, unknown> & {
  httpGet?: { port?: number | string; scheme?: string };
  tcpSocket?: { port?: number | string };
  grpc?: { port?: number };
  sleep?: { seconds?: number };
};

/** A probe or lifecycle handler: exactly one action, each with a valid port. */
function checkHandler(h: object, p: string, kinds: string[], out: FieldError[]): void {
  const a = h as AnyHandler;
  const set = kinds.filter((k) => a[k] !== undefined);
  if (set.length === 0) out.push(required(p, 'must specify a handler type'));
  for (const k of set.slice(1)) out.push(forbidden(`${p}.${k}`, 'may not specify more than 1 handler type'));
  if (a.httpGet) {
    checkPortNumOrName(`${p}.httpGet.port`, a.httpGet.port, out);
    const scheme = a.httpGet.scheme;
    if (scheme !== undefined && !SCHEMES.includes(scheme))
      out.push(notSupported(`${p}.httpGet.scheme`, scheme, SCHEMES));
  }
  if (a.tcpSocket) checkPortNumOrName(`${p}.tcpSocket.port`, a.tcpSocket.port, out);
  if (a.grpc) checkPortNumOrName(`${p}.grpc.port`, a.grpc.port ?? 0, out);
  const secs = a.sleep?.seconds;
  if (a.sleep && (secs === undefined || secs < 0 || secs > MAX_GRACE_PERIOD_SECONDS)) {
    out.push(invalid(`${p}.sleep.seconds`, secs ?? 0, 'must be greater than or equal to 0'));
  }
}

function checkPort(field: string, v: number, out: FieldError[]): void {
  if (v < 1 || v > 65535) out.push(invalid(field, v, RANGE_MSG(1, 65535)));
}

function checkPortNumOrName(field: string, v: number | string | undefined, out: FieldError[]): void {
  if (v === undefined || v === '') out.push(required(field));
  else if (typeof v === 'number') checkPort(field, v, out);
  else for (const msg of portNameErrors(v)) out.push(invalid(field, v, msg));
}

/** IANA_SVC_NAME, as validation.IsValidPortName words its failures. */
function portNameErrors(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name))
    errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  else if (!/[a-z]/.test(name)) errs.push('must contain at least one letter (a-z)');
  if (name.includes('--')) errs.push('must not contain consecutive hyphens');
  if (name.startsWith('-') || name.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

function checkPorts(ports: NonNullable<Container['ports']>, p: string, out: FieldError[]): void {
  const names = new Set<string>();
  ports.forEach((port, j) => {
    const pp = `${p}[${j}]`;
    if (!port) {
      out.push(required(pp));
      return;
    }
    if (port.name) {
      for (const msg of portNameErrors(port.name)) out.push(invalid(`${pp}.name`, port.name, msg));
      if (names.has(port.name)) out.push(duplicate(`${pp}.name`, port.name));
      names.add(port.name);
    }
    if (port.containerPort === undefined) out.push(required(`${pp}.containerPort`));
    else checkPort(`${pp}.containerPort`, port.containerPort, out);
    if (port.hostPort !== undefined && port.hostPort !== 0) checkPort(`${pp}.hostPort`, port.hostPort, out);
    if (port.protocol !== undefined && !PROTOCOLS.includes(port.protocol)) {
      out.push(notSupported(`${pp}.protocol`, port.protocol, PROTOCOLS));
    }
  });
}

const STANDARD_CONTAINER_RESOURCES = ['cpu', 'memory', 'ephemeral-storage'];

/** Resource names, non-negative quantities, and every request at most its limit. */
function checkResources(r: Container['resources'], p: string, out: FieldError[]): void {
  if (!r) return;
  const parsed = (kind: 'limits' | 'requests') => {
    const m = new Map<string, number>();
    for (const [name, q] of Object.entries(r[kind] ?? {})) {
      const f = `${p}.${kind}[${name}]`;
      const standard =
        STANDARD_CONTAINER_RESOURCES.includes(name) || /^hugepages-/.test(name) || name.includes('/');
      if (!standard) out.push(invalid(f, name, 'must be a standard resource for containers'));
      else if (name.includes('/')) checkQualifiedName(f, name, out);
      const v = parseQuantity(q);
      if (v === undefined) continue; // decodePod refused it already
      if (v < 0) out.push(invalid(f, q, 'must be greater than or equal to 0'));
      m.set(name, v);
    }
    return m;
  };
  const limits = parsed('limits');
  const requests = parsed('requests');
  for (const [name, req] of requests) {
    const lim = limits.get(name);
    if (lim !== undefined && req > lim) {
      const limText = r.limits?.[name] ?? '';
      out.push(
        invalid(
          `${p}.requests[${name}]`,
          r.requests?.[name],
          `must be less than or equal to ${name} limit of ${limText}`,
        ),
      );
    }
  }
}
