/**
 * serveCri: exposes any in-process CriRuntime (the simulated node) as a real CRI endpoint, runtime.v1
 * RuntimeService + ImageService over gRPC on a unix socket, so the engine reaches it through the same
 * RemoteRuntime client it uses for containerd.
 *
 * Contract:
 * - Each RPC delegates to the matching `impl` method. A CriError rejection goes out with the same gRPC
 *   code and details; any other throw or rejection goes out as UNKNOWN with the error's message.
 * - Requests arrive decoded like every other CRI message (int64 as strings); the integer arguments of
 *   the interface (StopContainer/ExecSync timeout) are converted to numbers here. A message argument the
 *   client left unset (null) reaches `impl` as the empty message, which is how a Go runtime reads it through
 *   its nil-safe getters; `impl` then refuses it with the runtime's own words (e.g. missing metadata).
 * - GetContainerEvents forwards impl.getContainerEvents events until the client cancels (the impl stream
 *   is cancelled then) or the impl ends it (an error from onEnd closes the RPC with that status).
 * - close() drops every connection and open stream at once (like a runtime that goes away) and removes
 *   the socket file. A new serveCri on the same path is then reachable by existing clients.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type { ContainerStatusRequest__Output as ContainerStatusRequest } from './generated/runtime/v1/ContainerStatusRequest.ts';
import type { CreateContainerRequest__Output as CreateContainerRequest } from './generated/runtime/v1/CreateContainerRequest.ts';
import type { ExecSyncRequest__Output as ExecSyncRequest } from './generated/runtime/v1/ExecSyncRequest.ts';
import type { GetEventsRequest__Output as GetEventsRequest } from './generated/runtime/v1/GetEventsRequest.ts';
import type { ImageStatusRequest__Output as ImageStatusRequest } from './generated/runtime/v1/ImageStatusRequest.ts';
import type { ListContainersRequest__Output as ListContainersRequest } from './generated/runtime/v1/ListContainersRequest.ts';
import type { ListImagesRequest__Output as ListImagesRequest } from './generated/runtime/v1/ListImagesRequest.ts';
import type { ListPodSandboxRequest__Output as ListPodSandboxRequest } from './generated/runtime/v1/ListPodSandboxRequest.ts';
import type { PodSandboxStatusRequest__Output as PodSandboxStatusRequest } from './generated/runtime/v1/PodSandboxStatusRequest.ts';
import type { PullImageRequest__Output as PullImageRequest } from './generated/runtime/v1/PullImageRequest.ts';
import type { RemoveContainerRequest__Output as RemoveContainerRequest } from './generated/runtime/v1/RemoveContainerRequest.ts';
import type { RemoveImageRequest__Output as RemoveImageRequest } from './generated/runtime/v1/RemoveImageRequest.ts';
import type { RemovePodSandboxRequest__Output as RemovePodSandboxRequest } from './generated/runtime/v1/RemovePodSandboxRequest.ts';
import type { ReopenContainerLogRequest__Output as ReopenContainerLogRequest } from './generated/runtime/v1/ReopenContainerLogRequest.ts';
import type { RunPodSandboxRequest__Output as RunPodSandboxRequest } from './generated/runtime/v1/RunPodSandboxRequest.ts';
import type { StartContainerRequest__Output as StartContainerRequest } from './generated/runtime/v1/StartContainerRequest.ts';
import type { StopContainerRequest__Output as StopContainerRequest } from './generated/runtime/v1/StopContainerRequest.ts';
import type { StopPodSandboxRequest__Output as StopPodSandboxRequest } from './generated/runtime/v1/StopPodSandboxRequest.ts';
import { encodeListItemwise } from './list-codec.ts';
import { containerConfig, imageSpec, podSandboxConfig } from './messages.ts';
import { loadCriServices } from './proto.ts';
import { MAX_MSG_SIZE } from './remote-runtime.ts';
import { type ContainerEventResponse, CriError, type CriRuntime, GrpcCode } from './types.ts';

export interface CriServer {
  close(): Promise<void>;
  /** "unix:///abs/path.sock", ready for `new RemoteRuntime(endpoint)`. */
  endpoint: string;
}

