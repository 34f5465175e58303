import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CriServer, serveCri } from '../../cri/grpc-server.ts';
import { RemoteRuntime } from '../../cri/remote-runtime.ts';
import { GrpcCode } from '../../cri/types.ts';
import { type Node, newNode } from '../../sim/test-helpers.ts';
import { ContainerLogManager } from './container-log-manager.ts';

// The rotation over real CRI gRPC (a unix socket): ReopenContainerLog goes through the client and the server
// to the simulated runtime, as the engine's calls do.

let n: Node;
let server: CriServer;
let cri: RemoteRuntime;
beforeEach(async () => {
  n = newNode();
  server = await serveCri(n.sim, join(n.logDir, 'cri.sock'));
  cri = new RemoteRuntime(server.endpoint, { timeoutMs: 5_000 });
});
afterEach(async () => {
  cri.close();
  await server.close();
  n.cleanup();
});

describe('ContainerLogManager over CRI gRPC', () => {
  it('rotates through ReopenContainerLog, which refuses a container that is not running', async () => {
    const { id: pod, config } = await n.pod('chatty');
    const id = await n.run(pod, config, 'app', ['sh', '-c', 'while true; do echo hello; sleep 1; done']);
    const mgr = new ContainerLogManager({
      runtime: cri,
      clock: n.clock,
      policy: { maxSize: 200, maxFiles: 3 },
      monitorIntervalMs: 10_000,
    });
    await n.clock.step(10_000);
    await mgr.rotateLogs();
    const dir = join(n.logDir, 'chatty', 'app');
    expect(readdirSync(dir).sort()).toEqual(['0.log', expect.stringMatching(/^0\.log\.\d{8}-\d{6}$/)]);

    await n.sim.stopContainer(id, 0);
    await expect(cri.reopenContainerLog(id)).rejects.toMatchObject({
      code: GrpcCode.UNKNOWN,
      message: expect.stringContaining('container is not running'),
    });
    await expect(cri.reopenContainerLog('f'.repeat(64))).rejects.toMatchObject({ code: GrpcCode.NOT_FOUND });
  });
});
