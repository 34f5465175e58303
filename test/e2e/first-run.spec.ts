/**
 * A newcomer's first run, in a fresh clone: the README's install and start command, a pod created, Ctrl-C;
 * then what the README's test command checks of the tree (lint over every file git does not ignore) still
 * passes, and git sees nothing new: whatever the run left behind (the data dir, the built web app) is ignored.
 * Slow (a clone and an install from pnpm's store), so it runs once, on the machine's own Node.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../support/server-process.ts';
import { stopNode } from '../support/sim-node.ts';

const run = promisify(execFile);
const PNPM = ['-y', 'pnpm@10.34.9'];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Resolves with the server's URL once the child prints its listening line; rejects if it exits first. */
function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`pnpm start exited ${code} before listening:\n${out}`)));
  });
}

describe.skipIf(process.env.SYNCSCOPE_NODE_LINE !== undefined)('a first run in a fresh clone', () => {
  it('pnpm start, a pod, Ctrl-C, then lint passes and git sees nothing new', async () => {
    const dir = join(await tempDir('syncscope-first-run-', cleanups), 'syncscope');
    await run('git', ['clone', '-q', ROOT, dir]);
    cleanups.push(() => stopNode(join(dir, '.syncscope'))); // the simulated node outlives the server
    await run('npx', [...PNPM, 'install', '--prefer-offline', '--frozen-lockfile'], { cwd: dir });

    const child = spawn('npx', [...PNPM, 'start'], {
      cwd: dir,
      detached: true, // its own process group, so that Ctrl-C reaches pnpm, tsx and the server as in a terminal
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PORT: '0', LOG_LEVEL: 'error' },
    });
    const exited = new Promise<string>((resolve) =>
      child.once('exit', (code, sig) => resolve(sig ?? `exit ${code}`)),
    );
    cleanups.push(async () => {
      try {
        process.kill(-(child.pid as number), 'SIGKILL'); // whatever of the group is left
      } catch {
        // the group is gone
      }
    });
    const base = await listening(child);
    const res = await fetch(`${base}/api/v1/namespaces/default/pods`, {
      method: 'POST',
      headers: { 'content-type': 'application/yaml' },
      body: 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: first\nspec:\n  containers:\n  - name: app\n    image: busybox\n',
    });
    expect(res.status).toBe(201);
    process.kill(-(child.pid as number), 'SIGINT');
    // npx ends with the signal, as in a terminal; the server under it has stopped and answers no more
    expect(['SIGINT', 'exit 0', 'exit 130']).toContain(await exited);
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();

    const lint = await run('npx', [...PNPM, 'lint'], { cwd: dir }).catch((e: { stdout: string }) => e);
    expect('code' in lint ? lint.stdout : '', 'pnpm lint after a run').toBe('');
    const { stdout: status } = await run('git', ['status', '--porcelain'], { cwd: dir });
    expect(status, 'files a run left that git does not ignore').toBe('');
  }, 600_000);
});
