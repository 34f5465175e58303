/**
 * Damage in the data dir that a start must never wait on: a FIFO where the server or its simulated node
 * expects a file it opens (the node's log and state, the kubelet log the trace is written to, the https
 * port's certificate and key). Opening a FIFO blocks until someone opens its other end, so a start that
 * trusted the name would hang for ever. The real command (bundled) must start, move each aside with one
 * warning naming it, and serve: the node Ready, the https port answering with a certificate made anew.
 *
 * The server is another process: waiting is reading its output and polling its API with a deadline.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { useServerBundle } from '../support/server-bundle.ts';
import { spawnServer, tempDir } from '../support/server-process.ts';
import { until } from '../support/until.ts';

const TOKEN = 'damaged-files-token-0123456789';
/** A start takes seconds; one that waits on a FIFO never ends, and is killed by the cleanups. */
const START_MS = 60_000;

const cleanups: (() => Promise<void>)[] = [];
beforeAll(useServerBundle);
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

it('starts past a FIFO at each file it opens, moving each aside with one warning', async () => {
  const dataDir = await tempDir('syncscope-damaged-', cleanups);
  const fifos = ['sim-node.log', 'sim-state.json', 'kubelet.log', 'tls/serving.crt', 'tls/serving.key'].map(
    (f) => join(dataDir, f),
  );
  await mkdir(join(dataDir, 'tls'), { mode: 0o700 });
  execFileSync('mkfifo', fifos);

  const child = spawnServer(dataDir, cleanups, { SYNCSCOPE_TOKEN: TOKEN });
  let out = '';
  child.proc.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  // the kubeconfig line comes last, once the https port listens with its certificate
  const kubeconfig = await until(
    'the kubeconfig line',
    async () => {
      return /kubectl: kubectl --kubeconfig \S+ get pods \((https:\/\/[^)]+)\)/.exec(out)?.[1];
    },
    START_MS,
    100,
  );
  const base = /listening on (http:\/\/\S+)/.exec(out)?.[1] as string;

  const warnings = child.stderr().trim().split('\n');
  for (const f of fifos) {
    const said = warnings.filter((l) =>
      l.includes(`${f} is a FIFO, not expected there; moved to ${f}.damaged-`),
    );
    expect(said, `one warning for ${f} in:\n${child.stderr()}`).toHaveLength(1);
    const aside = (await readdir(dirname(f))).filter((n) => n.startsWith(`${basename(f)}.damaged-`));
    expect(aside).toHaveLength(1);
    expect((await stat(join(dirname(f), aside[0] as string))).isFIFO()).toBe(true);
  }
  // made anew as regular files: the node's log, and the certificate the https port serves
  for (const f of ['sim-node.log', 'tls/serving.crt', 'tls/serving.key'])
    expect((await stat(join(dataDir, f))).isFile()).toBe(true);
  expect(await readFile(join(dataDir, 'tls', 'serving.crt'), 'utf8')).toContain('BEGIN CERTIFICATE');

  // the node is up: /readyz answers ok
  const ready = await until(
    '/readyz ok',
    async () => {
      const res = await fetch(`${base}/readyz`);
      return res.status === 200 ? res.status : undefined;
    },
    START_MS,
    100,
  );
  expect(ready).toBe(200);
  expect(kubeconfig).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
});
