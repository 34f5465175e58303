/**
 * OTLP export on the real command (`main.ts --otlp-endpoint URL`, bundled: test/support/server-bundle.ts)
 * to a collector stand-in on loopback that decodes every request with the official OTLP proto definitions
 * (test/support/otlp-receiver.ts):
 *
 *  (a) a crash-looping pod, then deleted: its trace (id = the pod UID's bytes) holds the pod-worker spans
 *      SyncPod → TerminatingPod → TerminatedPod, SyncPod runs inside the SyncPod span with CrashLoopBackOff
 *      errors as span status, StartContainer CRI calls as children of runs, BackOff span events; the resource
 *      says service.name=syncscope and k8s.node.name, spans carry the pod's attributes, and
 *      OTEL_EXPORTER_OTLP_HEADERS reaches the collector;
 *  (b) with the collector down (a refused port) and a small queue, the same load runs side by side with a
 *      server that does not export: /metrics counts the dropped spans, both engines bring their pods to the
 *      same states and the sync loop keeps turning (the time it takes is bench P8's figure);
 *  (c) a bad --otlp-endpoint exits 2 naming the flag;
 *  (d) `pnpm -s export-otlp` sends an imported kubelet log's trace once, each span under its log's node.
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Pod } from '@syncscope/core/api/v1';
import type { TraceEvent } from '@syncscope/core/trace';
import { outputOf } from '@syncscope/server/process-testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { example } from '../support/harness.ts';
import { type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver.ts';
import { useServerBundle } from '../support/server-bundle.ts';
import { ROOT, spawnServer, startServer, tempDir, waitOnStream } from '../support/server-process.ts';

const cleanups: (() => Promise<void>)[] = [];
// the server's main.ts, bundled once: a start costs Node's start, not a TypeScript load of every module
beforeAll(useServerBundle);
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Short back-offs, so a crash loop shows within seconds. */
async function fastBackOff(dir: string): Promise<string> {
  const file = join(dir, 'backoff.yaml');
  await writeFile(file, 'containerBackOffPeriodMs: 500\nmaxContainerBackOffMs: 2000\n');
  return file;
}

