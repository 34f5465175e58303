/**
 * The field schema of a v1 Pod as far as strict decoding needs it: the name and JSON type of every field we
 * accept. Fields the engine models are typed in ./v1.ts; fields Kubernetes knows but a simulated node has no
 * use for (volumes, securityContext, tolerations, ...) are accepted as `any` and kept, so a manifest written
 * for a cluster still applies. Anything else is an unknown field, as with `kubectl --validate=strict`.
 */

export type FieldType =
  | 'string'
  | 'int'
  | 'bool'
  | 'intOrString'
  | 'stringMap'
  | 'any'
  | { array: FieldType }
  | { object: Record<string, FieldType> };

const S = 'string' as const;
const I = 'int' as const;
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
  terminationGracePeriodSeconds: I,
});

const HANDLER = obj({ exec: EXEC, httpGet: HTTP_GET, tcpSocket: TCP_SOCKET, sleep: obj({ seconds: I }) });

const CONTAINER = obj({
  name: S,
  image: S,
  command: arr(S),
  args: arr(S),
  workingDir: S,
  env: arr(obj({ name: S, value: S, valueFrom: ANY })),
  envFrom: ANY,
  ports: arr(obj({ name: S, containerPort: I, hostPort: I, protocol: S, hostIP: S })),
  resources: obj({ limits: 'stringMap', requests: 'stringMap', claims: ANY }),
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
  deletionGracePeriodSeconds: I,
  resourceVersion: S,
  generation: I,
  ownerReferences: ANY,
  finalizers: arr(S),
  managedFields: ANY,
});

const SPEC = obj({
  containers: arr(CONTAINER),
  initContainers: arr(CONTAINER),
  restartPolicy: S,
  terminationGracePeriodSeconds: I,
  activeDeadlineSeconds: I,
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
