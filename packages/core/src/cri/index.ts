/** The CRI layer: message types and interfaces, the gRPC client, and the gRPC server for in-process runtimes. */
export * from './types.ts';
export { loadCriServices, PROTO_PATH, LOADER_OPTIONS, type CriServices } from './proto.ts';
export {
  RemoteRuntime,
  parseEndpoint,
  toCriError,
  CHANNEL_OPTIONS,
  DEFAULT_RUNTIME_REQUEST_TIMEOUT_MS,
  EXEC_SYNC_DEADLINE_SLACK_MS,
  MAX_MSG_SIZE,
  type RemoteRuntimeOptions,
} from './remote-runtime.ts';
export { serveCri, type CriServer } from './grpc-server.ts';
export { KUBE_RUNTIME_API_VERSION } from './utils.ts';
