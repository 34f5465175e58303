import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CriServer, serveCri } from './grpc-server.ts';
import { PROTO_PATH } from './proto.ts';
import { READ_ONLY_CRI_RPCS, ReadOnlyCriError, readOnlyCri } from './read-only.ts';
import { RemoteRuntime } from './remote-runtime.ts';
import type { CriRuntime } from './types.ts';

/** Every RPC of the proto's RuntimeService and ImageService, read from the .proto file itself. */
function protoRpcs(): string[] {
  const text = readFileSync(PROTO_PATH, 'utf8');
  const out: string[] = [];
  for (const svc of ['RuntimeService', 'ImageService']) {
    const body = new RegExp(`service ${svc} \\{([\\s\\S]*?)\\n\\}`).exec(text)?.[1] ?? '';
    for (const m of body.matchAll(/rpc (\w+)\(/g)) out.push(m[1] as string);
  }
  return out;
}

const ALL = protoRpcs();
const MUTATING = ALL.filter((rpc) => !READ_ONLY_CRI_RPCS.has(rpc));
const camel = (rpc: string) => rpc.charAt(0).toLowerCase() + rpc.slice(1);

/** A runtime behind a real gRPC socket that notes every RPC that reaches it. */
let received: string[] = [];
const runtime = new Proxy({} as CriRuntime, {
  get: (_t, prop) => {
    if (typeof prop !== 'string' || prop === 'then') return undefined;
    return async () => {
      received.push(prop);
      if (prop === 'listImages' || prop === 'listPodSandbox' || prop === 'listContainers') return [];
      if (prop === 'version')
        return { version: '0.1.0', runtime_name: 'x', runtime_version: '1', runtime_api_version: 'v1' };
      return {};
    };
  },
});

let dir: string;
let server: CriServer;
let client: RemoteRuntime;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ro-cri-'));
  server = await serveCri(runtime, join(dir, 'cri.sock'));
  client = new RemoteRuntime(server.endpoint, { timeoutMs: 5_000 });
});
afterAll(async () => {
  client.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('readOnlyCri', () => {
  it('knows the proto: these RPCs change the node', () => {
    expect(ALL.length).toBeGreaterThan(15);
    expect(MUTATING).toEqual(
      expect.arrayContaining([
        'RunPodSandbox',
        'StopPodSandbox',
        'RemovePodSandbox',
        'CreateContainer',
        'StartContainer',
        'StopContainer',
        'RemoveContainer',
        'ExecSync',
        'PullImage',
        'RemoveImage',
      ]),
    );
  });

  it.each(MUTATING)('%s throws before anything reaches the runtime', async (rpc) => {
    received = [];
    const ro = readOnlyCri(client);
    const method = (ro.cri as unknown as Record<string, (...a: unknown[]) => unknown>)[camel(rpc)];
    expect(typeof method).toBe('function');
    let thrown: unknown;
    try {
      // synchronously: no promise is made, so no request can have been built
      method?.('id', 'x', 1);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ReadOnlyCriError);
    expect((thrown as Error).message).toContain('this server does not change the node');
    expect(ro.refused.get(rpc)).toBe(1);
    // a read after it on the same channel arrives alone: the refused call never went out
    await ro.cri.listImages();
    expect(received).toEqual(['listImages']);
    expect(ro.calls).toEqual(new Map([['ListImages', 1]]));
  });

  it('lets the reads through to the runtime', async () => {
    received = [];
    const ro = readOnlyCri(client);
    expect((await ro.cri.version()).runtime_name).toBe('x');
    expect(await ro.cri.listPodSandbox()).toEqual([]);
    expect(await ro.cri.listContainers()).toEqual([]);
    expect(received).toEqual(['version', 'listPodSandbox', 'listContainers']);
    expect([...ro.refused.keys()]).toEqual([]);
  });
});
