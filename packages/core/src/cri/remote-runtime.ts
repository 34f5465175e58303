/**
 * RemoteRuntime: the CRI client over gRPC on a unix socket (the kubelet's k8s.io/cri-client
 * remoteRuntimeService + remoteImageService in one object, on one channel).
 *
 * Contract:
 * - Every method resolves with the decoded answer or rejects with a CriError(method, code, details);
 *   nothing else escapes. A malformed answer (empty id, status without metadata, ...) rejects with
 *   code UNKNOWN and the kubelet's text.
 * - Every unary call but PullImage carries a deadline, so no caller can block forever on a stuck runtime:
 *     default                 timeoutMs (runtimeRequestTimeout, 2 min)
 *     RunPodSandbox           2 × timeoutMs
 *     StopContainer           timeoutMs + grace period
 *     ExecSync                timeout s + 2 s when timeout > 0, else timeoutMs. containerd can hold an
 *                             ExecSync past its own timeout, even forever, while a child keeps stdio open.
 *     PullImage               none, as in the kubelet: a pull takes as long as it takes.
 * - Calls may be made concurrently. After the runtime restarts, the channel reconnects by itself within
 *   about a second (short reconnect backoff); until then calls fail fast with UNAVAILABLE.
 * - Deadlines are wall-clock (gRPC's own clock), not the engine's Clock: they bound real I/O.
 * - Node-wide ListPodSandbox and ListContainers answers (no filter, or by state only) hold deep-frozen items
 *   that may be the same objects as in an earlier answer (an unchanged item is not decoded again, see
 *   list-codec.ts): read them, never mutate them.
 */
import * as grpc from '@grpc/grpc-js';
import { goQuote as quote } from '../util/go-quote.ts';
import { decodeListItemwise } from './list-codec.ts';
import { type CriServices, loadCriServices } from './proto.ts';
import {
  type Container,
  type ContainerConfig,
  type ContainerEventResponse,
  type ContainerEventStream,
  type ContainerFilter,
  type ContainerStatusResponse,
  CriError,
  type CriRuntime,
  type ExecSyncResponse,
  GrpcCode,
  type Image,
  type ImageFilter,
  type ImageSpec,
  type ImageStatusResponse,
  type PodSandbox,
  type PodSandboxConfig,
  type PodSandboxFilter,
  type PodSandboxStatusResponse,
  type PullImageResponse,
  type StatusResponse,
  type VersionResponse,
} from './types.ts';
import {
  containerMetadataString,
  KUBE_RUNTIME_API_VERSION,
  sandboxMetadataString,
  verifyContainerStatus,
  verifyImage,
  verifySandboxStatus,
  verifyStatus,
  verifyVersion,
} from './utils.ts';

export interface RemoteRuntimeOptions {
  /** Per-call deadline in ms; the kubelet's runtimeRequestTimeout. Default 120000. */
  timeoutMs?: number;
}

export const DEFAULT_RUNTIME_REQUEST_TIMEOUT_MS = 120_000;
/** The kubelet raises gRPC's 4 MiB default to 16 MiB both ways (exec output, long lists). */
export const MAX_MSG_SIZE = 16 * 1024 * 1024;
/** Slack added to an ExecSync's own timeout before the client gives up on the call. */
export const EXEC_SYNC_DEADLINE_SLACK_MS = 2_000;

export const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.max_receive_message_length': MAX_MSG_SIZE,
  'grpc.max_send_message_length': MAX_MSG_SIZE,
  // grpc-js defaults (1 s initial, up to 120 s) leave a restarted containerd unused for seconds.
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 1000,
  // Do not share a subchannel (and its backoff state) with other clients in this process.
  'grpc.use_local_subchannel_pool': 1,
};

/**
 * Validates a runtime endpoint and returns the absolute socket path.
 * Accepts "unix:///abs/path.sock" and "/abs/path.sock"; anything else (tcp://, npipe://, relative paths)
 * throws an Error that names the value and the accepted forms.
 */
