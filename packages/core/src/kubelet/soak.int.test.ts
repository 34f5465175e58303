/**
 * Soak: the whole engine (Kubelet facade, real runtime manager, PLEG, pod workers) on an in-process
 * SimRuntime and a FakeClock, 100 pods, 1% of CRI calls failing at random for 10 virtual minutes while
 * pods are replaced and containers die. Afterwards (faults off, a little more virtual time) the node must
 * have converged: every desired pod Running and Ready, one READY sandbox per pod and none for a pod no
 * longer desired, one running instance of each container, and no promise rejected without a handler.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Pod, rfc3339 } from '../api/v1.ts';
import { FakeClock } from '../clock/fake-clock.ts';
import type { CriRuntime } from '../cri/types.ts';
import { TraceRecorder } from '../events/recorder.ts';
import { criMethodName } from '../sim/faults.ts';
import { SimRuntime } from '../sim/sim-runtime.ts';
import { prng } from '../util/prng.ts';
import { Kubelet } from './kubelet.ts';

const PODS = 100;
const FAILURE_RATE = 0.01;
const SOAK_MS = 10 * 60_000;
const CONVERGE_LIMIT_MS = 5 * 60_000;

/**
 * The SimRuntime with a chance of failure on every unary CRI call: the call is armed to fail through the
 * simulator's own fault gate (sim.faults.failNext), so the error is what the runtime would return.
 */
