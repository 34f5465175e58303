/**
 * The server's hold on its simulated node process: linkSimNode adopts the node already serving the data
 * directory (a server before this one died without stopping it) or spawns a new one, then keeps it alive
 * with heartbeats until close(). A node that dies under the server (its process gone: kill -9, a crash) is
 * seen at once (one this server spawned: its exit) or within LIVENESS_CHECK_MS (an adopted one: its pid),
 * reported through onChange and `state` (the server then has the kubelet check the runtime: the Node goes
 * NotReady, /readyz 503), and spawned again on the same sockets and the server's clock, after 0.5 s doubling
 * to 30 s while respawns keep dying within a minute (respawnDelay). The new node adopts the dead one's
 * sandboxes and containers from its state file (sim-persist.ts), as containerd restarted finds the
 * containers its shims kept running: the kubelet's relist sees the same containers, running or exited with
 * their codes, and restart counts go on.
 *
 * The node is spawned detached: its own session and process group, no tie to the server's stdio (its output
 * goes to <dataDir>/sim-node.log). So neither kill -9 of the server, nor a signal to the server's process
 * group (Ctrl-C in a terminal, a supervisor killing the group) reaches it; only the server's clean close()
 * stops it. A node whose socket file exists but does not answer is gone: the file is removed and a node
 * spawned.
 *
 * Its handle and state are ./link-state.ts, the routes' controls over it ./control.ts.
 *
 * Called once by buildApp, before the engine starts. close() is called by buildApp's close(); it may wait
 * up to its timeout for the node to stop.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { realpath, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { RealClockState } from '@syncscope/core/clock';
import { FILE_MODE } from '../store/atomic-file.ts';
import { setAsideIfNotPlain } from '../store/plain-file.ts';
import { SimNodeClient } from './client.ts';
import {
  describeDown,
  LIVENESS_CHECK_MS,
  type LinkOptions,
  processAlive,
  RESPAWN_RESET_MS,
  respawnDelay,
  type SimNodeLink,
  type SimNodeState,
  tail,
} from './link-state.ts';
import {
  CLOCK_STATE_ENV,
  CONTROL_SOCKET,
  IDLE_STOP_ENV,
  NODE_BUNDLE_ENV,
  NODE_LOG,
  type NodeInfo,
  SIM_SOCKET,
  SIM_STATE_FILE,
} from './protocol.ts';

const here = dirname(fileURLToPath(import.meta.url));
const BUNDLE = process.env[NODE_BUNDLE_ENV] || undefined;
const ENTRY = BUNDLE ?? join(here, 'main.ts');
/** How long a spawned node may take to answer (it compiles its TypeScript first). */
const SPAWN_TIMEOUT_MS = 30_000;
const POLL_MS = 25;
export async function linkSimNode(opts: LinkOptions): Promise<SimNodeLink> {
  const dataDir = await realpath(opts.dataDir);
  const client = new SimNodeClient(join(dataDir, CONTROL_SOCKET));
  const found = await client.info(2_000).catch(() => undefined);
  if (found && found.dataDir !== dataDir) {
    throw new Error(`${client.socketPath} answers for another data directory (${found.dataDir})`);
  }
  const adopted = found !== undefined;
  const listeners = new Set<(s: SimNodeState) => void>();
  let state: SimNodeState | undefined;
  let closed = false;
  let respawnTimer: ReturnType<typeof setTimeout> | undefined;
  const fresh = async (): Promise<NodeInfo> => {
    // Nothing answers: whatever socket files are left belong to a node that is gone.
    await rm(client.socketPath, { force: true });
    await rm(join(dataDir, SIM_SOCKET), { force: true });
    return spawnNode(dataDir, client, opts.idleStopMs, opts.clockState?.(), died, opts.warn);
  };
  let current: NodeInfo = found ?? (await fresh());
  state = { up: true, pid: current.pid, respawns: 0 };
  let upSince = Date.now();
  // spawns that came up but did not last RESPAWN_RESET_MS: each makes the next wait longer
  let unstable = 0;
  function set(s: SimNodeState): void {
    state = s;
    for (const l of [...listeners]) {
      try {
        l(s);
      } catch (e) {
        opts.warn(`simulated node: a listener failed: ${(e as Error).message}`);
      }
    }
  }

  // A node's death is seen from its pid (any node) or its exit (one this server spawned, at once). The
  // node's containers die with it; the server spawns another on the same sockets, with back-off.
  function died(why: string, pid: number): void {
    if (closed || !state?.up || pid !== current.pid) return;
    const now = Date.now();
    unstable = now - upSince < RESPAWN_RESET_MS && state.respawns > 0 ? unstable + 1 : 0;
    set({
      up: false,
      pid,
      why,
      since: now,
      respawnAt: now + respawnDelay(unstable),
      attempts: 0,
      respawns: state.respawns,
    });
    opts.warn(describeDown(state, now) ?? why);
    scheduleRespawn();
  }
  const scheduleRespawn = () => {
    if (closed || !state || state.up) return;
    respawnTimer = setTimeout(() => void respawn(), Math.max(0, state.respawnAt - Date.now()));
    respawnTimer.unref();
  };
  const respawn = async () => {
    if (closed || !state || state.up) return;
    const down = state;
    try {
      const next = await fresh();
      if (closed) {
        await client.stop(5_000).catch(() => {});
        return;
      }
      current = next;
      upSince = Date.now();
      opts.warn(`simulated node respawned: pid ${next.pid} (was ${down.pid}, ${down.why})`);
      set({ up: true, pid: next.pid, respawns: down.respawns + 1 });
      void client.heartbeat().catch(() => {});
    } catch (e) {
      if (closed) return;
      const attempts = down.attempts + 1;
      const now = Date.now();
      const again: SimNodeState = { ...down, attempts, respawnAt: now + respawnDelay(unstable + attempts) };
      set(again);
      opts.warn(
        `simulated node: respawn failed: ${(e as Error).message.split('\n')[0]}; ${describeDown(again, now)}`,
      );
      scheduleRespawn();
    }
  };
  const liveness = setInterval(() => {
    if (state?.up && !processAlive(current.pid)) died('its process is gone', current.pid);
  }, LIVENESS_CHECK_MS);
  liveness.unref();

  const idle = current.idleStopMs;
  const beatEvery = Math.max(50, Math.min(60_000, idle > 0 ? idle / 4 : 60_000));
  let warned = false;
  const beat = setInterval(() => {
    if (!state?.up) return;
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

  let closing: Promise<void> | undefined;
  return {
    client,
    get info() {
      return current;
    },
    adopted,
    get state() {
      return state as SimNodeState;
    },
    onChange(l) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    close(timeoutMs) {
      closing ??= (async () => {
        closed = true;
        clearInterval(beat);
        clearInterval(liveness);
        if (respawnTimer) clearTimeout(respawnTimer);
        const pid = current.pid;
        if (!state?.up) return;
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

/** Spawns the node detached and waits until its control socket answers (polling, with a deadline). */
async function spawnNode(
  dataDir: string,
  client: SimNodeClient,
  idleStopMs: number | undefined,
  clockState: RealClockState | undefined,
  onExit: (why: string, pid: number) => void,
  warn: (msg: string) => void,
): Promise<NodeInfo> {
  const logPath = join(dataDir, NODE_LOG);
  // opening a FIFO would wait for a reader for ever (here, or the node's read of its state)
  for (const file of [logPath, join(dataDir, SIM_STATE_FILE)])
    setAsideIfNotPlain(file, 'simulated node:', warn);
  const fd = openSync(logPath, 'a', FILE_MODE);
  let exited: string | undefined;
  try {
    const child = spawn(process.execPath, [...loaderArgs(), ENTRY, '--data-dir', dataDir], {
      detached: true,
      stdio: ['ignore', fd, fd],
      cwd: dirname(dirname(here)),
      env: {
        ...process.env,
        ...(idleStopMs === undefined ? {} : { [IDLE_STOP_ENV]: String(idleStopMs) }),
        ...(clockState === undefined ? {} : { [CLOCK_STATE_ENV]: JSON.stringify(clockState) }),
      },
    });
    child.once('exit', (code, signal) => {
      exited = signal ?? String(code);
      onExit(signal ? `killed by ${signal}` : `exited with code ${code}`, child.pid ?? -1);
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
  if (BUNDLE || !import.meta.url.endsWith('.ts')) return [];
  const loader = createRequire(import.meta.url).resolve('tsx');
  return ['--import', pathToFileURL(loader).href];
}