async function createPod(base: string, file: string, name?: string): Promise<Pod> {
  let body = await example(file);
  if (name) body = body.replace(/name: (crashloop|healthy)\n/, `name: ${name}\n`);
  const res = await fetch(`${base}/api/v1/namespaces/default/pods`, {
    method: 'POST',
    headers: { 'content-type': 'application/yaml' },
    body,
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as Pod;
}

/** A port nothing listens on: bound, then closed. */
async function refusedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

/** how many sync-loop iterations the server recorded after seq `since` */
async function loopIterations(base: string, since: number): Promise<number> {
  const page = (await (await fetch(`${base}/api/v1/trace?since=${since}&limit=100000`)).json()) as {
    items: TraceEvent[];
  };
  return page.items.filter((e) => e.type === 'loop.iteration').length;
}

describe('OTLP export', () => {
  it('sends a crash-looping pod as one trace of worker spans, sync runs, CRI calls and back-off events', async () => {
    const receiver = await startOtlpReceiver();
    cleanups.push(() => receiver.close());
    const dir = await tempDir('syncscope-otlp-', cleanups);
    const server = await startServer(
      join(dir, 'data'),
      cleanups,
      { OTEL_BSP_SCHEDULE_DELAY: '100', OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-token=s3cret' },
      ['--otlp-endpoint', receiver.url, '--config', await fastBackOff(dir)],
    );
    const pod = await createPod(server.base, 'crashloop.yaml');
    const { nodeName } = (await (await fetch(`${server.base}/api/v1/node`)).json()) as { nodeName: string };
    const traceId = (pod.metadata.uid ?? '').replace(/-/g, '');
    const mine = (s: ReceivedSpan[]) => s.filter((x) => x.traceId === traceId);

    // two refused restarts: CrashLoopBackOff runs with a BackOff event each
    await receiver.waitFor(
      (s) =>
        mine(s).filter(
          (x) => x.name === 'SyncPod' && x.status.code === 2 && x.status.message.includes('CrashLoopBackOff'),
        ).length >= 2,
      45_000,
      'CrashLoopBackOff runs',
    );
    const del = await fetch(`${server.base}/api/v1/namespaces/default/pods/crashloop`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    await receiver.waitFor((s) => mine(s).some((x) => x.name === 'TerminatedPod'), 45_000, 'TerminatedPod');

    const spans = mine(receiver.spans);
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const roots = spans.filter((s) => s.parentSpanId === '');
    expect(roots.map((s) => s.name)).toEqual(['SyncPod', 'TerminatingPod', 'TerminatedPod']);
    const [worker, terminating, terminated] = roots as [ReceivedSpan, ReceivedSpan, ReceivedSpan];
    expect(worker.endMs).toBeLessThanOrEqual(terminating.startMs);
    expect(terminating.endMs).toBeLessThanOrEqual(terminated.startMs);

    const runs = spans.filter((s) => s.parentSpanId === worker.spanId && s.name === 'SyncPod');
    const refused = runs.filter((r) => r.status.message.includes('CrashLoopBackOff'));
    expect(runs.length).toBeGreaterThanOrEqual(3);
    expect(refused.length).toBeGreaterThanOrEqual(2);
    for (const r of refused) {
      expect(r.status.code).toBe(2);
      expect(r.status.message).toContain('failed to "StartContainer" for "app" with CrashLoopBackOff');
    }
    const backoffs = spans.flatMap((s) => s.events.filter((e) => e.name === 'BackOff'));
    expect(backoffs.length).toBeGreaterThanOrEqual(2);
    expect(backoffs[0]?.attributes).toMatchObject({
      'k8s.container.name': 'app',
      'backoff.kind': 'container',
    });
    expect(spans.some((s) => s.events.some((e) => e.name === 'PLEG ContainerDied'))).toBe(true);

    const starts = spans.filter((s) => s.name === 'CRI StartContainer');
    expect(starts.length).toBeGreaterThanOrEqual(2);
    for (const s of starts) {
      const parent = byId.get(s.parentSpanId);
      expect(parent?.name).toBe('SyncPod');
      expect(parent?.parentSpanId).toBe(worker.spanId);
      expect(s.startMs).toBeGreaterThanOrEqual(parent?.startMs ?? Number.POSITIVE_INFINITY);
      expect(s.attributes).toMatchObject({ 'rpc.method': 'StartContainer', 'k8s.container.name': 'app' });
    }
    expect(spans.some((s) => s.parentSpanId === terminating.spanId && s.name === 'SyncTerminatingPod')).toBe(
      true,
    );

    for (const s of spans) {
      expect(s.resource).toMatchObject({ 'service.name': 'syncscope', 'k8s.node.name': nodeName });
      expect(s.attributes).toMatchObject({
        'k8s.pod.uid': pod.metadata.uid,
        'k8s.pod.name': 'crashloop',
        'k8s.namespace.name': 'default',
      });
    }
    const posts = receiver.requests.filter((r) => r.path === '/v1/traces');
    expect(posts.length).toBeGreaterThan(0);
    for (const r of posts) {
      expect(r.headers['content-type']).toBe('application/x-protobuf');
      expect(r.headers['x-collector-token']).toBe('s3cret');
    }
  });

  it('with the collector down, drops and counts spans while the engine brings every pod to its state', {
    timeout: 240_000,
  }, async () => {
    const dir = await tempDir('syncscope-otlp-down-', cleanups);
    const config = await fastBackOff(dir);
    const env = { OTEL_BSP_SCHEDULE_DELAY: '100', OTEL_BSP_MAX_QUEUE_SIZE: '20' };
    const dead = `http://127.0.0.1:${await refusedPort()}`;
    const [off, on] = await Promise.all([
      startServer(join(dir, 'off'), cleanups, env, ['--config', config]),
      startServer(join(dir, 'on'), cleanups, env, ['--otlp-endpoint', dead, '--config', config]),
    ]);
    for (const base of [off.base, on.base]) {
      for (let i = 0; i < 6; i++) await createPod(base, 'crashloop.yaml', `crash-${i}`);
      for (let i = 0; i < 6; i++) await createPod(base, 'healthy.yaml', `healthy-${i}`);
    }
    const dropped = async () => {
      const text = await (await fetch(`${on.base}/metrics`)).text();
      let n = 0;
      for (const m of text.matchAll(/^syncscope_otlp_spans_dropped_total\{reason="[a-z_]+"\} (\d+)/gm))
        n += Number(m[1]);
      return { n, text };
    };
    // the count lives in another process: read again whenever it streams trace events (whose spans are the ones
    // dropped); a timeout is reported by the assertion below, with the count
    await waitOnStream(on.base, '50 dropped spans', async () => (await dropped()).n >= 50, 40_000).catch(
      () => undefined,
    );
    const seen = await dropped();
    expect(seen.n).toBeGreaterThanOrEqual(50);
    expect(seen.text).toMatch(/^syncscope_otlp_spans_exported_total 0$/m);
    expect(seen.text).toMatch(/^syncscope_otlp_queue_spans \d+$/m);

    // the engine behind the dead collector does the same work as the one that does not export: every
    // crash-looping pod goes into CrashLoopBackOff and every healthy pod runs. A crash-looping pod leaves the
    // back-off each time it is restarted, so the pods seen in it are gathered over the reads, not all asked at once
    const seenInBackOff = new Map<string, Set<string>>();
    const states = async (base: string) => {
      const list = (await (await fetch(`${base}/api/v1/namespaces/default/pods`)).json()) as { items: Pod[] };
      let seenHere = seenInBackOff.get(base);
      if (!seenHere) {
        seenHere = new Set();
        seenInBackOff.set(base, seenHere);
      }
      let running = 0;
      for (const p of list.items) {
        const name = p.metadata.name ?? '';
        const waiting = p.status?.containerStatuses?.some(
          (c) => c.state?.waiting?.reason === 'CrashLoopBackOff',
        );
        if (name.startsWith('crash-') && waiting) seenHere.add(name);
        if (name.startsWith('healthy-') && p.status?.phase === 'Running') running++;
      }
      return `${seenHere.size} seen in CrashLoopBackOff, ${running} Running`;
    };
    const want = '6 seen in CrashLoopBackOff, 6 Running';
    // each server's trace stream wakes its check; a timeout is reported by the assertions below, with the states
    await Promise.all(
      [off.base, on.base].map((base) =>
        // 24 pods on two nodes beside the rest of the suite: each crash-looper's first back-off can take a while
        waitOnStream(base, want, async () => (await states(base)) === want, 90_000).catch(() => undefined),
      ),
    );
    expect(await states(off.base)).toBe(want);
    expect(await states(on.base)).toBe(want);
    // and its sync loop keeps turning: the iterations go on after the drops began (how long they take, with and
    // without a collector, is bench P8's figure, not a test's)
    const { next } = (await (await fetch(`${on.base}/api/v1/trace?podUID=none`)).json()) as { next: number };
    const iterationsSince = () => loopIterations(on.base, next);
    await waitOnStream(on.base, 'three loop iterations', async () => (await iterationsSince()) >= 3).catch(
      () => undefined,
    );
    const after = await iterationsSince();
    expect(after).toBeGreaterThanOrEqual(3);
  });

  it('refuses a bad --otlp-endpoint with exit code 2', async () => {
    const dir = await tempDir('syncscope-otlp-bad-', cleanups);
    // side by side: each exits before it would take the data dir's lock
    const children = ['not a url', 'ftp://127.0.0.1:4318'].map((url) =>
      spawnServer(join(dir, 'data'), cleanups, {}, ['--otlp-endpoint', url]),
    );
    for (const child of children) {
      const { code } = await child.exited;
      expect(code).toBe(2);
      expect(child.stderr()).toContain('--otlp-endpoint must be an http:// or https:// URL');
    }
  });

  it('export-otlp sends an imported kubelet log once, each span under its node', async () => {
    const receiver = await startOtlpReceiver();
    cleanups.push(() => receiver.close());
    const dir = await tempDir('syncscope-otlp-file-', cleanups);
    const log = join(
      ROOT,
      'packages/core/src/kubelet-log/testdata/03-v1.31-openshift-journald-v2-static-pods-probes-crashloop.log',
    );
    const ndjson = join(dir, 'trace.ndjson');
    const run = async (args: string[], stdout?: string) => {
      const done = await outputOf(spawn(process.execPath, args, { cwd: ROOT }));
      if (stdout) await writeFile(stdout, done.out);
      return done;
    };
    // what `pnpm -s import-log` runs: the tool as a cached bundle
    expect((await run(['scripts/bundled.mjs', 'import-log', log], ndjson)).code).toBe(0);
    const events = (await readFile(ndjson, 'utf8'))
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as TraceEvent);
    const nodes = new Set(events.flatMap((e) => (e.node ? [e.node] : [])));
    expect(nodes.size).toBeGreaterThan(0);

    const sent = await run([
      '--import',
      'tsx',
      'apps/server/src/otel/export-file.ts',
      ndjson,
      '--otlp-endpoint',
      receiver.url,
    ]);
    expect(sent.code, sent.err).toBe(0);
    expect(sent.err).toMatch(/\d+ spans sent to .*, 0 dropped/);
    const count = Number(/(\d+) spans sent/.exec(sent.err)?.[1]);
    expect(count).toBeGreaterThan(0);
    expect(receiver.spans).toHaveLength(count);
    for (const s of receiver.spans) expect(nodes.has(String(s.resource['k8s.node.name']))).toBe(true);
    const uids = new Set(
      events.flatMap((e) => ('podUID' in e && e.podUID ? [e.podUID.replace(/-/g, '')] : [])),
    );
    expect(receiver.spans.some((s) => uids.has(s.traceId))).toBe(true);
  });
});
