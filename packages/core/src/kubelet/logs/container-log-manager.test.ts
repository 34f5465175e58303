import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Node, newNode } from '../../sim/test-helpers.ts';
import { ContainerLogManager, getAllLogs, rotationTimestamp } from './container-log-manager.ts';

// The manager against the simulated runtime in this process (its ReopenContainerLog, its log writer that holds
// the file open as containerd's does), on a FakeClock: rounds are driven by hand, as the kubelet's tests do.

let n: Node;
beforeEach(() => {
  n = newNode();
});
afterEach(() => n.cleanup());

/** A container that writes one 100-byte line a second, forever. */
async function chatty(): Promise<{ id: string; dir: string }> {
  const { id: pod, config } = await n.pod('chatty');
  const line = 'x'.repeat(100);
  const id = await n.run(pod, config, 'app', ['sh', '-c', `while true; do echo ${line}; sleep 1; done`]);
  return { id, dir: join(n.logDir, 'chatty', 'app') };
}

const listing = (dir: string) => readdirSync(dir).sort();
const dirBytes = (dir: string) => listing(dir).reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);

describe('ContainerLogManager', () => {
  it('rotates a running container log past maxSize: newest rotated kept plain, older gzipped, oldest removed', async () => {
    const { dir } = await chatty();
    const maxSize = 2_000;
    const mgr = new ContainerLogManager({
      runtime: n.sim,
      clock: n.clock,
      policy: { maxSize, maxFiles: 3 },
      monitorIntervalMs: 10_000,
    });
    const errors: string[] = [];
    for (let round = 0; round < 12; round++) {
      await n.clock.step(10_000);
      await mgr.rotateLogs();
    }
    expect(errors).toEqual([]);

    // at most maxFiles files: the live log, the newest rotated one as it was, one older one compressed
    const files = listing(dir);
    expect(files.length).toBeLessThanOrEqual(3);
    const rotated = files.filter((f) => /^0\.log\.\d{8}-\d{6}$/.test(f));
    const gz = files.filter((f) => /^0\.log\.\d{8}-\d{6}\.gz$/.test(f));
    expect(files).toContain('0.log');
    expect(rotated).toHaveLength(1);
    expect(gz).toHaveLength(1);
    expect(files.some((f) => f.endsWith('.tmp'))).toBe(false);
    // the disk use is bounded: 12 rounds wrote ~17 KB, far more than three files hold
    expect(dirBytes(dir)).toBeLessThan(3 * maxSize);

    // each file is whole CRI log lines; the compressed one inflates to them; the live one is being written to
    // (ReopenContainerLog gave the container a new file at the path)
    const lines = (text: string) => text.split('\n').filter(Boolean);
    const cri = /^\d{4}-\d{2}-\d{2}T[\d:.]+Z stdout F x{100}$/;
    for (const l of lines(gunzipSync(readFileSync(join(dir, gz[0] as string))).toString('utf8')))
      expect(l).toMatch(cri);
    for (const l of lines(readFileSync(join(dir, rotated[0] as string), 'utf8'))) expect(l).toMatch(cri);
    const before = statSync(join(dir, '0.log')).size;
    await n.clock.step(3_000);
    expect(statSync(join(dir, '0.log')).size).toBeGreaterThan(before);

    // getAllLogs: oldest first, the live one last
    const all = await getAllLogs(join(dir, '0.log'));
    expect(all.map((p) => p.slice(dir.length + 1))).toEqual([gz[0], rotated[0], '0.log']);
  });

  it('names the rotated file after the clock, and leaves a log under maxSize alone', async () => {
    const { dir } = await chatty();
    const mgr = new ContainerLogManager({
      runtime: n.sim,
      clock: n.clock,
      policy: { maxSize: 1_000_000, maxFiles: 5 },
      monitorIntervalMs: 10_000,
    });
    await n.clock.step(10_000);
    await mgr.rotateLogs();
    expect(listing(dir)).toEqual(['0.log']);

    const small = new ContainerLogManager({
      runtime: n.sim,
      clock: n.clock,
      policy: { maxSize: 100, maxFiles: 5 },
      monitorIntervalMs: 10_000,
    });
    const at = n.clock.now();
    await small.rotateLogs();
    expect(listing(dir)).toEqual(['0.log', `0.log.${rotationTimestamp(at)}`]);
    expect(rotationTimestamp(Date.UTC(2026, 10, 27, 15, 4, 5))).toBe('20261127-150405');
  });

  it('runs every monitor period once started, and never for an exited container', async () => {
    const { id, dir } = await chatty();
    const mgr = new ContainerLogManager({
      runtime: n.sim,
      clock: n.clock,
      policy: { maxSize: 500, maxFiles: 2 },
      monitorIntervalMs: 10_000,
    });
    mgr.start();
    await n.clock.step(10_000);
    await mgr.stop();
    // maxFiles 2: the live log and the one just rotated, nothing compressed
    expect(listing(dir)).toHaveLength(2);
    await n.sim.stopContainer(id, 0);
    const left = listing(dir);
    await mgr.rotateLogs();
    expect(listing(dir)).toEqual(left);
  });

  it('undoes the rename when the runtime cannot reopen the log, to try again next round', async () => {
    const { id, dir } = await chatty();
    await n.clock.step(10_000);
    const errors: string[] = [];
    const mgr = new ContainerLogManager({
      runtime: {
        listContainers: (f) => n.sim.listContainers(f),
        containerStatus: (c) => n.sim.containerStatus(c),
        reopenContainerLog: async () => {
          throw new Error('ReopenContainerLog failed: rpc error: code = Unknown desc = disk full');
        },
      },
      clock: n.clock,
      policy: { maxSize: 100, maxFiles: 5 },
      monitorIntervalMs: 10_000,
      onError: (m, e) => errors.push(`${m}: ${(e as Error).message}`),
    });
    await mgr.processContainer(id);
    expect(listing(dir)).toEqual(['0.log']);
    expect(errors).toEqual([
      expect.stringMatching(
        /^Failed to rotate log for container containerID=\w+ .*: failed to reopen container log ".*": .*disk full$/,
      ),
    ]);
  });

  it('refuses a policy the kubelet refuses', () => {
    expect(
      () =>
        new ContainerLogManager({
          runtime: n.sim,
          clock: n.clock,
          policy: { maxSize: 10, maxFiles: 1 },
          monitorIntervalMs: 10_000,
        }),
    ).toThrow('invalid MaxFiles 1, must be > 1');
  });
});
