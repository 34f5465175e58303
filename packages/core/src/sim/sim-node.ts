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
}

export interface SimNode {
  runtime: SimRuntime;
  /** `unix://<socketPath>`, what a CRI client dials. */
  endpoint: string;
  close(): Promise<void>;
}

/**
 * Starts the simulated node: a SimRuntime served over CRI gRPC on a unix socket. The server's main calls
 * this when no runtime endpoint is given; e2e tests call it to get a node they can also poke directly
 * (faults, probes) through `runtime`. close() stops the server and kills every container at once.
 */
export async function startSimNode(opts: SimNodeOptions): Promise<SimNode> {
  const runtime = new SimRuntime({
    clock: opts.clock,
    images: opts.images,
    podCidr: opts.podCidr,
    callLatencyMs: opts.callLatencyMs ?? CONTAINERD_LATENCY_MS,
  });
  const server = await serveCri(runtime, opts.socketPath);
  return {
    runtime,
    endpoint: server.endpoint,
    close: async () => {
      await server.close();
      runtime.shutdown();
    },
  };
}
