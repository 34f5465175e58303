/**
 * The CRI runtime.v1 messages Syncscope uses, named from the types proto-loader-gen-types writes for
 * runtime-v1.proto into ./generated/ (`pnpm gen:cri`; a unit test fails when they drift from the proto).
 *
 * Each name is the generated `__Output` type: the object @grpc/proto-loader decodes with LOADER_OPTIONS
 * (proto.ts): snake_case keys, every int64 a decimal string, enums their string names, every scalar, list and
 * map present (its zero value when unset), and an unset message field `null`. So a reader of a decoded
 * message handles `null` wherever the proto has a message field, as the kubelet handles a nil pointer.
 *
 * The same types are what the engine sends and what the simulated node receives in-process (no decoding in
 * between), so a message the engine builds carries every field too, as a Go struct literal does. Only the
 * list filters are partial: an absent field filters nothing, as an unset one does on the wire.
 *
 * runtime-v1.proto carries the messages of kubernetes/cri-api pkg/apis/runtime/v1/api.proto that we use, with
 * the same names and field numbers, so one client talks to containerd and to the simulated node alike.
 */

import type { Capability__Output } from './generated/runtime/v1/Capability.ts';
import type { Container__Output } from './generated/runtime/v1/Container.ts';
import type { ContainerConfig__Output } from './generated/runtime/v1/ContainerConfig.ts';
import type { ContainerEventResponse__Output } from './generated/runtime/v1/ContainerEventResponse.ts';
import type { ContainerEventType__Output } from './generated/runtime/v1/ContainerEventType.ts';
import type { ContainerFilter__Output } from './generated/runtime/v1/ContainerFilter.ts';
import type { ContainerMetadata__Output } from './generated/runtime/v1/ContainerMetadata.ts';
import type { ContainerResources__Output } from './generated/runtime/v1/ContainerResources.ts';
import type { ContainerState__Output } from './generated/runtime/v1/ContainerState.ts';
import type { ContainerStateValue__Output } from './generated/runtime/v1/ContainerStateValue.ts';
import type { ContainerStatus__Output } from './generated/runtime/v1/ContainerStatus.ts';
import type { ContainerStatusResponse__Output } from './generated/runtime/v1/ContainerStatusResponse.ts';
import type { DNSConfig__Output } from './generated/runtime/v1/DNSConfig.ts';
import type { ExecSyncResponse__Output } from './generated/runtime/v1/ExecSyncResponse.ts';
import type { Image__Output } from './generated/runtime/v1/Image.ts';
import type { ImageFilter__Output } from './generated/runtime/v1/ImageFilter.ts';
import type { ImageSpec__Output } from './generated/runtime/v1/ImageSpec.ts';
import type { ImageStatusResponse__Output } from './generated/runtime/v1/ImageStatusResponse.ts';
import type { Int64Value__Output } from './generated/runtime/v1/Int64Value.ts';
import type { KeyValue__Output } from './generated/runtime/v1/KeyValue.ts';
import type { LinuxContainerConfig__Output } from './generated/runtime/v1/LinuxContainerConfig.ts';
import type { LinuxContainerResources__Output } from './generated/runtime/v1/LinuxContainerResources.ts';
import type { LinuxContainerSecurityContext__Output } from './generated/runtime/v1/LinuxContainerSecurityContext.ts';
import type { LinuxPodSandboxConfig__Output } from './generated/runtime/v1/LinuxPodSandboxConfig.ts';
import type { LinuxPodSandboxStatus__Output } from './generated/runtime/v1/LinuxPodSandboxStatus.ts';
import type { LinuxSandboxSecurityContext__Output } from './generated/runtime/v1/LinuxSandboxSecurityContext.ts';
import type { Mount__Output } from './generated/runtime/v1/Mount.ts';
import type { MountPropagation__Output } from './generated/runtime/v1/MountPropagation.ts';
import type { Namespace__Output } from './generated/runtime/v1/Namespace.ts';
import type { NamespaceMode__Output } from './generated/runtime/v1/NamespaceMode.ts';
import type { NamespaceOption__Output } from './generated/runtime/v1/NamespaceOption.ts';
import type { PodIP__Output } from './generated/runtime/v1/PodIP.ts';
import type { PodSandbox__Output } from './generated/runtime/v1/PodSandbox.ts';
import type { PodSandboxConfig__Output } from './generated/runtime/v1/PodSandboxConfig.ts';
import type { PodSandboxFilter__Output } from './generated/runtime/v1/PodSandboxFilter.ts';
import type { PodSandboxMetadata__Output } from './generated/runtime/v1/PodSandboxMetadata.ts';
import type { PodSandboxNetworkStatus__Output } from './generated/runtime/v1/PodSandboxNetworkStatus.ts';
import type { PodSandboxState__Output } from './generated/runtime/v1/PodSandboxState.ts';
import type { PodSandboxStateValue__Output } from './generated/runtime/v1/PodSandboxStateValue.ts';
import type { PodSandboxStatus__Output } from './generated/runtime/v1/PodSandboxStatus.ts';
import type { PodSandboxStatusResponse__Output } from './generated/runtime/v1/PodSandboxStatusResponse.ts';
import type { PortMapping__Output } from './generated/runtime/v1/PortMapping.ts';
import type { Protocol__Output } from './generated/runtime/v1/Protocol.ts';
import type { PullImageResponse__Output } from './generated/runtime/v1/PullImageResponse.ts';
import type { RuntimeCondition__Output } from './generated/runtime/v1/RuntimeCondition.ts';
import type { RuntimeStatus__Output } from './generated/runtime/v1/RuntimeStatus.ts';
import type { SecurityProfile__Output } from './generated/runtime/v1/SecurityProfile.ts';
import type { StatusResponse__Output } from './generated/runtime/v1/StatusResponse.ts';
import type { VersionResponse__Output } from './generated/runtime/v1/VersionResponse.ts';

