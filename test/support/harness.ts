/**
 * A running Syncscope for black-box tests: buildApp on a runtime (the simulated node, or any CRI endpoint such
 * as a private containerd), listening on a free loopback port, with helpers that talk to it only through its
 * HTTP API and its trace. Waiting is driven by trace events, never by fixed sleeps.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Pod } from '@syncscope/core/api/v1';
import { podUIDOf, type TraceEvent } from '@syncscope/core/trace';
import { type AppOptions, type BuiltApp, buildApp } from '@syncscope/server';
import { waitOnTrace } from './wait-trace.ts';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));

export interface Harness {
  built: BuiltApp;
  base: string;
  dataDir: string;
  apply(manifest: string | object, namespace?: string): Promise<Pod>;
  remove(namespace: string, name: string, gracePeriodSeconds?: number): Promise<Response>;
  pod(namespace: string, name: string): Promise<Pod | undefined>;
  waitFor(what: string, pred: () => boolean, timeoutMs?: number): Promise<void>;
  waitForPod(
    namespace: string,
    name: string,
    what: string,
    pred: (p: Pod) => boolean,
    timeoutMs?: number,
  ): Promise<Pod>;
  podTrace(uid: string): TraceEvent[];
  close(): Promise<void>;
}

export async function startHarness(
  opts: { runtimeEndpoint?: string; dataDir?: string; config?: AppOptions['config'] } = {},
): Promise<Harness> {
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'syncscope-test-')));
  const built = await buildApp({
    dataDir,
    examples: false,
    logger: false,
    ...(opts.runtimeEndpoint ? { runtimeEndpoint: opts.runtimeEndpoint } : {}),
    ...(opts.config ? { config: opts.config } : {}),
  });
  await built.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = built.app.server.address();
  if (typeof addr !== 'object' || !addr) throw new Error('no address');
  const base = `http://127.0.0.1:${addr.port}`;

  const waitFor = (what: string, pred: () => boolean, timeoutMs = 30_000): Promise<void> =>
    waitOnTrace(built.trace, what, pred, timeoutMs);

  const h: Harness = {
    built,
    base,
    dataDir,
    async apply(manifest, namespace = 'default') {
      const isText = typeof manifest === 'string';
      const res = await fetch(`${base}/api/v1/namespaces/${namespace}/pods`, {
        method: 'POST',
        headers: { 'content-type': isText ? 'application/yaml' : 'application/json' },
        body: isText ? manifest : JSON.stringify(manifest),
      });
      const body = await res.json();
      if (res.status !== 201) throw new Error(`apply failed ${res.status}: ${JSON.stringify(body)}`);
      return body as Pod;
    },
    remove(namespace, name, grace) {
      const q = grace === undefined ? '' : `?gracePeriodSeconds=${grace}`;
      return fetch(`${base}/api/v1/namespaces/${namespace}/pods/${name}${q}`, { method: 'DELETE' });
    },
    async pod(namespace, name) {
      return built.engine.getPod(namespace, name);
    },
    async waitForPod(namespace, name, what, pred, timeoutMs) {
      let found: Pod | undefined;
      await waitFor(
        `${namespace}/${name}: ${what}`,
        () => {
          found = built.engine.getPod(namespace, name);
          return found !== undefined && pred(found);
        },
        timeoutMs,
      );
      return found as Pod;
    },
    waitFor,
    podTrace(uid) {
      return built.trace.since(0, (e) => podUIDOf(e) === uid);
    },
    async close() {
      await built.close();
      if (!opts.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
  return h;
}

export async function example(file: string): Promise<string> {
  return readFile(join(EXAMPLES, file), 'utf8');
}
