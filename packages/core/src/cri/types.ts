/**
 * The subset of CRI runtime.v1 that Syncscope uses, as plain objects in the shape @grpc/proto-loader gives
 * them with {keepCase, longs: String, enums: String, defaults, oneofs}: snake_case field names, every int64
 * (timestamps in ns, sizes, exit-code-free ints) as a decimal string, enums as their string names.
 *
 * These names match kubernetes/cri-api pkg/apis/runtime/v1/api.proto exactly; runtime-v1.proto beside this
 * file carries the same messages with the same field numbers, so one client talks to containerd and to the
 * simulated node alike.
 */

export type Int64 = string;

export interface KeyValue {
  key: string;
  value: string;
}

export interface VersionResponse {
  version: string;
  runtime_name: string;
  runtime_version: string;
  runtime_api_version: string;
}

export interface RuntimeCondition {
  type: string; // 'RuntimeReady' | 'NetworkReady'
  status: boolean;
  reason: string;
  message: string;
}

export interface StatusResponse {
  status: { conditions: RuntimeCondition[] } | null;
  info: Record<string, string>;
}

export interface PodSandboxMetadata {
  name: string;
  uid: string;
  namespace: string;
  attempt: number;
}

export type NamespaceMode = 'POD' | 'CONTAINER' | 'NODE' | 'TARGET';

export interface NamespaceOption {
  network: NamespaceMode;
  pid: NamespaceMode;
  ipc: NamespaceMode;
  target_id?: string;
}

export interface PortMapping {
  protocol: 'TCP' | 'UDP' | 'SCTP';
  container_port: number;
  host_port: number;
  host_ip: string;
}

export interface DNSConfig {
  servers: string[];
  searches: string[];
  options: string[];
}

export interface Int64Value {
  value: Int64;
}

export interface SecurityProfile {
  profile_type: 'RuntimeDefault' | 'Unconfined' | 'Localhost';
  localhost_ref: string;
}

export interface LinuxSandboxSecurityContext {
  namespace_options: NamespaceOption | null;
  run_as_user?: Int64Value | null;
  run_as_group?: Int64Value | null;
  readonly_rootfs?: boolean;
  supplemental_groups?: Int64[];
  privileged?: boolean;
  seccomp?: SecurityProfile | null;
}

export interface LinuxPodSandboxConfig {
  cgroup_parent: string;
  security_context: LinuxSandboxSecurityContext | null;
  sysctls?: Record<string, string>;
}

export interface PodSandboxConfig {
  metadata: PodSandboxMetadata;
  hostname: string;
  log_directory: string;
  dns_config: DNSConfig | null;
  port_mappings: PortMapping[];
  labels: Record<string, string>;
  annotations: Record<string, string>;
  linux: LinuxPodSandboxConfig | null;
}

export type PodSandboxState = 'SANDBOX_READY' | 'SANDBOX_NOTREADY';

export interface PodSandboxNetworkStatus {
  ip: string;
  additional_ips: { ip: string }[];
}

export interface PodSandboxStatus {
  id: string;
  metadata: PodSandboxMetadata;
  state: PodSandboxState;
  created_at: Int64;
  network: PodSandboxNetworkStatus | null;
  linux: { namespaces: { options: NamespaceOption | null } | null } | null;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  runtime_handler: string;
}

export interface PodSandboxStatusResponse {
  status: PodSandboxStatus | null;
  info: Record<string, string>;
  /** Only from runtimes that support the evented PLEG; absent or empty otherwise. */
  containers_statuses?: ContainerStatus[];
  timestamp?: Int64;
}

export interface PodSandbox {
  id: string;
  metadata: PodSandboxMetadata;
  state: PodSandboxState;
  created_at: Int64;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  runtime_handler: string;
}

export interface PodSandboxFilter {
  id?: string;
  state?: { state: PodSandboxState } | null;
  label_selector?: Record<string, string>;
}

export interface ContainerMetadata {
  name: string;
  attempt: number;
}

export interface ImageSpec {
  image: string;
  annotations?: Record<string, string>;
  user_specified_image?: string;
  runtime_handler?: string;
}