/** int64 and uint64 fields: decimal strings (`longs: String`). */
export type Int64 = string;

// Enums: the string unions of their value names (`enums: String`).
export type NamespaceMode = NamespaceMode__Output;
export type Protocol = Protocol__Output;
export type PodSandboxState = PodSandboxState__Output;
export type MountPropagation = MountPropagation__Output;
export type ContainerState = ContainerState__Output;
export type ContainerEventType = ContainerEventType__Output;

// Shared parts.
export type KeyValue = KeyValue__Output;
export type Int64Value = Int64Value__Output;
export type SecurityProfile = SecurityProfile__Output;
export type NamespaceOption = NamespaceOption__Output;
export type ImageSpec = ImageSpec__Output;
export type Mount = Mount__Output;

// Runtime status and version.
export type VersionResponse = VersionResponse__Output;
export type RuntimeCondition = RuntimeCondition__Output;
export type RuntimeStatus = RuntimeStatus__Output;
export type StatusResponse = StatusResponse__Output;

// Sandboxes.
export type PodSandboxMetadata = PodSandboxMetadata__Output;
export type PortMapping = PortMapping__Output;
export type DNSConfig = DNSConfig__Output;
export type LinuxSandboxSecurityContext = LinuxSandboxSecurityContext__Output;
export type LinuxPodSandboxConfig = LinuxPodSandboxConfig__Output;
export type PodSandboxConfig = PodSandboxConfig__Output;
export type PodIP = PodIP__Output;
export type PodSandboxNetworkStatus = PodSandboxNetworkStatus__Output;
export type Namespace = Namespace__Output;
export type LinuxPodSandboxStatus = LinuxPodSandboxStatus__Output;
export type PodSandboxStatus = PodSandboxStatus__Output;
export type PodSandboxStatusResponse = PodSandboxStatusResponse__Output;
export type PodSandbox = PodSandbox__Output;
export type PodSandboxStateValue = PodSandboxStateValue__Output;
export type PodSandboxFilter = Partial<PodSandboxFilter__Output>;

// Containers.
export type ContainerMetadata = ContainerMetadata__Output;
export type LinuxContainerResources = LinuxContainerResources__Output;
export type ContainerResources = ContainerResources__Output;
export type Capability = Capability__Output;
export type LinuxContainerSecurityContext = LinuxContainerSecurityContext__Output;
export type LinuxContainerConfig = LinuxContainerConfig__Output;
export type ContainerConfig = ContainerConfig__Output;
export type Container = Container__Output;
export type ContainerStateValue = ContainerStateValue__Output;
export type ContainerFilter = Partial<ContainerFilter__Output>;
export type ContainerStatus = ContainerStatus__Output;
export type ContainerStatusResponse = ContainerStatusResponse__Output;
export type ExecSyncResponse = ExecSyncResponse__Output;
export type ContainerEventResponse = ContainerEventResponse__Output;

// Images.
export type Image = Image__Output;
export type ImageFilter = Partial<ImageFilter__Output>;
export type ImageStatusResponse = ImageStatusResponse__Output;
export type PullImageResponse = PullImageResponse__Output;

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
  /**
   * Reopens the container's log file at its path (the kubelet's log rotation renamed the old one). Fails
   * for a container that is not running. Optional here: a runtime without it answers UNIMPLEMENTED.
   */
  reopenContainerLog?(containerId: string): Promise<void>;
  getContainerEvents(
    onEvent: (ev: ContainerEventResponse) => void,
    onEnd: (err?: Error) => void,
  ): ContainerEventStream;
}

export interface ImageService {
  imageStatus(image: ImageSpec): Promise<ImageStatusResponse>;
  pullImage(image: ImageSpec, sandboxConfig?: PodSandboxConfig): Promise<PullImageResponse>;
  listImages(filter?: ImageFilter): Promise<Image[]>;
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
