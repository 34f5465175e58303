/**
 * What the server's link to its simulated node process is made of: the handle linkSimNode returns
 * (SimNodeLink), the node's up or down state as the server sees it, the respawn back-off, and whether a pid
 * still runs and the tail of its log. The link itself is ./link.ts.
 */
import { readFileSync } from 'node:fs';
import type { RealClockState } from '@syncscope/core/clock';
import type { SimNodeClient } from './client.ts';
import type { NodeInfo } from './protocol.ts';

export interface SimNodeLink {
  client: SimNodeClient;
  /** The node as it was when linked, or respawned last (its clock state is what the server's clock takes). */
  readonly info: NodeInfo;
  /** True when an already running node was adopted, false when this call spawned it. */
  adopted: boolean;
  /** Whether the node process runs now, and if not, why and when the next respawn is. */
  readonly state: SimNodeState;
  /** Calls `l` on every change of `state` (the node died; a respawn failed; it runs again). */
  onChange(l: (state: SimNodeState) => void): () => void;
  /** Stops heartbeats and respawns, asks the node to stop, and waits (up to timeoutMs) for its process to end. */
  close(timeoutMs: number): Promise<void>;
}

/**
 * The node process as the server sees it. `up`: it runs (pid). Down: it died (`why`: how, e.g. `killed by
 * SIGKILL`), since `since` (wall ms); `respawnAt` is when the next spawn is tried, `attempts` the spawns
 * tried since it died (each failure doubles the wait, respawnDelay).
 */
export type SimNodeState =
  | { up: true; pid: number; respawns: number }
  | {
      up: false;
      pid: number;
      why: string;
      since: number;
      respawnAt: number;
      attempts: number;
      respawns: number;
    };

export interface LinkOptions {
  dataDir: string;
  /** The node's idle wait when this call spawns it; default SIM_NODE_IDLE_MS or 10 min (protocol.ts). */
  idleStopMs?: number;
  /** The clock a node spawned later (a respawn) starts on: the server's, so both keep one time. */
  clockState?: () => RealClockState;
  warn(msg: string): void;
}

/** The first respawn of a dead node is tried this long after its death is seen. */
const RESPAWN_INITIAL_MS = 500;
/** The longest wait between two respawns of a node that keeps failing to start. */
const RESPAWN_MAX_MS = 30_000;
/** A node that ran this long before it died counts as stable: its respawn waits start over from the first. */
export const RESPAWN_RESET_MS = 60_000;

/** How often the server checks that the node's pid still runs (a node it adopted is not its child). */
export const LIVENESS_CHECK_MS = 250;

/** The wait before spawn attempt `attempt` (0-based) of a dead node: 0.5 s doubling up to 30 s. */
export function respawnDelay(attempt: number): number {
  return Math.min(RESPAWN_MAX_MS, RESPAWN_INITIAL_MS * 2 ** Math.min(attempt, 16));
}

/** One line for a node that is down, for /healthz, /readyz and the server's log. */
export function describeDown(state: SimNodeState, now = Date.now()): string | undefined {
  if (state.up) return undefined;
  const inMs = Math.max(0, state.respawnAt - now);
  return `simulated node (pid ${state.pid}) is down: ${state.why}; respawn attempt ${state.attempts + 1} in ${(inMs / 1000).toFixed(1)} s`;
}

/** Whether pid is a live process (a zombie, exited but not yet reaped by its parent, counts as gone). */
export function processAlive(pid: number): boolean {
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

/** The last lines of a log file, for the error of a node that did not come up. */
export function tail(path: string): string {
  try {
    return readFileSync(path, 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    return '(unreadable)';
  }
}
