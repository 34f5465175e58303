import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../clock/fake-clock.ts';
import { msToNs } from '../cri/types.ts';
import { containerConfig, type Node, newNode } from './test-helpers.ts';

let dir: string;
const nodes: Node[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sim-state-'));
});
afterEach(() => {
  for (const n of nodes.splice(0)) n.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const node = (opts: Parameters<typeof newNode>[0]) => {
  const n = newNode(opts);
  nodes.push(n);
  return n;
};

describe('a simulated node started again on its state file', () => {
  it('has the sandboxes and containers it had: the running one runs on under its ID, the exited keep their exit', async () => {
    const statePath = join(dir, 'sim-state.json');
    const one = node({ statePath });
    const { id: pod, config } = await one.pod('p');
    const healthy = await one.run(pod, config, 'healthy', [
      'sh',
      '-c',
      'while true; do echo tick; sleep 1; done',
    ]);
    const crashed = await one.run(pod, config, 'crashed', ['sh', '-c', 'exit 3']);
    await one.sim.whenExited(crashed);
    await one.clock.step(1_000);
    const created = await one.sim.createContainer(pod, containerConfig('next', ['sleep', '3600']), config);
    const before = await one.sim.listContainers();
    const startedAt = (await one.sim.containerStatus(healthy)).status?.started_at;
    const sandboxBefore = (await one.sim.podSandboxStatus(pod)).status;

    // the process dies (no shutdown): a node started on a copy of its file, on a clock of its own
    const copy = join(dir, 'copy.json');
    copyFileSync(statePath, copy);
    const two = node({ statePath: copy, logDir: one.logDir, clock: new FakeClock(one.clock.now()) });
    expect(await two.sim.listContainers()).toEqual(before);
    expect((await two.sim.podSandboxStatus(pod)).status).toEqual(sandboxBefore);
    expect((await two.sim.containerStatus(crashed)).status).toMatchObject({
      state: 'CONTAINER_EXITED',
      exit_code: 3,
      reason: 'Error',
    });
    expect((await two.sim.containerStatus(created)).status?.state).toBe('CONTAINER_CREATED');
    const running = (await two.sim.containerStatus(healthy)).status;
    expect(running).toMatchObject({ state: 'CONTAINER_RUNNING', finished_at: '0' });
    expect(running?.started_at).toBe(startedAt);

    // its program runs on, into the same log
    const lines = two.log('p', 'healthy').length;
    await two.clock.step(3_000);
    expect(two.log('p', 'healthy').length).toBeGreaterThan(lines);

    // the CRI works on what it adopted; a clean stop removes the file, so the next start is empty
    await two.sim.stopContainer(healthy, 0);
    const stopped = (await two.sim.containerStatus(healthy)).status;
    expect(stopped).toMatchObject({ state: 'CONTAINER_EXITED', exit_code: 137 });
    expect(stopped?.finished_at).toBe(msToNs(two.clock.now()));
    await two.sim.startContainer(created);
    expect((await two.sim.containerStatus(created)).status?.state).toBe('CONTAINER_RUNNING');
    two.sim.shutdown();
    await two.sim.whenStateRemoved();
    expect(existsSync(copy)).toBe(false);
    expect(await node({ statePath: copy }).sim.listContainers()).toEqual([]);
  });

  it('starts empty on a damaged file, set aside with a warning', async () => {
    const statePath = join(dir, 'sim-state.json');
    writeFileSync(statePath, '{"version":1,"sandboxes":[');
    const n = node({ statePath });
    expect(await n.sim.listPodSandbox()).toEqual([]);
    expect(existsSync(`${statePath}.damaged`)).toBe(true);
  });
});
