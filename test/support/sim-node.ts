/**
 * The server as a user runs it (`node --import tsx apps/server/src/main.ts`), in a child process, and the
 * simulated node process it leaves in its data directory, seen from outside: its control socket
 * (`<dataDir>/sim-control.sock`, GET /info, POST /stop), its CRI socket and its pid.
 *
 * Waiting on another process is polling with a deadline (`until`); nothing here sleeps for a fixed time.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { until } from './until.ts';

export interface NodeInfo {
  pid: number;
  dataDir: string;
  endpoint: string;
  heartbeats: number;
  idleStopMs: number;
  clock: { speed: number };
}

function control(dataDir: string, method: string, path: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath: join(dataDir, 'sim-control.sock'), method, path, agent: false, timeout: 5_000 },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => {
          text += d.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || 'null') }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

/** The node serving dataDir, or undefined when none answers. */
export async function nodeInfo(dataDir: string): Promise<NodeInfo | undefined> {
  const res = await control(dataDir, 'GET', '/info').catch(() => undefined);
  return res?.status === 200 ? (res.body as NodeInfo) : undefined;
}

/** Stops the node serving dataDir, if one does (a test's cleanup after killing its server). */
export async function stopNode(dataDir: string): Promise<void> {
  const info = await nodeInfo(dataDir);
  await control(dataDir, 'POST', '/stop').catch(() => undefined);
  // gone, not only told: a node still writing its containers' logs would race a removal of its directory
  if (info)
    await until(`the simulated node ${info.pid} to exit`, () => !alive(info.pid)).catch(() => undefined);
}

/** Whether pid runs (a zombie counts as gone: it has exited, its parent has not reaped it yet). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
