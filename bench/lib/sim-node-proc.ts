/**
 * The simulated node in a process of its own, so a benchmark can charge the engine's process with the
 * engine's work only: `tsx bench/lib/sim-node-proc.ts <dir>/sim.sock`. It is the server's node process
 * (apps/server/src/sim-node/node.ts) on the data directory `<dir>`, without its idle stop. Prints
 * "ready <endpoint>"; SIGTERM stops it, and so does the end of stdin (the benchmark that started it is
 * gone, even killed with -9).
 */
import { basename, dirname, resolve } from 'node:path';
import { startNodeProcess } from '@syncscope/server/sim-node/node';
import { SIM_SOCKET } from '@syncscope/server/sim-node/protocol';

const socketPath = resolve(process.argv[2] ?? '');
if (basename(socketPath) !== SIM_SOCKET) throw new Error(`the socket must be <dir>/${SIM_SOCKET}`);
const node = await startNodeProcess({
  dataDir: dirname(socketPath),
  idleStopMs: 0,
  log: () => {},
});
process.stdout.write(`ready ${node.info().endpoint}\n`);
const stop = () => void node.stop('the benchmark ended');
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
await node.stopped;
process.exit(0);
