/**
 * The CRI client after the runtime restarts, on the wall clock: gRPC's own reconnect backoff (100 ms .. 1 s)
 * decides when a call succeeds again, so this is timed in real milliseconds and runs in the `slow` project,
 * apart from the unit tests that never wait on real time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../clock/fake-clock.ts';
import { FakeCriRuntime } from '../kubelet/kuberuntime/fake-cri-runtime.ts';
import { type CriServer, serveCri } from './grpc-server.ts';
import { RemoteRuntime } from './remote-runtime.ts';
import { CriError } from './types.ts';

let dir: string;
let sock: string;
let runtime: FakeCriRuntime;
let server: CriServer | undefined;
let client: RemoteRuntime;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cri-reconnect-'));
  sock = join(dir, 'cri.sock');
  runtime = new FakeCriRuntime(new FakeClock());
  server = await serveCri(runtime, sock);
  client = new RemoteRuntime(server.endpoint);
});

afterEach(async () => {
  client.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('RemoteRuntime across a runtime restart', () => {
  it('fails with UNAVAILABLE while the runtime is down and recovers on the same client within 2 s', async () => {
    const before = await client.version();
    await server?.close();
    const down = await client.version().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(down).toBeInstanceOf(CriError);
    expect([(down as CriError).method, (down as CriError).code]).toEqual(['Version', 14]);

    server = await serveCri(runtime, sock);
    const restartedAt = performance.now();
    // the call itself is retried; a refused one waits 20 ms on the wall clock before the next
    let answer: string | undefined;
    while (!answer && performance.now() - restartedAt < 2_000) {
      answer = await client.version().then(
        (v) => v.runtime_name,
        (e: CriError) => {
          expect(e.code).toBe(14);
          return new Promise<undefined>((r) => setTimeout(r, 20));
        },
      );
    }
    expect(answer).toBe(before.runtime_name);
    expect(performance.now() - restartedAt).toBeLessThan(2_000);
  });
});