export interface LinuxContainerResources {
  cpu_period?: Int64;
  cpu_quota?: Int64;
  cpu_shares?: Int64;
  memory_limit_in_bytes?: Int64;
  oom_score_adj?: Int64;
  cpuset_cpus?: string;
  cpuset_mems?: string;
  unified?: Record<string, string>;
  memory_swap_limit_in_bytes?: Int64;
}

export type MountPropagation =
  | 'PROPAGATION_PRIVATE'
  | 'PROPAGATION_HOST_TO_CONTAINER'
  | 'PROPAGATION_BIDIRECTIONAL';

export interface Mount {
  container_path: string;
  host_path: string;
  readonly: boolean;
  selinux_relabel?: boolean;
  propagation?: MountPropagation;
}

export interface LinuxContainerSecurityContext {
  capabilities?: {
    add_capabilities: string[];
    drop_capabilities: string[];
    add_ambient_capabilities?: string[];
  } | null;
  privileged?: boolean;
  namespace_options: NamespaceOption | null;
  run_as_user?: Int64Value | null;
  run_as_username?: string;
  run_as_group?: Int64Value | null;
  readonly_rootfs?: boolean;
  supplemental_groups?: Int64[];
  no_new_privs?: boolean;
  masked_paths?: string[];
  readonly_paths?: string[];
  seccomp?: SecurityProfile | null;
  apparmor?: SecurityProfile | null;
}

export interface ContainerConfig {
  metadata: ContainerMetadata;
  image: ImageSpec;
  command: string[];
  args: string[];
  working_dir: string;
  envs: KeyValue[];
  labels: Record<string, string>;
  annotations: Record<string, string>;
  log_path: string;
  mounts?: Mount[];
  stdin?: boolean;
  stdin_once?: boolean;
  tty?: boolean;
  linux: {
    resources: LinuxContainerResources | null;
    security_context?: LinuxContainerSecurityContext | null;
  } | null;
}

export type ContainerState =
  | 'CONTAINER_CREATED'
  | 'CONTAINER_RUNNING'
  | 'CONTAINER_EXITED'
  | 'CONTAINER_UNKNOWN';

export interface Container {
  id: string;
  pod_sandbox_id: string;
  metadata: ContainerMetadata;
  image: ImageSpec;
  image_ref: string;
  state: ContainerState;
  created_at: Int64;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  image_id?: string;
}

export interface ContainerFilter {
  id?: string;
  state?: { state: ContainerState } | null;
  pod_sandbox_id?: string;
  label_selector?: Record<string, string>;
}

export interface ContainerStatus {
  id: string;
  metadata: ContainerMetadata;
  state: ContainerState;
  created_at: Int64;
  started_at: Int64;
  finished_at: Int64;
  exit_code: number;
  image: ImageSpec;
  image_ref: string;
  reason: string;
  message: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  mounts?: Mount[];
  log_path: string;
  resources?: { linux: LinuxContainerResources | null } | null;
  image_id?: string;
}

export interface ContainerStatusResponse {
  status: ContainerStatus | null;
  info: Record<string, string>;
}

export interface ExecSyncResponse {
  stdout: Buffer | Uint8Array;
  stderr: Buffer | Uint8Array;
  exit_code: number;
}

export type ContainerEventType =
  | 'CONTAINER_CREATED_EVENT'
  | 'CONTAINER_STARTED_EVENT'
  | 'CONTAINER_STOPPED_EVENT'
  | 'CONTAINER_DELETED_EVENT';

export interface ContainerEventResponse {
  container_id: string;
  container_event_type: ContainerEventType;
  created_at: Int64;
  pod_sandbox_status: PodSandboxStatus | null;
  containers_statuses: ContainerStatus[];
}

export interface Image {
  id: string;
  repo_tags: string[];
  repo_digests: string[];
  size: Int64;
  uid?: Int64Value | null;
  username?: string;
  spec: ImageSpec | null;
  pinned: boolean;
}

export interface ImageStatusResponse {
  image: Image | null;
  info: Record<string, string>;
}

export interface PullImageResponse {
  image_ref: string;
}

/** A cancellable server stream of container events. */
export interface ContainerEventStream {
  /** Called per event; `onEnd` once with the error that closed the stream (undefined when cancelled). */
  cancel(): void;
}

