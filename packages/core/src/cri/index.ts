/** The CRI layer: message types and interfaces, the gRPC client, and the gRPC server for in-process runtimes. */

export { type CriServer, serveCri } from './grpc-server.ts';
export * from './messages.ts';
export { type CriServices, LOADER_OPTIONS, loadCriServices, PROTO_PATH } from './proto.ts';
export { READ_ONLY_CRI_RPCS, type ReadOnlyCri, ReadOnlyCriError, readOnlyCri, rpcName } from './read-only.ts';
export {
  CHANNEL_OPTIONS,
  DEFAULT_RUNTIME_REQUEST_TIMEOUT_MS,
  EXEC_SYNC_DEADLINE_SLACK_MS,
  MAX_MSG_SIZE,
  parseEndpoint,
  RemoteRuntime,
  type RemoteRuntimeOptions,
  toCriError,
} from './remote-runtime.ts';
export * from './types.ts';
export { KUBE_RUNTIME_API_VERSION } from './utils.ts';
