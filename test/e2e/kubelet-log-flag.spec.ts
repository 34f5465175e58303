/**
 * The real command writes <data-dir>/kubelet.log at the verbosity --v (or KUBELET_V) asks, with its own pid in
 * every header, and refuses a --v that is not a level.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ListeningServer,
  type ServerProcess,
  spawnServer,
  startServer,
  tempDir,
} from '../support/server-process.ts';
import { until } from '../support/until.ts';

const WAIT_MS = 30_000;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const tmp = () => tempDir('syncscope-klogv-', cleanups);
const start = (dir: string, args: string[], env: Record<string, string> = {}): Promise<ListeningServer> =>
  startServer(dir, cleanups, env, args);
const exitCode = async (c: ServerProcess) => (await c.exited).code;

/** Waits until a file written by another process holds `text`. */
const waitForText = (file: string, text: string) =>
  until(`${file} to hold ${text}`, async () => (await readFile(file, 'utf8')).includes(text), WAIT_MS, 100);

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'v-test' },
  spec: { containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'] }] },
};

async function applyAndStop(c: ListeningServer, log: string, waitFor: string): Promise<string> {
  const res = await fetch(`${c.base}/api/v1/namespaces/default/pods`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(pod),
  });
  expect(res.status).toBe(201);
  await waitForText(log, waitFor);
  c.proc.kill('SIGTERM');
  expect(await exitCode(c)).toBe(0);
  return readFile(log, 'utf8');
}

describe('--v: the verbosity of kubelet.log', () => {
  it('--v 4 writes the pod worker lines, each header with the server pid', async () => {
    const dir = await tmp();
    const c = await start(dir, ['--v', '4']);
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
    const c = await start(dir, [], { KUBELET_V: '1' });
    const log = join(dir, 'kubelet.log');
    await waitForText(log, '"Starting kubelet main sync loop"');
    const res = await fetch(`${c.base}/api/v1/namespaces/default/pods`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(pod),
    });
    expect(res.status).toBe(201);
    c.proc.kill('SIGTERM');
    expect(await exitCode(c)).toBe(0);
    const text = await readFile(log, 'utf8');
    expect(text).not.toContain('"SyncLoop ADD"');
    expect(text).not.toContain('"SyncLoop (PLEG): event for pod"');
  });

  it('refuses a --v that is not a level', async () => {
    const dir = await tmp();
    const c = spawnServer(dir, cleanups, {}, ['--v', 'x']);
    expect(await exitCode(c)).toBe(2);
    expect(c.stderr()).toContain('--v must be 0..10, got x');
  });
});