export function parseEndpoint(s: string): string {
  const value = s.trim();
  const forms = 'use unix:///path/to/socket or /path/to/socket';
  let path: string;
  if (value.startsWith('unix://')) path = value.slice('unix://'.length);
  else if (value.startsWith('/')) path = value;
  else {
    const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(value)?.[1];
    throw new Error(
      scheme
        ? `CRI endpoint ${quote(s)}: protocol ${quote(scheme)} not supported; ${forms}`
        : `CRI endpoint ${quote(s)} is not a unix socket path; ${forms}`,
    );
  }
  if (!path.startsWith('/'))
    throw new Error(`CRI endpoint ${quote(s)}: the socket path must be absolute; ${forms}`);
  return path;
}

/** A list filter that selects across the whole node (none, or by state only). */
function nodeWide(filter: PodSandboxFilter | ContainerFilter | undefined): boolean {
  return (
    !filter?.id && !filter?.label_selector && !(filter && 'pod_sandbox_id' in filter && filter.pod_sandbox_id)
  );
}

export function toCriError(method: string, err: unknown): CriError {
  if (err instanceof CriError) return err;
  const e = err as Partial<grpc.ServiceError> | undefined;
  const code = typeof e?.code === 'number' ? e.code : GrpcCode.UNKNOWN;
  // grpc-js ends a connection failure's text with its resolver's note, mostly empty for a unix socket: the
  // user would read a dangling "Resolution note:"
  const details = (e?.details || e?.message || String(err)).replace(/\.? Resolution note: ?$/, '');
  return new CriError(method, code, details);
}

type Service = keyof CriServices;

export class RemoteRuntime implements CriRuntime {
  /** The gRPC target, "unix:///abs/path.sock". */
  readonly endpoint: string;
  readonly timeoutMs: number;
  private readonly client: grpc.Client;
  private readonly services = loadCriServices();
  private readonly streams = new Set<ContainerEventStream>();
  /**
   * Node-wide lists (relist every second, housekeeping every other 2 s) decoded item by item. Per-pod lists
   * decode plainly: they are small, and would push the node's items out of the decoders' memory.
   */
  private readonly listDecoders = new Map<string, (buf: Buffer) => unknown>(
    (
      [
        ['ListPodSandbox', 'items'],
        ['ListContainers', 'containers'],
      ] as const
    ).map(([name, field]) => [
      name,
      decodeListItemwise(this.method('runtime', name).responseDeserialize, field),
    ]),
  );

