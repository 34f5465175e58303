import type { Clock } from '../clock/clock.ts';
import type { ImageCatalogue } from './images.ts';
import type { Program } from './process.ts';
import type { SimCallContext } from './sim-call-context.ts';
import { adoptedContainer, type SimState } from './sim-persist.ts';
import type { ContainerRecord, SandboxRecord } from './sim-state.ts';

// What a SimRuntime starts from: its options, the containerd latency table, and the records a node
// before it left in its state file.

export interface SimRuntimeOptions {
  clock: Clock;
  images?: ImageCatalogue;
  /** Pod IPs come from here; default 10.88.0.0/16. */
  podCidr?: string;
  /** The node's address (host-network pods listen here); default 192.0.2.2. */
  nodeIP?: string;
  /** Extra clock time per CRI method before it acts (see CONTAINERD_LATENCY_MS); none by default. */
  callLatencyMs?: Partial<Record<string, number>>;
  /** Programs by executable basename; default defaultPrograms(). */
  programs?: Map<string, Program>;
  /**
   * Where the node keeps its records (sim-persist.ts): read at construction, so a node started again on
   * the same file goes on with the sandboxes and containers it had; none kept without it.
   */
  statePath?: string;
  /** Reports a state file that cannot be read or written (default console.warn). */
  warn?: (msg: string) => void;
}

/** Median latencies measured of containerd 1.6 on a 2-vCPU VM, for a lifelike node. */
export const CONTAINERD_LATENCY_MS: Partial<Record<string, number>> = {
  RunPodSandbox: 60,
  StopPodSandbox: 45,
  RemovePodSandbox: 10,
  CreateContainer: 6,
  StartContainer: 45,
  RemoveContainer: 3,
  ExecSync: 20,
};

/** Takes back the records a node left (sim-persist.ts): running containers run on under their IDs. */
export function adoptSimState(
  state: SimState,
  sim: Pick<SimCallContext, 'store' | 'net' | 'images'>,
  launch: (c: ContainerRecord, sb: SandboxRecord) => void,
): void {
  for (const ref of state.images) sim.images.markPresent(ref);
  sim.store.networkReady = state.networkReady;
  for (const saved of state.sandboxes) {
    const sb = { ...saved };
    if (sb.ip && !sim.net.reserve(sb.ip, sb.netns)) sb.ip = '';
    sim.store.addSandbox(sb);
  }
  for (const saved of state.containers) {
    const sb = sim.store.sandboxes.get(saved.sandboxId);
    if (!sb) continue;
    const c = adoptedContainer(saved, sb);
    sim.store.addContainer(c);
    if (c.finishedAt) c.markExited();
    else if (c.startedAt) launch(c, sb);
  }
}
