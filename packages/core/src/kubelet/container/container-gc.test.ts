/**
 * Container GC through the whole engine on an in-process simulated node and a FakeClock: a deleted pod's
 * sandbox (stopped by killPod, never removed by it) is gone within one ContainerGCPeriod of the pod being
 * finished, with its log directory; a live pod and a sandbox we did not create are left alone.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TraceOf } from '../../events/trace.ts';
import { foreignSandbox } from '../testing/foreign-sandbox.ts';
import { scriptPod, simKubelet } from '../testing/sim-kubelet.ts';
import { ContainerGCPeriodMs } from './container-gc.ts';

let logDir: string;
beforeEach(() => {
  logDir = mkdtempSync(join(tmpdir(), 'container-gc-'));
});
afterEach(() => rmSync(logDir, { recursive: true, force: true }));

describe('container GC every ContainerGCPeriod (1 min)', () => {
  it("removes a deleted pod's stopped sandbox, its containers and log directory within one period; nothing else", async () => {
    const { clock, trace, sim, kl } = simKubelet({ podLogsDirectory: logDir });
    const sandboxesOf = async (uid: string) =>
      (await sim.listPodSandbox({})).filter((s) => s.metadata?.uid === uid);
    const foreignID = await sim.runPodSandbox(foreignSandbox('foreign', 'foreign-uid'));
    await sim.stopPodSandbox(foreignID); // dead and empty: what the kubelet's GC would take
    const gone = scriptPod(
      clock,
      { uid: 'uid-gone', name: 'gone' },
      'echo hi; while true; do sleep 1; done',
      {
        terminationGracePeriodSeconds: 1,
      },
    );
    const live = scriptPod(clock, { uid: 'uid-live', name: 'live' }, 'while true; do sleep 1; done');
    kl.start();
    kl.addPod(gone);
    kl.addPod(live);
    const running = (uid: string) => kl.getPodByUID(uid)?.status?.phase === 'Running';
    expect(await clock.stepUntil(() => running('uid-gone') && running('uid-live'), 10_000)).toBe(true);
    const podLogDir = join(logDir, 'default_gone_uid-gone');
    expect(await clock.stepUntil(() => existsSync(podLogDir), 5_000)).toBe(true);

    kl.deletePod('uid-gone', 0);
    const finished = () => ['Finished', undefined].includes(kl.podWorkers.stateOf('uid-gone'));
    expect(await clock.stepUntil(finished, 10_000)).toBe(true);
    const finishedAt = clock.now();
    // killPod stopped the sandbox and its container; neither is removed by it
    expect((await sandboxesOf('uid-gone')).map((s) => s.state)).toEqual(['SANDBOX_NOTREADY']);

    const runs = () => trace.since(0, (e) => e.type === 'container.gc') as TraceOf<'container.gc'>[];
    const removing = () => runs().find((r) => r.sandboxes > 0);
    expect(await clock.stepUntil(() => removing() !== undefined, ContainerGCPeriodMs, 500)).toBe(true);
    const run = removing() as TraceOf<'container.gc'>;
    expect(run.time - finishedAt).toBeLessThanOrEqual(ContainerGCPeriodMs);
    expect(run).toMatchObject({ sandboxes: 1, podLogDirs: 1 });
    expect(run.error).toBeUndefined();
    expect(await sandboxesOf('uid-gone')).toEqual([]);
    expect(
      (await sim.listContainers({})).filter((c) => c.labels['io.kubernetes.pod.uid'] === 'uid-gone'),
    ).toEqual([]);
    expect(existsSync(podLogDir)).toBe(false);

    // the live pod keeps its sandbox, container and logs; the foreign sandbox is untouched
    expect((await sandboxesOf('uid-live')).map((s) => s.state)).toEqual(['SANDBOX_READY']);
    expect(existsSync(join(logDir, 'default_live_uid-live'))).toBe(true);
    expect((await sandboxesOf('foreign-uid')).map((s) => s.id)).toEqual([foreignID]);
    expect(running('uid-live')).toBe(true);

    const calls = trace.since(0, (e) => e.type === 'runtime.call') as TraceOf<'runtime.call'>[];
    const removals = calls.filter((c) => c.method === 'RemovePodSandbox' || c.method === 'StopPodSandbox');
    expect(removals.every((c) => c.podUID === 'uid-gone')).toBe(true);
    expect(removals.filter((c) => c.method === 'RemovePodSandbox').map((c) => c.pod)).toEqual([
      'default/gone',
    ]);

    await kl.stop();
  });

  it('runs at once at start, then a period after each run ends; stop ends the loop', async () => {
    const { clock, trace, kl } = simKubelet({ podLogsDirectory: logDir });
    const runs = () => trace.since(0, (e) => e.type === 'container.gc') as TraceOf<'container.gc'>[];
    const t0 = clock.now();
    kl.start();
    expect(await clock.stepUntil(() => runs().length === 3, 3 * ContainerGCPeriodMs, 1_000)).toBe(true);
    const [a, b, c] = runs() as [TraceOf<'container.gc'>, TraceOf<'container.gc'>, TraceOf<'container.gc'>];
    expect(a.time - a.durationMs).toBe(t0);
    expect(b.time - b.durationMs).toBe(a.time + ContainerGCPeriodMs);
    expect(c.time - c.durationMs).toBe(b.time + ContainerGCPeriodMs);
    await kl.stop();
    await clock.step(3 * ContainerGCPeriodMs);
    expect(runs()).toHaveLength(3);
  });
});
