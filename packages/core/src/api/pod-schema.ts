/**
 * The field schema of a v1 Pod as far as strict decoding needs it: the name and JSON type of every field we
 * accept. Fields the engine models are typed in ./v1.ts; fields Kubernetes knows but a simulated node has no
 * use for (volumes, securityContext, tolerations, ...) are accepted as `any` and kept, so a manifest written
 * for a cluster still applies. Anything else is an unknown field, as with `kubectl --validate=strict`.
 */

import type { StatusCause } from './v1.ts';

/**
 * `int` is a Go int32 and `int64` an int64 (kept to JavaScript's safe integers); `quantityMap` is a
 * ResourceList, whose values are resource.Quantity strings (a bare JSON number is read as its text).
 */
export type FieldType =
  | 'string'
  | 'int'
  | 'int64'
  | 'quantityMap'
  | 'bool'
  | 'intOrString'
  | 'stringMap'
  | 'any'
  | { array: FieldType }
  | { object: Record<string, FieldType> };

const S = 'string' as const;
const I = 'int' as const;
const I64 = 'int64' as const;
const B = 'bool' as const;
const ANY = 'any' as const;
const obj = (fields: Record<string, FieldType>): FieldType => ({ object: fields });
const arr = (t: FieldType): FieldType => ({ array: t });

const EXEC = obj({ command: arr(S) });
const HTTP_GET = obj({
  path: S,
  port: 'intOrString',
  host: S,
  scheme: S,
  httpHeaders: arr(obj({ name: S, value: S })),
});
const TCP_SOCKET = obj({ port: 'intOrString', host: S });
const GRPC = obj({ port: I, service: S });

const PROBE = obj({
  exec: EXEC,
  httpGet: HTTP_GET,
  tcpSocket: TCP_SOCKET,
  grpc: GRPC,
  initialDelaySeconds: I,
  timeoutSeconds: I,
  periodSeconds: I,
  successThreshold: I,
  failureThreshold: I,
  terminationGracePeriodSeconds: I64,
});

const HANDLER = obj({ exec: EXEC, httpGet: HTTP_GET, tcpSocket: TCP_SOCKET, sleep: obj({ seconds: I64 }) });

const CONTAINER = obj({
  name: S,
  image: S,
  command: arr(S),
  args: arr(S),
  workingDir: S,
  env: arr(obj({ name: S, value: S, valueFrom: ANY })),
  envFrom: ANY,
  ports: arr(obj({ name: S, containerPort: I, hostPort: I, protocol: S, hostIP: S })),
  resources: obj({ limits: 'quantityMap', requests: 'quantityMap', claims: ANY }),
  resizePolicy: ANY,
  imagePullPolicy: S,
  livenessProbe: PROBE,
  readinessProbe: PROBE,
  startupProbe: PROBE,
  lifecycle: obj({ postStart: HANDLER, preStop: HANDLER, stopSignal: S }),
  terminationMessagePath: S,
  terminationMessagePolicy: S,
  restartPolicy: S,
  securityContext: ANY,
  volumeMounts: ANY,
  volumeDevices: ANY,
  stdin: B,
  stdinOnce: B,
  tty: B,
});

const METADATA = obj({
  name: S,
  generateName: S,
  namespace: S,
  uid: S,
  labels: 'stringMap',
  annotations: 'stringMap',
  creationTimestamp: S,
  deletionTimestamp: S,
  deletionGracePeriodSeconds: I64,
  resourceVersion: S,
  generation: I64,
  ownerReferences: ANY,
  finalizers: arr(S),
  managedFields: ANY,
});

const SPEC = obj({
  containers: arr(CONTAINER),
  initContainers: arr(CONTAINER),
  restartPolicy: S,
  terminationGracePeriodSeconds: I64,
  activeDeadlineSeconds: I64,
  hostNetwork: B,
  hostPID: B,
  hostIPC: B,
  hostname: S,
  subdomain: S,
  nodeName: S,
  nodeSelector: 'stringMap',
  dnsPolicy: S,
  dnsConfig: ANY,
  readinessGates: arr(obj({ conditionType: S })),
  volumes: ANY,
  serviceAccountName: S,
  serviceAccount: S,
  automountServiceAccountToken: B,
  securityContext: ANY,
  imagePullSecrets: ANY,
  affinity: ANY,
  tolerations: ANY,
  schedulerName: S,
  priority: I,
  priorityClassName: S,
  enableServiceLinks: B,
  preemptionPolicy: S,
  shareProcessNamespace: B,
  topologySpreadConstraints: ANY,
  runtimeClassName: S,
});

