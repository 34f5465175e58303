/** Child processes a benchmark starts and must always stop (the finally of every caller). */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HEAP_FLAGS } from '@syncscope/server/heap';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');

/** Builds the web app for a browser benchmark: always at full size, at smoke size only when no build exists. */
export function ensureWebBuilt(smoke: boolean): void {
  const web = join(ROOT, 'apps', 'web');
  if (smoke && existsSync(join(web, 'dist', 'index.html'))) return;
  execFileSync(join(web, 'node_modules', '.bin', 'vite'), ['build', '--logLevel', 'warn'], {
    cwd: web,
    stdio: 'inherit',
  });
}

export interface Child {
  proc: ChildProcess;
  /** The first stdout line that matched the ready pattern. */
  ready: string;
  stop(): Promise<void>;
}

/** Spawns `tsx <script> ...args`, resolves once a stdout line starts with `readyPrefix`. */
export function spawnTsx(
  script: string,
  args: string[],
  readyPrefix: string,
  timeoutMs = 60_000,
): Promise<Child> {
  const proc = spawn(TSX, [...HEAP_FLAGS, join(ROOT, script), ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(t);
    }
  };
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${script} not ready after ${timeoutMs} ms`));
    }, timeoutMs);
    const onData = (d: Buffer) => {
      buf += d.toString();
      const line = buf.split('\n').find((l) => l.startsWith(readyPrefix));
      if (line === undefined) return;
      clearTimeout(timer);
      proc.stdout?.off('data', onData);
      resolve({ proc, ready: line, stop });
    };
    proc.stdout?.on('data', onData);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited (${code}) before it was ready`));
    });
  });
}

/** Collects a child's whole stdout (for children that report JSON when they end). */
export function collectStdout(proc: ChildProcess): Promise<string> {
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  return new Promise((r) => proc.once('exit', () => r(out)));
}

/** The first JSON object a child prints on a line of its own (children that report and stay up). */
export function jsonLineOf<T>(proc: ChildProcess): Promise<T> {
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l, i, all) => l.startsWith('{') && i < all.length - 1);
      if (line === undefined) return;
      proc.stdout?.off('data', onData);
      resolve(JSON.parse(line) as T);
    };
    proc.stdout?.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`exited (${code}) before its report`)));
  });
}
