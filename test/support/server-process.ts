/**
 * The real command in a child process: `node --import tsx apps/server/src/main.ts --port 0 --data-dir <dir>
 * --no-examples [args…]` (its bundle in a file that called useServerBundle, server-bundle.ts), one process
 * (so `kill -9` of its pid kills the server itself, not a wrapper). spawnServer returns at once (a server that must refuse to start is spawned this way);
 * startServer also waits for its "Syncscope listening on http://..." line. Every child is pushed onto the
 * caller's cleanups, which kill it (SIGKILL) if it still runs; so is every tempDir, which stops the
 * simulated node left in it and removes it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { HEAP_FLAGS } from '../../apps/server/src/heap.ts';
import { serverEntry } from './server-bundle.ts';
import { stopNode } from './sim-node.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const START_MS = 30_000;

export interface ServerProcess {
  proc: ChildProcess;
  pid: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves to the base URL once the server listens; rejects if it exits first. */
  listening: Promise<string>;
  stderr(): string;
}

export interface ListeningServer extends ServerProcess {
  base: string;
}

export function spawnServer(
  dataDir: string,
  cleanups: (() => Promise<void>)[],
  env: Record<string, string> = {},
  args: string[] = [],
): ServerProcess {
  const proc = spawn(
    process.execPath,
    [...HEAP_FLAGS, ...serverEntry(), '--port', '0', '--data-dir', dataDir, '--no-examples', ...args],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'error', ...env } },
  );
  let err = '';
  proc.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  cleanups.push(async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    await exited;
  });
  const listening = new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${err}`)), START_MS);
    proc.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/[^ ]+)/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`server exited: ${err}`));
    });
  });
  listening.catch(() => {}); // a server spawned to fail is awaited through `exited`
  return { proc, pid: proc.pid as number, exited, listening, stderr: () => err };
}

export async function startServer(
  dataDir: string,
  cleanups: (() => Promise<void>)[],
  env: Record<string, string> = {},
  args: string[] = [],
): Promise<ListeningServer> {
  const child = spawnServer(dataDir, cleanups, env, args);
  return { ...child, base: await child.listening };
}

/** kill -9, resolved once the process is gone (reaped: its pid no longer answers). */
export async function killHard(child: ServerProcess): Promise<void> {
  child.proc.kill('SIGKILL');
  const { signal } = await child.exited;
  if (signal !== 'SIGKILL') throw new Error(`server exited by itself (${signal}): ${child.stderr()}`);
}

/**
 * A fresh directory under the system's temp dir, removed by the cleanups, which first stop the simulated
 * node processes serving it or a directory in it, if any (a server killed with -9 leaves its node running),
 * and wait until they are gone.
 */
export async function tempDir(prefix: string, cleanups: (() => Promise<void>)[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  cleanups.push(async () => {
    // the node of the dir itself, and of each data dir a test made inside it (two servers side by side)
    const inside = await readdir(dir, { withFileTypes: true }).catch(() => []);
    await Promise.all(
      [dir, ...inside.filter((d) => d.isDirectory()).map((d) => join(dir, d.name))].map(stopNode),
    );
    await rm(dir, { recursive: true, force: true, maxRetries: 5 });
  });
  return dir;
}

export async function getJSON<T>(url: string): Promise<T> {
  const res = await fetch(url);
  return (await res.json()) as T;
}

/** Resolves when check() holds, re-checked whenever the server streams trace events. */
export async function waitOnStream(
  base: string,
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 30_000,
): Promise<void> {
  const ws = new WebSocket(`${base.replace('http', 'ws')}/api/v1/trace/stream?since=0`);
  try {
    await new Promise<void>((resolve, reject) => {
      let busy = false;
      let again = false;
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
      const run = async () => {
        if (busy) {
          again = true;
          return;
        }
        busy = true;
        do {
          again = false;
          if (await check().catch(() => false)) {
            clearTimeout(timer);
            resolve();
            return;
          }
        } while (again);
        busy = false;
      };
      ws.on('message', () => void run());
      ws.on('error', reject);
    });
  } finally {
    ws.terminate();
  }
}