function flaky(sim: SimRuntime, random: () => number) {
  const state = { enabled: true, calls: 0, failed: 0, byMethod: {} as Record<string, number> };
  const cri = new Proxy(sim, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (typeof v !== 'function' || typeof prop !== 'string' || prop === 'getContainerEvents') return v;
      let method: string;
      try {
        method = criMethodName(prop);
      } catch {
        return v;
      }
      return (...args: unknown[]) => {
        state.calls++;
        if (state.enabled && random() < FAILURE_RATE) {
          state.failed++;
          state.byMethod[method] = (state.byMethod[method] ?? 0) + 1;
          target.faults.failNext(method, 1);
        }
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as CriRuntime;
  return { cri, state };
}

let logDir: string;
const rejections: unknown[] = [];
const onRejection = (reason: unknown) => rejections.push(reason);

beforeEach(() => {
  logDir = mkdtempSync(join(tmpdir(), 'soak-'));
  rejections.length = 0;
  process.on('unhandledRejection', onRejection);
});

afterEach(() => {
  process.off('unhandledRejection', onRejection);
  rmSync(logDir, { recursive: true, force: true });
});

describe('soak: 100 pods, 1% of CRI calls failing, 10 virtual minutes', () => {
  it('converges once the faults stop, with no leaked sandbox and no unhandled rejection', async () => {
    const random = prng(20260101);
    const clock = new FakeClock();
    const trace = new TraceRecorder(clock, 50_000);
    const sim = new SimRuntime({ clock });
    const { cri, state } = flaky(sim, random);
    const kl = new Kubelet({
      cri,
      clock,
      trace,
      config: { podLogsDirectory: logDir },
      runtimeEndpoint: 'sim',
      simulated: true,
      random,
    });

    let serial = 0;
    const newPod = (): Pod => {
      const n = serial++;
      return {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          uid: `soak-${n}`,
          name: `soak-${n}`,
          namespace: 'default',
          creationTimestamp: rfc3339(clock.now()),
        },
        spec: {
          containers: ['app', 'sidecar'].map((name) => ({
            name,
            image: 'busybox',
            imagePullPolicy: 'IfNotPresent' as const,
            command: ['sh', '-c', 'while true; do sleep 5; done'],
          })),
          restartPolicy: 'Always',
          terminationGracePeriodSeconds: 2,
        },
      };
    };
    const desired = new Set<string>();
    const add = () => {
      const p = newPod();
      desired.add(p.metadata.uid as string);
      kl.addPod(p);
    };
    for (let i = 0; i < PODS; i++) add();

    const wall0 = performance.now();
    kl.start();
    let churned = 0;
    let killed = 0;
    for (let t = 0; t < SOAK_MS; t += 1_000) {
      await clock.step(1_000);
      if (t % 30_000 === 29_000) {
        // replace a pod: graceful delete of one, a new one in its place
        const uids = [...desired];
        const victim = uids[Math.floor(random() * uids.length)] as string;
        desired.delete(victim);
        kl.deletePod(victim, 1);
        add();
        churned++;
      }
      if (t % 45_000 === 44_000) {
        const live = (await sim.listContainers({})).filter((c) => c.state === 'CONTAINER_RUNNING');
        const c = live[Math.floor(random() * live.length)];
        if (c) {
          sim.faults.exitContainer(c.id, 1);
          killed++;
        }
      }
    }
    state.enabled = false;
    sim.faults.clear();
    const soakWallMs = performance.now() - wall0;

    const converged = async (): Promise<string[]> => {
      const problems: string[] = [];
      const pods = kl.getPods();
      const uids = new Set(pods.map((p) => p.metadata.uid));
      for (const uid of desired) if (!uids.has(uid)) problems.push(`${uid} missing`);
      for (const p of pods) {
        if (!desired.has(p.metadata.uid)) problems.push(`${p.metadata.name} still listed`);
        const s = p.status;
        const ok =
          s?.phase === 'Running' &&
          s.containerStatuses?.length === 2 &&
          s.containerStatuses.every((c) => c.state.running !== undefined && c.ready);
        if (!ok) problems.push(`${p.metadata.name} not running: ${JSON.stringify(s?.containerStatuses)}`);
      }
      const ready = (await sim.listPodSandbox({})).filter((s) => s.state === 'SANDBOX_READY');
      const perPod = new Map<string, number>();
      for (const s of ready) perPod.set(s.metadata?.uid ?? '', (perPod.get(s.metadata?.uid ?? '') ?? 0) + 1);
      for (const [uid, n] of perPod) {
        if (!desired.has(uid)) problems.push(`leaked READY sandbox of ${uid}`);
        else if (n > 1) problems.push(`${n} READY sandboxes for ${uid}`);
      }
      const running = (await sim.listContainers({})).filter((c) => c.state === 'CONTAINER_RUNNING');
      const perCtr = new Map<string, number>();
      for (const c of running) {
        const key = `${c.labels['io.kubernetes.pod.uid']}/${c.metadata?.name}`;
        perCtr.set(key, (perCtr.get(key) ?? 0) + 1);
      }
      for (const [key, n] of perCtr) {
        if (!desired.has(key.split('/')[0] as string))
          problems.push(`container ${key} of a deleted pod runs`);
        else if (n > 1) problems.push(`${n} running instances of ${key}`);
      }
      return problems;
    };

    const settle0 = clock.now();
    let problems = await converged();
    while (problems.length > 0 && clock.now() - settle0 < CONVERGE_LIMIT_MS) {
      await clock.step(1_000);
      problems = await converged();
    }
    const convergeMs = clock.now() - settle0;
    const wallMs = performance.now() - wall0;
    await kl.stop();
    sim.shutdown();

    console.log(
      `soak: ${state.calls} CRI calls, ${state.failed} failed (${((100 * state.failed) / state.calls).toFixed(2)}%), ` +
        `${churned} pods replaced, ${killed} containers killed; soak ${(soakWallMs / 1000).toFixed(1)} s wall, ` +
        `converged ${convergeMs / 1000} s virtual after the faults stopped; total ${(wallMs / 1000).toFixed(1)} s wall; failed by method ${JSON.stringify(state.byMethod)}`,
    );
    expect(problems.slice(0, 10)).toEqual([]);
    expect(state.failed).toBeGreaterThan(0);
    expect(rejections).toEqual([]);
  }, 300_000);
});
