/**
 * What P7 (b) and (c) both measure against: a simulated node in a process of its own holding `pods` pods of two
 * containers, started with bare CRI calls, and the engine's generic PLEG (1 s relist) over its CRI with no
 * engine behind it, as observe mode runs it. Also the floor both compare with (the bare list calls at the
 * relist's rate) and the CPU meter of one window.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GenericPLEG, KubeGenericRuntimeManager, PodCache } from '@syncscope/core';
import { RealClock } from '@syncscope/core/clock';
import { RemoteRuntime } from '@syncscope/core/cri';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import { defaultKubeletConfiguration } from '@syncscope/core/kubelet/configuration';
import { Recorder } from '@syncscope/core/kubelet/events/recorder';
import { rawBringUp } from './raw-cri.ts';
import { spawnTsx } from './spawn.ts';

const PERIOD_MS = 1_000;

export interface ObservedNode {
  cri: RemoteRuntime;
  clock: RealClock;
  trace: TraceRecorder;
  pleg: GenericPLEG;
  nodeName: string;
  close(): Promise<void>;
}

/** The node with its pods running and the PLEG past its first two relists (every pod's status read once). */
export async function startObservedNode(pods: number): Promise<ObservedNode> {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-bench-p7-'));
  const sim = await spawnTsx('bench/lib/sim-node-proc.ts', [join(dir, 'sim.sock')], 'ready ');
  const cri = new RemoteRuntime(sim.ready.slice('ready '.length).trim());
  const close = async () => {
    cri.close();
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await rawBringUp(cri, {
      n: pods,
      concurrency: 16,
      hostNetwork: false,
      logRoot: dir,
      prefix: 'obs',
      containers: 2,
    });
    const clock = new RealClock();
    const trace = new TraceRecorder(clock, 10_000);
    const config = { ...defaultKubeletConfiguration };
    const recorder = new Recorder(clock, trace, config.nodeName);
    const runtime = new KubeGenericRuntimeManager({ cri, clock, trace, recorder, config });
    const pleg = new GenericPLEG(
      runtime,
      new PodCache(),
      clock,
      trace,
      { relistPeriodMs: PERIOD_MS, relistThresholdMs: 180_000 },
      10_000,
    );
    await pleg.relist(); // every pod new: its status read once, before the steady state measured
    await pleg.relist();
    return { cri, clock, trace, pleg, nodeName: config.nodeName, close };
  } catch (e) {
    await close();
    throw e;
  }
}

/** CPU of this process over `ms` while `run` works, as a share of one core. */
async function cpuOver(ms: number, run: () => () => void): Promise<number> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const stop = run();
  await new Promise((r) => setTimeout(r, ms)); // the measurement window itself
  stop();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000 / (performance.now() - t0);
}

/**
 * The floor: ListPodSandbox + ListContainers, then the next round a period after the last ended (as wait.Until
 * does), for `ms`. Resolves with the share of a core and the rounds made. `beside` starts other bare work
 * measured in the same window, and returns its stop.
 */
export async function bareListCalls(
  cri: RemoteRuntime,
  ms: number,
  beside?: () => () => void,
): Promise<{ cpu: number; rounds: number }> {
  let rounds = 0;
  const cpu = await cpuOver(ms, () => {
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    const loop = async () => {
      await cri.listPodSandbox();
      await cri.listContainers();
      rounds++;
      if (!stopped) timer = setTimeout(() => void loop(), PERIOD_MS);
    };
    void loop();
    const stopBeside = beside?.();
    return () => {
      stopped = true;
      clearTimeout(timer);
      stopBeside?.();
    };
  });
  return { cpu, rounds };
}

/** The PLEG relisting on its own timer for `ms`: the share of a core. */
export function relisting(node: ObservedNode, ms: number): Promise<number> {
  return cpuOver(ms, () => {
    node.pleg.start();
    return () => node.pleg.stop();
  });
}
