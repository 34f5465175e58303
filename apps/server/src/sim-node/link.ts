/**
 * The server's hold on its simulated node process: linkSimNode adopts the node already serving the data
 * directory (a server before this one died without stopping it) or spawns a new one, then keeps it alive
 * with heartbeats until close().
 *
 * The node is spawned detached: its own session and process group, no tie to the server's stdio (its output
 * goes to <dataDir>/sim-node.log). So neither kill -9 of the server, nor a signal to the server's process
 * group (Ctrl-C in a terminal, a supervisor killing the group) reaches it; only the server's clean close()
 * stops it. A node whose socket file exists but does not answer is gone: the file is removed and a node
 * spawned.
 *
 * Called once by buildApp, before the engine starts. close() is called by buildApp's close(); it may wait
 * up to its timeout for the node to stop.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { realpath, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { RealClock } from '@syncscope/core/clock';
import type { RuntimeService } from '@syncscope/core/cri';
import type { SimControl } from '../sim-control.ts';
import { SimNodeClient } from './client.ts';
import { CONTROL_SOCKET, IDLE_STOP_ENV, NODE_LOG, type NodeInfo, SIM_SOCKET } from './protocol.ts';

const here = dirname(fileURLToPath(import.meta.url));
const ENTRY = join(here, 'main.ts');
/** How long a spawned node may take to answer (it compiles its TypeScript first). */
const SPAWN_TIMEOUT_MS = 30_000;
const POLL_MS = 25;

export interface SimNodeLink {
  client: SimNodeClient;
  /** The node as it was when linked (its clock state is what the server's clock takes). */
  info: NodeInfo;
  /** True when an already running node was adopted, false when this call spawned it. */
  adopted: boolean;
  /** Stops heartbeats, asks the node to stop, and waits (up to timeoutMs) for its process to end. */
  close(timeoutMs: number): Promise<void>;
}

export interface LinkOptions {
  dataDir: string;
  /** The node's idle wait when this call spawns it; default SIM_NODE_IDLE_MS or 10 min (protocol.ts). */
  idleStopMs?: number;
  warn(msg: string): void;
}

export async function linkSimNode(opts: LinkOptions): Promise<SimNodeLink> {
  const dataDir = await realpath(opts.dataDir);
  const client = new SimNodeClient(join(dataDir, CONTROL_SOCKET));
  let info = await client.info(2_000).catch(() => undefined);
  if (info && info.dataDir !== dataDir) {
    throw new Error(`${client.socketPath} answers for another data directory (${info.dataDir})`);
  }
  const adopted = info !== undefined;
  if (!info) {
    // Nothing answers: whatever socket files are left belong to a node that is gone.
    await rm(client.socketPath, { force: true });
    await rm(join(dataDir, SIM_SOCKET), { force: true });
    info = await spawnNode(dataDir, client, opts.idleStopMs);
  }

  const beatEvery = Math.max(50, Math.min(60_000, info.idleStopMs > 0 ? info.idleStopMs / 4 : 60_000));
  let warned = false;
  const beat = setInterval(() => {
    client.heartbeat().then(
      () => {
        warned = false;
      },
      (e: Error) => {
        if (!warned) opts.warn(`simulated node: heartbeat failed: ${e.message}`);
        warned = true;
      },
    );
  }, beatEvery);
  beat.unref();
  void client.heartbeat().catch(() => {});

  const pid = info.pid;
  let closing: Promise<void> | undefined;
  return {
    client,
    info,
    adopted,
    close(timeoutMs) {
      closing ??= (async () => {
        clearInterval(beat);
        const deadline = Date.now() + timeoutMs;
        try {
          await client.stop(timeoutMs);
        } catch (e) {
          opts.warn(`simulated node (pid ${pid}) did not stop when asked: ${(e as Error).message}`);
          return;
        }
        while (processAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      })();
      return closing;
    },
  };
}

/**
 * The simulated node's controls for the routes (routes/sim.ts) when the node is a process: faults over its
 * control socket, the lookups they need over CRI, and the speed set on the node first, then on `clock` to the
 * very state the node took (absent when the server does not own its clock).
 */
export function simNodeControl(
  link: SimNodeLink,
  cri: Pick<RuntimeService, 'listPodSandbox' | 'listContainers'>,
  clock: RealClock | undefined,
  record: SimControl['record'],
): SimControl {
  return {
    runtime: {
      faults: link.client.faults,
      listPodSandbox: (f) => cri.listPodSandbox(f),
      listContainers: (f) => cri.listContainers(f),
    },
    clock: clock && {
      get speed() {
        return clock.speed;
      },
      setSpeed: async (speed: number) => clock.setState(await link.client.setSpeed(speed)),
    },
    record,
  };
}

/** Spawns the node detached and waits until its control socket answers (polling, with a deadline). */
async function spawnNode(dataDir: string, client: SimNodeClient, idleStopMs?: number): Promise<NodeInfo> {
  const logPath = join(dataDir, NODE_LOG);
  const fd = openSync(logPath, 'a');
  let exited: string | undefined;
  try {
    const child = spawn(process.execPath, [...loaderArgs(), ENTRY, '--data-dir', dataDir], {
      detached: true,
      stdio: ['ignore', fd, fd],
      cwd: dirname(dirname(here)),
      env: { ...process.env, ...(idleStopMs === undefined ? {} : { [IDLE_STOP_ENV]: String(idleStopMs) }) },
    });
    child.once('exit', (code, signal) => {
      exited = signal ?? String(code);
    });
    child.unref();
  } finally {
    closeSync(fd);
  }
  const deadline = Date.now() + SPAWN_TIMEOUT_MS;
  for (;;) {
    const info = await client.info(1_000).catch(() => undefined);
    if (info) return info;
    if (exited !== undefined || Date.now() > deadline) {
      const why =
        exited !== undefined ? `exited (${exited})` : `did not answer within ${SPAWN_TIMEOUT_MS} ms`;
      throw new Error(`the simulated node ${why}; its log ${logPath} ends:\n${tail(logPath)}`);
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** The node runs from TypeScript source, as the server does: through tsx's loader, found from here. */
function loaderArgs(): string[] {
  if (!import.meta.url.endsWith('.ts')) return [];
  const loader = createRequire(import.meta.url).resolve('tsx');
  return ['--import', pathToFileURL(loader).href];
}

function tail(path: string): string {
  try {
    return readFileSync(path, 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    return '(unreadable)';
  }
}

/** Whether pid is a live process (a zombie, exited but not yet reaped by its parent, counts as gone). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true;
  }
}