  constructor(endpoint: string, opts: RemoteRuntimeOptions = {}) {
    this.endpoint = `unix://${parseEndpoint(endpoint)}`;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_RUNTIME_REQUEST_TIMEOUT_MS;
    // One generic client serves both services: the method path names the service.
    this.client = new grpc.Client(this.endpoint, grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
  }

  /** Ends every event stream (their onEnd gets no error) and closes the channel. Calls after this fail. */
  close(): void {
    for (const s of [...this.streams]) s.cancel();
    this.client.close();
  }

  // --- RuntimeService -----------------------------------------------------------------------------

  async version(): Promise<VersionResponse> {
    const res = await this.unary<VersionResponse>('runtime', 'Version', {
      version: KUBE_RUNTIME_API_VERSION,
    });
    return this.check('Version', res, verifyVersion(res));
  }

  async status(): Promise<StatusResponse> {
    const res = await this.unary<StatusResponse>('runtime', 'Status', { verbose: false });
    return this.check('Status', res, verifyStatus(res));
  }

  async runPodSandbox(config: PodSandboxConfig, runtimeHandler = ''): Promise<string> {
    const req = { config, runtime_handler: runtimeHandler };
    const res = await this.unary<{ pod_sandbox_id: string }>(
      'runtime',
      'RunPodSandbox',
      req,
      2 * this.timeoutMs,
    );
    const bad = res.pod_sandbox_id
      ? undefined
      : `PodSandboxId is not set for sandbox ${quote(sandboxMetadataString(config.metadata))}`;
    return this.check('RunPodSandbox', res, bad).pod_sandbox_id;
  }

  async stopPodSandbox(podSandboxId: string): Promise<void> {
    await this.unary('runtime', 'StopPodSandbox', { pod_sandbox_id: podSandboxId });
  }

  async removePodSandbox(podSandboxId: string): Promise<void> {
    await this.unary('runtime', 'RemovePodSandbox', { pod_sandbox_id: podSandboxId });
  }

  async podSandboxStatus(podSandboxId: string): Promise<PodSandboxStatusResponse> {
    const req = { pod_sandbox_id: podSandboxId, verbose: false };
    const res = await this.unary<PodSandboxStatusResponse>('runtime', 'PodSandboxStatus', req);
    return this.check('PodSandboxStatus', res, res.status ? verifySandboxStatus(res.status) : undefined);
  }

  async listPodSandbox(filter?: PodSandboxFilter): Promise<PodSandbox[]> {
    const res = await this.unary<{ items: PodSandbox[] }>(
      'runtime',
      'ListPodSandbox',
      { filter: filter ?? null },
      this.timeoutMs,
      nodeWide(filter) ? this.listDecoders.get('ListPodSandbox') : undefined,
    );
    return res.items;
  }

  async createContainer(
    podSandboxId: string,
    config: ContainerConfig,
    sandboxConfig: PodSandboxConfig,
  ): Promise<string> {
    const req = { pod_sandbox_id: podSandboxId, config, sandbox_config: sandboxConfig };
    const res = await this.unary<{ container_id: string }>('runtime', 'CreateContainer', req);
    const bad = res.container_id
      ? undefined
      : `ContainerId is not set for container ${quote(containerMetadataString(config.metadata))}`;
    return this.check('CreateContainer', res, bad).container_id;
  }

  async startContainer(containerId: string): Promise<void> {
    await this.unary('runtime', 'StartContainer', { container_id: containerId });
  }

  async stopContainer(containerId: string, timeout: number): Promise<void> {
    // The grace period runs inside the call; the default timeout on top leaves room for the SIGKILL.
    const deadline = this.timeoutMs + Math.max(0, timeout) * 1000;
    await this.unary('runtime', 'StopContainer', { container_id: containerId, timeout }, deadline);
  }

  async removeContainer(containerId: string): Promise<void> {
    await this.unary('runtime', 'RemoveContainer', { container_id: containerId });
  }

  async reopenContainerLog(containerId: string): Promise<void> {
    await this.unary('runtime', 'ReopenContainerLog', { container_id: containerId });
  }

  async listContainers(filter?: ContainerFilter): Promise<Container[]> {
    const res = await this.unary<{ containers: Container[] }>(
      'runtime',
      'ListContainers',
      { filter: filter ?? null },
      this.timeoutMs,
      nodeWide(filter) ? this.listDecoders.get('ListContainers') : undefined,
    );
    return res.containers;
  }

  async containerStatus(containerId: string): Promise<ContainerStatusResponse> {
    const req = { container_id: containerId, verbose: false };
    const res = await this.unary<ContainerStatusResponse>('runtime', 'ContainerStatus', req);
    return this.check('ContainerStatus', res, res.status ? verifyContainerStatus(res.status) : undefined);
  }

  execSync(containerId: string, cmd: string[], timeout: number): Promise<ExecSyncResponse> {
    const deadline = timeout > 0 ? timeout * 1000 + EXEC_SYNC_DEADLINE_SLACK_MS : this.timeoutMs;
    return this.unary<ExecSyncResponse>(
      'runtime',
      'ExecSync',
      { container_id: containerId, cmd, timeout },
      deadline,
    );
  }

  /**
   * Exec (a streaming call): the runtime prepares the session and answers the URL of its streaming server
   * that serves it, once and for a short while (containerd: 1 min). Rejects when the URL is empty.
   */
  async exec(req: {
    containerId: string;
    cmd: string[];
    tty: boolean;
    stdin: boolean;
    stdout: boolean;
    stderr: boolean;
  }): Promise<string> {
    const { containerId, cmd, tty, stdin, stdout, stderr } = req;
    const res = await this.unary<{ url: string }>('runtime', 'Exec', {
      container_id: containerId,
      cmd,
      tty,
      stdin,
      stdout,
      stderr,
    });
    return this.check('Exec', res, res.url ? undefined : 'the runtime answered no URL').url;
  }

  /** PortForward (a streaming call): the URL of the runtime's streaming server for the sandbox's ports. */
  async portForward(podSandboxId: string, ports: number[] = []): Promise<string> {
    const req = { pod_sandbox_id: podSandboxId, port: ports };
    const res = await this.unary<{ url: string }>('runtime', 'PortForward', req);
    return this.check('PortForward', res, res.url ? undefined : 'the runtime answered no URL').url;
  }

  getContainerEvents(
    onEvent: (ev: ContainerEventResponse) => void,
    onEnd: (err?: Error) => void,
  ): ContainerEventStream {
    const method = 'GetContainerEvents';
    let ended = false;
    let cancelled = false;
    let call: grpc.ClientReadableStream<ContainerEventResponse> | undefined;
    const handle: ContainerEventStream = {
      cancel: () => {
        if (ended || cancelled) return;
        cancelled = true;
        if (call)
          call.cancel(); // grpc-js answers with a CANCELLED error event → finish()
        else finish();
      },
    };
    const finish = (err?: Error): void => {
      if (ended) return;
      ended = true;
      this.streams.delete(handle);
      onEnd(cancelled ? undefined : err);
    };
    this.streams.add(handle);
    let stream: grpc.ClientReadableStream<ContainerEventResponse>;
    try {
      const def = this.method('runtime', method) as grpc.MethodDefinition<object, ContainerEventResponse>;
      // No deadline: the stream lives until either side ends it.
      stream = this.client.makeServerStreamRequest(
        def.path,
        def.requestSerialize,
        def.responseDeserialize,
        {},
        new grpc.Metadata(),
        {},
      );
    } catch (err) {
      queueMicrotask(() => finish(new CriError(method, GrpcCode.UNAVAILABLE, (err as Error).message)));
      return handle;
    }
    call = stream;
    stream.on('data', (ev: ContainerEventResponse) => {
      if (!ended && !cancelled) onEvent(ev);
    });
    stream.on('error', (err: unknown) => finish(toCriError(method, err)));
    stream.on('end', () =>
      finish(new CriError(method, GrpcCode.UNAVAILABLE, 'event stream closed by the runtime')),
    );
    return handle;
  }

  // --- ImageService -------------------------------------------------------------------------------

  async imageStatus(image: ImageSpec): Promise<ImageStatusResponse> {
    const res = await this.unary<ImageStatusResponse>('image', 'ImageStatus', { image, verbose: false });
    return this.check('ImageStatus', res, res.image ? verifyImage(image.image, res.image) : undefined);
  }

  async pullImage(image: ImageSpec, sandboxConfig?: PodSandboxConfig): Promise<PullImageResponse> {
    const req = { image, sandbox_config: sandboxConfig ?? null };
    const res = await this.unary<PullImageResponse>('image', 'PullImage', req, 0);
    return this.check(
      'PullImage',
      res,
      res.image_ref ? undefined : `imageRef of image ${quote(image.image)} is not set`,
    );
  }

  async listImages(filter?: ImageFilter): Promise<Image[]> {
    const res = await this.unary<{ images: Image[] }>('image', 'ListImages', { filter: filter ?? null });
    return res.images;
  }

  async removeImage(image: ImageSpec): Promise<void> {
    await this.unary('image', 'RemoveImage', { image });
  }

  // --- plumbing -----------------------------------------------------------------------------------

  private method(service: Service, name: string): grpc.MethodDefinition<object, unknown> {
    const def = this.services[service][name];
    if (!def) throw new Error(`runtime-v1.proto has no method ${name}`);
    return def as grpc.MethodDefinition<object, unknown>;
  }

  /** One unary call; timeoutMs 0 means no deadline, undefined the default; `deserialize` replaces the proto's. */
  private unary<Res = unknown>(
    service: Service,
    name: string,
    req: object,
    timeoutMs = this.timeoutMs,
    deserialize?: (buf: Buffer) => unknown,
  ): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      try {
        const def = this.method(service, name);
        const options: grpc.CallOptions = timeoutMs > 0 ? { deadline: Date.now() + timeoutMs } : {};
        this.client.makeUnaryRequest(
          def.path,
          def.requestSerialize,
          deserialize ?? def.responseDeserialize,
          req,
          new grpc.Metadata(),
          options,
          (err, res) => (err ? reject(toCriError(name, err)) : resolve(res as Res)),
        );
      } catch (err) {
        // A closed channel throws synchronously.
        reject(new CriError(name, GrpcCode.UNAVAILABLE, (err as Error).message));
      }
    });
  }

  private check<T>(method: string, res: T, problem: string | undefined): T {
    if (problem) throw new CriError(method, GrpcCode.UNKNOWN, problem);
    return res;
  }
}
