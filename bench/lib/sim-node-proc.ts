/**
 * The simulated node in a process of its own, so a benchmark can charge the engine's process with the
 * engine's work only: `tsx bench/lib/sim-node-proc.ts <socket>`. Prints "ready <endpoint>"; SIGTERM closes it,
 * and so does the end of stdin (the benchmark that started it is gone, even killed with -9).
 */
import { RealClock } from '../../packages/core/src/clock/clock.ts';
import { CONTAINERD_LATENCY_MS, startSimNode } from '../../packages/core/src/sim/index.ts';

const socketPath = process.argv[2] ?? '';
const sim = await startSimNode({ socketPath, clock: new RealClock(), callLatencyMs: CONTAINERD_LATENCY_MS });
process.stdout.write(`ready ${sim.endpoint}\n`);
const stop = () => {
  void sim.close().finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
