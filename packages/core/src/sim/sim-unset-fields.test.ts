import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CriServer, serveCri } from '../cri/grpc-server.ts';
import { loadCriServices } from '../cri/proto.ts';
import { RemoteRuntime } from '../cri/remote-runtime.ts';
import { CriError, GrpcCode } from '../cri/types.ts';
import { containerConfig, type Node, newNode } from './test-helpers.ts';

// A CRI client may leave any message field unset; it arrives decoded as null. The simulated node, served
// over real gRPC, answers such a request as containerd does (a nil-safe read, then its own refusal), not
// with a JavaScript TypeError.

let node: Node;
let dir: string;
let server: CriServer;
let rt: RemoteRuntime;
let raw: grpc.Client & Record<string, (req: object, cb: grpc.requestCallback<unknown>) => void>;

beforeEach(async () => {
  node = newNode();
  dir = mkdtempSync(join(tmpdir(), 'sim-unset-'));
  server = await serveCri(node.sim, join(dir, 'cri.sock'));
  rt = new RemoteRuntime(server.endpoint);
  const Client = grpc.makeGenericClientConstructor(loadCriServices().runtime, 'RuntimeService');
  raw = new Client(server.endpoint, grpc.credentials.createInsecure()) as typeof raw;
});

afterEach(async () => {
  raw.close();
  rt.close();
  await server.close();
  node.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** The status of a raw call that must fail. */
function rawFailure(method: string, req: object): Promise<{ code: number; details: string }> {
  return new Promise((resolve, reject) => {
    const call = raw[method];
    if (!call) return reject(new Error(`no method ${method}`));
    call.call(raw, req, (err, res) => {
      if (err) resolve({ code: err.code, details: err.details });
      else reject(new Error(`${method} succeeded: ${JSON.stringify(res)}`));
    });
  });
}

async function criError(p: Promise<unknown>): Promise<CriError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (e instanceof CriError) return e;
  throw new Error(`expected a CriError, got ${String(e)}`);
}

describe('the simulated node over gRPC, given unset message fields', () => {
  it('RunPodSandbox without a config, or with one without metadata, is refused as containerd refuses it', async () => {
    expect(await rawFailure('RunPodSandbox', {})).toEqual({
      code: GrpcCode.UNKNOWN,
      details: 'sandbox config must include metadata',
    });
    const { config } = await node.pod('web');
    const e = await criError(rt.runPodSandbox({ ...config, metadata: null }));
    expect([e.code, e.details]).toEqual([GrpcCode.UNKNOWN, 'sandbox config must include metadata']);
    expect(await rt.listPodSandbox()).toHaveLength(1);
  });

  it('CreateContainer without a config or its metadata is refused; an unset image is the empty name', async () => {
    const { id, config } = await node.pod('web');
    expect(await rawFailure('CreateContainer', { pod_sandbox_id: id, sandbox_config: config })).toEqual({
      code: GrpcCode.UNKNOWN,
      details: 'container config must include metadata',
    });
    const c = containerConfig('app', ['sleep', '60']);
    const noMeta = await criError(rt.createContainer(id, { ...c, metadata: null }, config));
    expect([noMeta.code, noMeta.details]).toEqual([
      GrpcCode.UNKNOWN,
      'container config must include metadata',
    ]);
    const noImage = await criError(rt.createContainer(id, { ...c, image: null }, config));
    expect([noImage.code, noImage.details]).toEqual([
      GrpcCode.NOT_FOUND,
      'failed to resolve image "": not found',
    ]);
    expect(await rt.listContainers()).toEqual([]);
  });
});
