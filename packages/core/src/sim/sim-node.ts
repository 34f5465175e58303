import type { Clock } from '../clock/clock.ts';
import { serveCri } from '../cri/grpc-server.ts';
import type { ImageCatalogue } from './images.ts';
import { CONTAINERD_LATENCY_MS, SimRuntime } from './sim-runtime.ts';

export interface SimNodeOptions {
  socketPath: string;
  clock: Clock;
  images?: ImageCatalogue;
  podCidr?: string;
  /** Per-method CRI latency; defaults to containerd's measured medians so the node feels like one. */
  callLatencyMs?: Partial<Record<string, number>>;
  /** The node's state file (SimRuntimeOptions.statePath): a node started again on it adopts its containers. */
  statePath?: string;
  warn?: (msg: string) => void;
}

export interface SimNode {
  runtime: SimRuntime;
  /** `unix://<socketPath>`, what a CRI client dials. */
  endpoint: string;
  /** Stops serving and ends every container; the state file is removed unless `keepState`. */
  close(opts?: { keepState?: boolean }): Promise<void>;
}

/**
 * Starts the simulated node: a SimRuntime served over CRI gRPC on a unix socket. The server's main calls
 * this when no runtime endpoint is given; e2e tests call it to get a node they can also poke directly
 * (faults, probes) through `runtime`. close() stops the server and kills every container at once (and
 * removes the state file: a clean stop is a reboot).
 */
export async function startSimNode(opts: SimNodeOptions): Promise<SimNode> {
  const runtime = new SimRuntime({
    clock: opts.clock,
    images: opts.images,
    podCidr: opts.podCidr,
    callLatencyMs: opts.callLatencyMs ?? CONTAINERD_LATENCY_MS,
    ...(opts.statePath !== undefined ? { statePath: opts.statePath } : {}),
    ...(opts.warn ? { warn: opts.warn } : {}),
  });
  const server = await serveCri(runtime, opts.socketPath);
  return {
    runtime,
    endpoint: server.endpoint,
    close: async (closing = {}) => {
      await server.close();
      runtime.shutdown(closing);
      await runtime.whenStateRemoved();
    },
  };
}
