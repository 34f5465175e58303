/**
 * CrashLoopBackOff through the whole engine (Kubelet, runtime manager, PLEG, pod workers) on an in-process
 * simulated node and a FakeClock, in virtual seconds: the first exit restarts at once, then back-off 10s, 20s,
 * 40s, 1m20s, 2m40s, 5m0s, 5m0s; each restart comes at the first sync after the window (v1.32: the pod worker
 * requeues a failed sync after 10 s, jitter 0 here); the waiting reason and message are the kubelet's; and
 * after ten minutes of running the delay starts again at 10s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TraceEvent, TraceOf } from '../events/trace.ts';
import { scriptPod, simKubelet } from './testing/sim-kubelet.ts';

let logDir: string;
beforeEach(() => {
  logDir = mkdtempSync(join(tmpdir(), 'crashloop-'));
});
afterEach(() => rmSync(logDir, { recursive: true, force: true }));

function setup(script: string) {
  const { clock, trace, sim, kl } = simKubelet({ podLogsDirectory: logDir }, 200_000);
  const pod = scriptPod(clock, { uid: 'uid-1', name: 'cl' }, script, {
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 1,
  });
  kl.addPod(pod);
  kl.start();
  const t0 = clock.now();
  const starts = () =>
    trace
      .since(0, (e) => e.type === 'runtime.call' && e.method === 'StartContainer' && e.code === undefined)
      .map((e) => (e.time - t0) / 1000);
  const windows = () => {
    // one rung per window: the engine records a `backoff` event on every refused start within a window
    const seen = new Map<number, TraceOf<'backoff'>>();
    for (const e of trace.since(0, (e: TraceEvent) => e.type === 'backoff')) {
      const b = e as TraceOf<'backoff'>;
      if (b.kind === 'container' && !seen.has(b.until)) seen.set(b.until, b);
    }
    return [...seen.values()];
  };
  return { clock, trace, sim, kl, t0, starts, windows };
}

describe('CrashLoopBackOff in virtual seconds', () => {
  it('restarts at once after the first exit, then backs off 10s … 5m0s, each restart at the first sync after the window', async () => {
    const { clock, kl, t0, starts, windows } = setup('exit 1');
    await clock.stepUntil(() => windows().length >= 7, 20 * 60_000, 100);
    const w = windows();
    expect(w.map((b) => b.delayS)).toEqual([10, 20, 40, 80, 160, 300, 300]);
    const s = starts();
    // first exit → restarted at the next sync (the PLEG sees the exit within its 1 s relist)
    expect(s[1] as number).toBeLessThan((s[0] as number) + 2);
    // every later start comes after its window ends, at the first sync after it: within the 10 s requeue
    for (let i = 0; i < 6; i++) {
      const until = ((w[i] as TraceOf<'backoff'>).until - t0) / 1000;
      const next = s[i + 2] as number;
      expect(next, `start ${i + 2} after window ${i}`).toBeGreaterThanOrEqual(until);
      expect(next, `start ${i + 2} after window ${i}`).toBeLessThan(until + 11);
    }
    // the waiting reason comes from the reason cache, written by this sync and shown by the next one
    await clock.step(11_000);
    const app = kl.getPod('default', 'cl')?.status?.containerStatuses?.[0];
    expect(app?.state.waiting?.reason).toBe('CrashLoopBackOff');
    expect(app?.state.waiting?.message).toMatch(
      /^back-off (5m0s|2m40s) restarting failed container=app pod=cl_default\(uid-1\)$/,
    );
    expect(app?.lastState.terminated).toMatchObject({ exitCode: 1, reason: 'Error' });
    const backOffEvent = kl.getEvents().find((e) => e.reason === 'BackOff');
    expect(backOffEvent?.type).toBe('Warning');
    expect(backOffEvent?.message).toBe('Back-off restarting failed container app in pod cl_default(uid-1)');
    expect(backOffEvent?.count).toBeGreaterThan(5);
    await kl.stop();
  }, 60_000);

  it('logs the back-off 10s sync error once: the sandbox and the first exit, seen by one relist, make one sync', async () => {
    const { clock, kl, trace, windows } = setup('exit 1');
    await clock.stepUntil(() => windows().some((b) => b.delayS === 40), 120_000, 100);
    const errors = (delay: string) =>
      (trace.since(0, (e) => e.type === 'sync.result' && e.error !== undefined) as TraceOf<'sync.result'>[])
        .map((e) => e.error as string)
        .filter((m) => m.includes(`back-off ${delay} restarting failed container=app`));
    // one error per sync that meets a window: the 10 s window meets only the sync the exit's ContainerDied
    // brings (the requeue after its error comes 10 s later, when the window is over); the 20 s window meets
    // that one and the requeue 10 s after it (jitter 0 here)
    expect(errors('10s')).toHaveLength(1);
    expect(errors('20s')).toHaveLength(2);
    // the relist that sees the sandbox start and the first exit hands both events over before the worker
    // runs: the second update is coalesced into the first
    const updates = trace.since(
      0,
      (e) => e.type === 'worker.update' && e.updateType === 'SyncPodSync',
    ) as TraceOf<'worker.update'>[];
    expect(updates[1]?.coalesced).toBe(true);
    await kl.stop();
  }, 60_000);

  it('starts the ladder again at 10s after the container ran ten minutes', async () => {
    const { clock, kl, sim, trace, windows, starts } = setup('while true; do sleep 5; done');
    const crashed = new Set<string>();
    const startedApp = () =>
      trace
        .since(
          0,
          (e) => e.type === 'pleg.event' && e.event === 'ContainerStarted' && e.containerName === 'app',
        )
        .map((e) => (e as TraceOf<'pleg.event'>).containerID)
        .filter((id) => !crashed.has(id));
    /** Waits until the PLEG has seen a new instance of app running; returns its id. */
    const running = async () => {
      await clock.stepUntil(() => startedApp().length > 0, 10 * 60_000, 100);
      const id = startedApp()[0] as string;
      crashed.add(id);
      return id;
    };
    const crash = async () => sim.faults.exitContainer(await running(), 1);
    // three quick crashes: restart at once, then back-off 10s, then 20s
    await crash();
    await crash();
    await crash();
    await clock.stepUntil(() => windows().length >= 2, 5 * 60_000, 100);
    expect(windows().map((b) => b.delayS)).toEqual([10, 20]);
    // now it runs for 11 minutes, then fails: not in back-off (finished > 600 s after the last update)
    const id = await running();
    const before = starts().length;
    await clock.step(11 * 60_000);
    sim.faults.exitContainer(id, 1);
    await clock.stepUntil(() => starts().length > before, 5_000, 100);
    expect(starts().length).toBe(before + 1);
    expect(windows()).toHaveLength(2); // restarted without a back-off window
    // and the next quick crash is back at 10s
    await crash();
    await clock.stepUntil(() => windows().length >= 3, 5 * 60_000, 100);
    expect(windows()[2]?.delayS).toBe(10);
    await kl.stop();
  }, 60_000);
});