/**
 * RuntimeService: the CRI runtime calls the engine makes. Implemented by the gRPC client
 * (cri/remote-runtime.ts) and, in-process, by the simulated node (sim/), which the gRPC server
 * (cri/grpc-server.ts `serveCri`) exposes on a unix socket. Every method may reject with a CriError.
 */
export interface RuntimeService {
  version(): Promise<VersionResponse>;
  status(): Promise<StatusResponse>;
  runPodSandbox(config: PodSandboxConfig, runtimeHandler?: string): Promise<string>;
  stopPodSandbox(podSandboxId: string): Promise<void>;
  removePodSandbox(podSandboxId: string): Promise<void>;
  podSandboxStatus(podSandboxId: string): Promise<PodSandboxStatusResponse>;
  listPodSandbox(filter?: PodSandboxFilter): Promise<PodSandbox[]>;
  createContainer(
    podSandboxId: string,
    config: ContainerConfig,
    sandboxConfig: PodSandboxConfig,
  ): Promise<string>;
  startContainer(containerId: string): Promise<void>;
  /** timeout is in seconds, as in the CRI; 0 means kill at once. */
  stopContainer(containerId: string, timeout: number): Promise<void>;
  removeContainer(containerId: string): Promise<void>;
  listContainers(filter?: ContainerFilter): Promise<Container[]>;
  containerStatus(containerId: string): Promise<ContainerStatusResponse>;
  /** timeout is in seconds (0 = none); implementations must still bound the call (containerd can hang). */
  execSync(containerId: string, cmd: string[], timeout: number): Promise<ExecSyncResponse>;
  getContainerEvents(
    onEvent: (ev: ContainerEventResponse) => void,
    onEnd: (err?: Error) => void,
  ): ContainerEventStream;
}

export interface ImageService {
  imageStatus(image: ImageSpec): Promise<ImageStatusResponse>;
  pullImage(image: ImageSpec, sandboxConfig?: PodSandboxConfig): Promise<PullImageResponse>;
  listImages(filter?: { image?: ImageSpec }): Promise<Image[]>;
  removeImage(image: ImageSpec): Promise<void>;
}

export type CriRuntime = RuntimeService & ImageService;

/** gRPC status codes the engine looks at (numbers as in @grpc/grpc-js `status`). */
export const GrpcCode = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  UNAVAILABLE: 14,
} as const;

/**
 * Every CRI failure, from the client or the simulator, is a CriError: the operation (method name as in the
 * proto, e.g. "StartContainer"), the gRPC code and the runtime's message. `message` reads like the kubelet's
 * logs: `<Method> failed: rpc error: code = <CodeName> desc = <details>`; `details` is the runtime's own text,
 * which is what the kubelet surfaces in Events and waiting messages.
 */
export class CriError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    readonly details: string,
  ) {
    super(`${method} failed: rpc error: code = ${codeName(code)} desc = ${details}`);
    this.name = 'CriError';
  }
}

export function codeName(code: number): string {
  const names: Record<number, string> = {
    0: 'OK',
    1: 'Canceled',
    2: 'Unknown',
    3: 'InvalidArgument',
    4: 'DeadlineExceeded',
    5: 'NotFound',
    6: 'AlreadyExists',
    7: 'PermissionDenied',
    8: 'ResourceExhausted',
    9: 'FailedPrecondition',
    10: 'Aborted',
    11: 'OutOfRange',
    12: 'Unimplemented',
    13: 'Internal',
    14: 'Unavailable',
    15: 'DataLoss',
    16: 'Unauthenticated',
  };
  return names[code] ?? `Code(${code})`;
}

export function isNotFound(err: unknown): boolean {
  return err instanceof CriError && err.code === GrpcCode.NOT_FOUND;
}

/** ns-since-epoch string → ms since epoch (0 stays 0). */
export function nsToMs(ns: Int64): number {
  if (!ns || ns === '0') return 0;
  return Number(BigInt(ns) / 1_000_000n);
}

export function msToNs(ms: number): Int64 {
  return (BigInt(Math.round(ms * 1000)) * 1000n).toString();
}
