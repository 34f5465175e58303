/**
 * The simulated node's process and the server that drives it agree on these: where the node's files are in
 * the data directory, and the control channel's requests and answers (HTTP/JSON over a unix socket).
 *
 * Control channel (node.ts serves it, client.ts calls it):
 *   GET  /info                 NodeInfo: who the node is, its clock, how long it waits without a heartbeat
 *   POST /heartbeat            a server is alive (any request counts as one)
 *   POST /faults/<method>      { args } → { detail }; 409 { message } when the fault layer refuses
 *   POST /probe/http           { url, timeoutMs } → HttpProbeAnswer, over the simulated pod network
 *   POST /probe/tcp            { host, port, timeoutMs } → TcpProbeAnswer
 *   POST /exec                 { containerId, cmd, stdin, timeoutS } → { stdout, stderr, exitCode }; 409 { message }
 *   PUT  /clock                { speed } → RealClockState after the change
 *   POST /stop                 stops the node (its containers end); answered once it has, then it exits
 * Errors: 400/404/409 with { message }.
 */
import type { RealClockState } from '@syncscope/core/clock';
import type { SimFaults } from '../sim-control.ts';

/** The node's CRI socket under the data directory. */
export const SIM_SOCKET = 'sim.sock';
/** The node's control socket under the data directory. */
export const CONTROL_SOCKET = 'sim-control.sock';
/** The node's sandboxes and containers (sim-persist.ts), under the data directory: a respawned node adopts them. */
export const SIM_STATE_FILE = 'sim-state.json';
/** Where the node's own stdout and stderr go, under the data directory. */
export const NODE_LOG = 'sim-node.log';

/** How long a node waits for a heartbeat before it stops by itself (a server that died and never came back). */
export const DEFAULT_IDLE_STOP_MS = 10 * 60_000;
/** The environment variable that shortens (or, with 0, disables) the wait above. */
export const IDLE_STOP_ENV = 'SIM_NODE_IDLE_MS';
/**
 * The clock a node takes at start (a RealClockState as JSON): a node the server respawns runs on the
 * server's time and speed, as the one before it did. Absent: the wall clock at speed 1.
 */
export const CLOCK_STATE_ENV = 'SIM_NODE_CLOCK';
/**
 * A JavaScript bundle of main.ts for the server to start its node from, without a TypeScript loader (the
 * test suite sets it: a node then starts on a fraction of the CPU). Absent: main.ts beside the link.
 */
export const NODE_BUNDLE_ENV = 'SIM_NODE_BUNDLE';

export interface NodeInfo {
  /** The data directory the node serves, as an absolute path with links resolved. */
  dataDir: string;
  pid: number;
  /** The CRI endpoint, `unix://<dataDir>/sim.sock`. */
  endpoint: string;
  clock: RealClockState;
  /** 0: the node never stops by itself. */
  idleStopMs: number;
  /** Heartbeats received since the node started. */
  heartbeats: number;
  /** Wall time the node started (ms since the epoch). */
  startedAt: number;
}

/** The fault-layer methods the control channel forwards: every one of SimFaults, and no other. */
export const FAULT_METHODS = [
  'exitContainer',
  'unknownContainer',
  'killSandbox',
  'outage',
  'failNext',
  'imageMissing',
  'restoreImage',
  'slowPull',
  'latency',
  'clear',
  'clearOne',
  'active',
] as const satisfies readonly (keyof SimFaults)[];
export type FaultMethod = (typeof FAULT_METHODS)[number];

// A SimFaults method missing from FAULT_METHODS makes this type `false` and the line below fail to compile.
type Missing = Exclude<keyof SimFaults, FaultMethod>;
const _complete: [Missing] extends [never] ? true : false = true;
void _complete;

/** The clock state from the environment (CLOCK_STATE_ENV), or undefined when absent or malformed. */
export function clockStateFromEnv(env: NodeJS.ProcessEnv = process.env): RealClockState | undefined {
  const text = env[CLOCK_STATE_ENV];
  if (!text) return undefined;
  try {
    const s = JSON.parse(text) as Partial<RealClockState>;
    const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
    if (finite(s.baseWall) && finite(s.baseVirtual) && finite(s.speed) && s.speed > 0)
      return { baseWall: s.baseWall, baseVirtual: s.baseVirtual, speed: s.speed };
  } catch {
    // a malformed value is the same as none
  }
  return undefined;
}

/** The idle wait from the environment: a whole number of milliseconds, else the default. */
export function idleStopFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const text = env[IDLE_STOP_ENV];
  if (text === undefined || text === '' || !/^\d+$/.test(text)) return DEFAULT_IDLE_STOP_MS;
  return Number(text);
}
