/**
 * Loads runtime-v1.proto once and hands out the two service definitions that both the client
 * (remote-runtime.ts) and the server (grpc-server.ts) are built from.
 *
 * The decode options fix the JS shape of every message: snake_case keys, int64/uint64 as decimal strings, enums
 * as their names, every field present (defaults), unset message fields as null. The message types in
 * generated/ (named by types.ts) are written from these same options (gen-types.ts); changing them means
 * `pnpm gen:cri`, or the drift test fails.
 */
import { fileURLToPath } from 'node:url';
import type { ServiceDefinition } from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

export const PROTO_PATH = fileURLToPath(new URL('./runtime-v1.proto', import.meta.url));

export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
};

const RUNTIME_SERVICE = 'runtime.v1.RuntimeService';
const IMAGE_SERVICE = 'runtime.v1.ImageService';

export interface CriServices {
  runtime: ServiceDefinition;
  image: ServiceDefinition;
}

let loaded: CriServices | undefined;

/** The parsed services; the file is read on the first call only. Throws if the .proto is missing or invalid. */
export function loadCriServices(): CriServices {
  if (!loaded) {
    const def = protoLoader.loadSync(PROTO_PATH, LOADER_OPTIONS);
    loaded = {
      runtime: serviceOf(def, RUNTIME_SERVICE),
      image: serviceOf(def, IMAGE_SERVICE),
    };
  }
  return loaded;
}

function serviceOf(def: protoLoader.PackageDefinition, name: string): ServiceDefinition {
  const svc = def[name];
  if (!svc || 'format' in svc) throw new Error(`${PROTO_PATH}: service ${name} not found`);
  // proto-loader's ServiceDefinition has the same runtime shape as grpc-js's (path, serializers, stream flags).
  return svc as unknown as ServiceDefinition;
}
