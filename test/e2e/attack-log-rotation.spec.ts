/**
 * A chatty pod cannot fill the data disk: the real command (bundled) with --container-log-max-size and
 * --container-log-max-files rotates the container's log as the kubelet's container log manager does (every
 * 10 s a running container's log past the size is renamed and the runtime asked to reopen it; at most the
 * given number of files kept, the live one included). What a user sees on disk: the container's log
 * directory never holds more files than allowed, and the oldest lines are gone. Bad values of the flags
 * are refused with one line naming the flag.
 *
 * The server is another process: waiting is polling its files and API with a deadline.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Pod } from '@syncscope/core/api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { useServerBundle } from '../support/server-bundle.ts';
import { spawnServer, startServer, tempDir } from '../support/server-process.ts';
import { until } from '../support/until.ts';

const MAX_FILES = 2;
/** Two rounds of the manager's 10 s period, with room for a loaded machine. */
const ROTATED_MS = 90_000;

const cleanups: (() => Promise<void>)[] = [];
beforeAll(useServerBundle);
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A container that says `first` once, then writes a 1 KB line every loop turn. */
const CHATTY = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'chatty' },
  spec: {
    terminationGracePeriodSeconds: 1,
    containers: [
      {
        name: 'app',
        image: 'busybox',
        command: ['sh', '-c', `echo first; while true; do echo ${'x'.repeat(1000)}; done`],
      },
    ],
  },
};

/** Every file of the directory, gzipped ones inflated, as text. */
async function texts(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const name of await readdir(dir)) {
    const raw = await readFile(join(dir, name));
    out.set(name, name.endsWith('.gz') ? gunzipSync(raw).toString('utf8') : raw.toString('utf8'));
  }
  return out;
}

it('rotates a chatty container log: never more files than allowed, the oldest lines gone', async () => {
  const dataDir = await tempDir('syncscope-rotate-', cleanups);
  const s = await startServer(dataDir, cleanups, {}, [
    '--container-log-max-size',
    '16Ki',
    '--container-log-max-files',
    String(MAX_FILES),
  ]);
  const res = await fetch(`${s.base}/api/v1/namespaces/default/pods`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(CHATTY),
  });
  expect(res.status).toBe(201);
  const pod = (await res.json()) as Pod;
  const dir = join(dataDir, 'pods', `default_chatty_${pod.metadata?.uid}`, 'app');

  const first = await until('the first line in the live log', async () =>
    (await readFile(join(dir, '0.log'), 'utf8')).includes(' first\n'),
  );
  expect(first).toBe(true);
  // the round that rotates `first` away, then the one that removes the file it went to
  let most = 0;
  const gone = await until(
    'the first line gone from every file',
    async () => {
      const files = await texts(dir);
      most = Math.max(most, files.size);
      return files.size >= 2 && ![...files.values()].some((t) => t.includes(' first\n')) && files;
    },
    ROTATED_MS,
    200,
  );
  expect(most).toBeLessThanOrEqual(MAX_FILES);
  expect([...gone.keys()].sort()).toEqual(['0.log', expect.stringMatching(/^0\.log\.\d{8}-\d{6}$/)]);
  // the live log goes on after the rotations
  const live = (await readFile(join(dir, '0.log'), 'utf8')).split('\n')[0] ?? '';
  expect(live).toMatch(/ stdout F x{1000}$/);
});

it('refuses a size or a count the kubelet refuses, naming the flag', async () => {
  const dataDir = await tempDir('syncscope-rotate-flags-', cleanups);
  const bad = [
    ['--container-log-max-size', 'lots', '--container-log-max-size must be a size like 10Mi'],
    ['--container-log-max-files', '1', '--container-log-max-files must be a whole number >= 2, got 1'],
  ];
  for (const [flag, value, said] of bad) {
    const child = spawnServer(dataDir, cleanups, {}, [flag as string, value as string]);
    expect((await child.exited).code).toBe(2);
    expect(child.stderr()).toContain(said);
  }
});