/** The top level. `status` is accepted and ignored on create, as the API server does. */
export const POD_SCHEMA: Record<string, FieldType> = {
  apiVersion: S,
  kind: S,
  metadata: METADATA,
  spec: SPEC,
  status: ANY,
};

// --- strict decoding against the schema ---

/** Decodes `v` against `t`: errors (the decoder's messages) and causes collect every mismatch. */
export function walk(
  v: unknown,
  t: FieldType,
  path: string,
  errors: string[],
  causes: StatusCause[],
): unknown {
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
  if (t === 'int') return isInt(v, INT32_MIN, INT32_MAX) ? v : typeError('int32');
  if (t === 'int64')
    return isInt(v, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER) ? v : typeError('int64');
  if (t === 'intOrString') {
    return typeof v === 'string' || isInt(v, INT32_MIN, INT32_MAX) ? v : typeError('IntOrString');
  }
  if (t === 'stringMap' || t === 'quantityMap') {
    if (!isPlainObject(v)) return typeError(t === 'stringMap' ? 'map[string]string' : 'ResourceList');
    const out: Record<string, string> = {};
    for (const [k, val] of Object.entries(v)) {
      const sub = `${path}.${k}`;
      if (t === 'stringMap') {
        if (typeof val !== 'string') walk(val, 'string', sub, errors, causes);
        else setOwn(out, k, val);
        continue;
      }
      const text = typeof val === 'number' ? String(val) : val;
      if (typeof text !== 'string' || parseQuantity(text) === undefined) {
        errors.push(QUANTITY_MSG);
        causes.push({ field: sub, reason: 'FieldValueInvalid', message: QUANTITY_MSG });
      } else setOwn(out, k, text);
    }
    return out;
  }
  if ('array' in t) {
    if (!Array.isArray(v)) return typeError('array');
    return v.map((item, i) => walk(item, t.array, `${path}[${i}]`, errors, causes));
  }
  if (!isPlainObject(v)) return typeError('object');
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(v)) {
    const sub = path ? `${path}.${k}` : k;
    // own keys only: `constructor` or `__proto__` in a manifest are unknown fields, not the prototype's
    const ft = Object.hasOwn(t.object, k) ? t.object[k] : undefined;
    if (ft === undefined) {
      const m = `unknown field "${sub}"`;
      causes.push({ field: sub, reason: 'FieldValueInvalid', message: m });
      continue;
    }
    const w = walk(val, ft, sub, errors, causes);
    if (w !== undefined) setOwn(out, k, w);
  }
  return out;
}

/**
 * out[k] = v as an own property, whatever k is: a plain assignment to `__proto__` would set the prototype
 * (or do nothing, for a string), so such a key would vanish before validation could refuse it.
 */
function setOwn(out: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
}

const INT32_MIN = -2147483648;
export const INT32_MAX = 2147483647;

function isInt(v: unknown, min: number, max: number): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
}

const QUANTITY_MSG =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;
const SUFFIX: Record<string, number> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

/**
 * A resource.Quantity (`100m`, `64Mi`, `1Gi`, `1.5`, `1e3`) in base units (cores, bytes), or undefined when
 * it does not parse. A double is precise enough to compare a request with its limit.
 */
export function parseQuantity(s: string): number | undefined {
  const m = QUANTITY.exec(s);
  if (!m) return undefined;
  const [, sign, digits, suffix] = m as unknown as [string, string, string, string | undefined];
  let mult = 1;
  if (suffix)
    mult = suffix[0] === 'e' || suffix[0] === 'E' ? 10 ** Number(suffix.slice(1)) : (SUFFIX[suffix] ?? 1);
  const n = Number(digits) * mult;
  if (!Number.isFinite(n)) return undefined;
  return sign === '-' ? -n : n;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  return typeof v;
}
