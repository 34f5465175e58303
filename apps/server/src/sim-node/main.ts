/**
 * The simulated node's process: `node --import tsx apps/server/src/sim-node/main.ts --data-dir <dir>
 * [--idle-stop-ms <n>]`. The server spawns it detached (link.ts), its output going to
 * `<dataDir>/sim-node.log`; it can also be started by hand. It runs until a server asks it to stop, until
 * SIGTERM or SIGINT, or until no server has spoken to it for the idle wait (default 10 min, SIM_NODE_IDLE_MS),
 * and exits 0 after removing its sockets; 1 if it cannot start (another node serves the directory).
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startNodeProcess } from './node.ts';
import { clockStateFromEnv, idleStopFromEnv } from './protocol.ts';

const log = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { 'data-dir': { type: 'string' }, 'idle-stop-ms': { type: 'string' } },
  });
  const dataDir = values['data-dir'];
  if (!dataDir) throw new Error('--data-dir is required');
  const idleText = values['idle-stop-ms'];
  if (idleText !== undefined && !/^\d+$/.test(idleText))
    throw new Error(`--idle-stop-ms must be a whole number of milliseconds, got ${idleText}`);
  const idleStopMs = idleText === undefined ? idleStopFromEnv() : Number(idleText);

  const node = await startNodeProcess({
    dataDir: resolve(dataDir),
    idleStopMs,
    log,
    clock: clockStateFromEnv(),
  });
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => void node.stop(`${sig}`));
  // A detached process has no terminal; should one hang up anyway, the node stays.
  process.on('SIGHUP', () => {});
  const reason = await node.stopped;
  log(`exit (${reason})`);
  process.exit(0);
}

main().catch((e) => {
  log(`cannot run: ${(e as Error).stack ?? String(e)}`);
  process.exit(1);
});
