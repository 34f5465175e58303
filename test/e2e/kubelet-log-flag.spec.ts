/**
 * The real command writes <data-dir>/kubelet.log at the verbosity --v (or KUBELET_V) asks, with its own pid in
 * every header, and refuses a --v that is not a level.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WAIT_MS = 30_000;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

interface Child {
  proc: ChildProcess;
  base: string;
  exited: Promise<number | null>;
}

async function tmp(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'syncscope-klogv-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function run(
  args: string[],
  env: Record<string, string> = {},
): { proc: ChildProcess; exited: Promise<number | null>; err: () => string } {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', 'apps/server/src/main.ts', '--port', '0', '--no-examples', ...args],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LOG_LEVEL: 'error', ...env },
    },
  );
  let err = '';
  proc.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  cleanups.unshift(async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    await exited;
  });
  return { proc, exited, err: () => err };
}

async function start(args: string[], env: Record<string, string> = {}): Promise<Child> {
  const { proc, exited, err } = run(args, env);
  const base = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${err()}`)), WAIT_MS);
    proc.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/[^ ]+)/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    void exited.then(() => reject(new Error(`server exited: ${err()}`)));
  });
  return { proc, base, exited };
}

/** Polls a file written by another process until it holds `text` (with a deadline). */
async function waitForText(file: string, text: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const body = await readFile(file, 'utf8').catch(() => '');
    if (body.includes(text)) return;
    if (Date.now() > deadline) throw new Error(`${file} never held ${text}; it holds:\n${body.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'v-test' },
  spec: { containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'] }] },
};

async function applyAndStop(c: Child, log: string, waitFor: string): Promise<string> {
  const res = await fetch(`${c.base}/api/v1/namespaces/default/pods`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(pod),
  });
  expect(res.status).toBe(201);
  await waitForText(log, waitFor);
  c.proc.kill('SIGTERM');
  expect(await c.exited).toBe(0);
  return readFile(log, 'utf8');
}

describe('--v: the verbosity of kubelet.log', () => {
  it('--v 4 writes the pod worker lines, each header with the server pid', async () => {
    const dir = await tmp();
    const c = await start(['--data-dir', dir, '--v', '4']);
    const text = await applyAndStop(c, join(dir, 'kubelet.log'), '"SyncPod enter" pod="default/v-test"');
    const pid = String(c.proc.pid).padStart(7, ' ');
    expect(text).toMatch(
      new RegExp(`^I\\d{4} [\\d:.]+ ${pid} kubelet\\.go:\\d+\\] "Starting kubelet main sync loop"`),
    );
    expect(text).toContain('"SyncLoop ADD" source="api" pods=["default/v-test"]');
    expect(text).toContain('"Processing pod event" pod="default/v-test"');
  });

  it('KUBELET_V=1 leaves out the -v=2 lines; the -v=0 ones stay', async () => {
    const dir = await tmp();
    const c = await start(['--data-dir', dir], { KUBELET_V: '1' });
    const log = join(dir, 'kubelet.log');
    await waitForText(log, '"Starting kubelet main sync loop"');
    const res = await fetch(`${c.base}/api/v1/namespaces/default/pods`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(pod),
    });
    expect(res.status).toBe(201);
    c.proc.kill('SIGTERM');
    expect(await c.exited).toBe(0);
    const text = await readFile(log, 'utf8');
    expect(text).not.toContain('"SyncLoop ADD"');
    expect(text).not.toContain('"SyncLoop (PLEG): event for pod"');
  });

  it('refuses a --v that is not a level', async () => {
    const dir = await tmp();
    const { exited, err } = run(['--data-dir', dir, '--v', 'x']);
    expect(await exited).toBe(2);
    expect(err()).toContain('--v must be 0..10, got x');
  });
});