export async function serveCri(impl: CriRuntime, socketPath: string): Promise<CriServer> {
  const path = resolve(socketPath);
  mkdirSync(dirname(path), { recursive: true });
  rmSync(path, { force: true }); // a socket left behind by a previous run would make bind fail

  const { runtime: runtimeDef, image } = loadCriServices();
  const runtime = withListEncoders(runtimeDef);
  const server = new grpc.Server({
    'grpc.max_receive_message_length': MAX_MSG_SIZE,
    'grpc.max_send_message_length': MAX_MSG_SIZE,
  });

  server.addService(runtime, {
    Version: unary(() => impl.version()),
    Status: unary(() => impl.status()),
    RunPodSandbox: unary<RunPodSandboxRequest>(async (r) => ({
      pod_sandbox_id: await impl.runPodSandbox(r.config ?? podSandboxConfig({}), r.runtime_handler),
    })),
    StopPodSandbox: unary<StopPodSandboxRequest>(
      async (r) => void (await impl.stopPodSandbox(r.pod_sandbox_id)),
    ),
    RemovePodSandbox: unary<RemovePodSandboxRequest>(
      async (r) => void (await impl.removePodSandbox(r.pod_sandbox_id)),
    ),
    PodSandboxStatus: unary<PodSandboxStatusRequest>((r) => impl.podSandboxStatus(r.pod_sandbox_id)),
    ListPodSandbox: unary<ListPodSandboxRequest>(async (r) => ({
      items: await impl.listPodSandbox(r.filter ?? undefined),
    })),
    CreateContainer: unary<CreateContainerRequest>(async (r) => ({
      container_id: await impl.createContainer(
        r.pod_sandbox_id,
        r.config ?? containerConfig({}),
        r.sandbox_config ?? podSandboxConfig({}),
      ),
    })),
    StartContainer: unary<StartContainerRequest>(
      async (r) => void (await impl.startContainer(r.container_id)),
    ),
    StopContainer: unary<StopContainerRequest>(
      async (r) => void (await impl.stopContainer(r.container_id, Number(r.timeout))),
    ),
    RemoveContainer: unary<RemoveContainerRequest>(
      async (r) => void (await impl.removeContainer(r.container_id)),
    ),
    ListContainers: unary<ListContainersRequest>(async (r) => ({
      containers: await impl.listContainers(r.filter ?? undefined),
    })),
    ContainerStatus: unary<ContainerStatusRequest>((r) => impl.containerStatus(r.container_id)),
    ExecSync: unary<ExecSyncRequest>((r) => impl.execSync(r.container_id, r.cmd, Number(r.timeout))),
    ReopenContainerLog: unary<ReopenContainerLogRequest>(async (r) => {
      if (!impl.reopenContainerLog)
        throw new CriError(
          'ReopenContainerLog',
          GrpcCode.UNIMPLEMENTED,
          'ReopenContainerLog is not implemented',
        );
      await impl.reopenContainerLog(r.container_id);
    }),
    GetContainerEvents: (call: grpc.ServerWritableStream<GetEventsRequest, ContainerEventResponse>) =>
      streamEvents(impl, call),
  });

  server.addService(image, {
    ImageStatus: unary<ImageStatusRequest>((r) => impl.imageStatus(r.image ?? imageSpec({}))),
    PullImage: unary<PullImageRequest>((r) =>
      impl.pullImage(r.image ?? imageSpec({}), r.sandbox_config ?? undefined),
    ),
    ListImages: unary<ListImagesRequest>(async (r) => ({
      images: await impl.listImages(r.filter ?? undefined),
    })),
    RemoveImage: unary<RemoveImageRequest>(
      async (r) => void (await impl.removeImage(r.image ?? imageSpec({}))),
    ),
  });

  const endpoint = `unix://${path}`;
  await new Promise<void>((ok, fail) => {
    server.bindAsync(endpoint, grpc.ServerCredentials.createInsecure(), (err) => (err ? fail(err) : ok()));
  });

  let closed = false;
  return {
    endpoint,
    close: async () => {
      if (closed) return;
      closed = true;
      server.forceShutdown();
      rmSync(path, { force: true });
    },
  };
}

/**
 * The runtime service with ListPodSandbox/ListContainers answers encoded item by item (list-codec.ts): a
 * runtime that hands out frozen items (the simulated node) pays the encoding once per item state.
 */
function withListEncoders(def: grpc.ServiceDefinition): grpc.ServiceDefinition {
  const out: Record<string, grpc.MethodDefinition<object, unknown>> = { ...def };
  for (const [name, field] of [
    ['ListPodSandbox', 'items'],
    ['ListContainers', 'containers'],
  ] as const) {
    const m = def[name];
    if (m) out[name] = { ...m, responseSerialize: encodeListItemwise(m.responseSerialize, field) };
  }
  return out as grpc.ServiceDefinition;
}

/**
 * A unary handler from an async function of the decoded request (an RPC without arguments takes none);
 * an undefined result becomes the empty response message.
 */
function unary<Req = unknown>(fn: (req: Req) => Promise<unknown>): grpc.handleUnaryCall<Req, unknown> {
  return (call, callback) => {
    let p: Promise<unknown>;
    try {
      p = fn(call.request);
    } catch (err) {
      p = Promise.reject(err);
    }
    p.then(
      (res) => callback(null, res ?? {}),
      (err: unknown) => callback(toStatus(err)),
    );
  };
}

function toStatus(err: unknown): Partial<grpc.StatusObject> {
  if (err instanceof CriError) return { code: err.code, details: err.details };
  return { code: GrpcCode.UNKNOWN, details: err instanceof Error ? err.message : String(err) };
}

function streamEvents(
  impl: CriRuntime,
  call: grpc.ServerWritableStream<GetEventsRequest, ContainerEventResponse>,
): void {
  let open = true;
  const end = (err?: Error): void => {
    if (!open) return;
    open = false;
    if (call.cancelled) return;
    if (err) call.emit('error', toStatus(err));
    else call.end();
  };
  let stream: { cancel(): void };
  try {
    stream = impl.getContainerEvents((ev) => {
      if (open && !call.cancelled) call.write(ev);
    }, end);
  } catch (err) {
    end(err instanceof Error ? err : new Error(String(err)));
    return;
  }
  call.on('cancelled', () => {
    if (!open) return;
    open = false;
    stream.cancel();
  });
}
