/**
 * A second client: @kubernetes/client-node's list-and-watch informer against the real server process,
 * through a restart of that process (kill -9) on the same data directory. The informer lists once, then watches from
 * the list's resourceVersion; when the server goes away it is started again and resumes from the last
 * version it saw. It must see every change (none lost) and no change twice: after the restart an unchanged
 * pod is not reported again, as the apiserver would not report it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig, makeInformer, type V1Pod } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { killHard, startServer, tempDir } from '../support/server-process.ts';
import { until } from '../support/until.ts';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function podJSON(name: string, labels: Record<string, string> = {}): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: name, ...labels } },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'app', image: 'busybox', command: ['sh', '-c', 'sleep 3600'] }],
    },
  });
}

/** The newest seq in the data dir's trace journal (its newest segment's last line). */
function journalSeq(dataDir: string): number {
  const dir = join(dataDir, 'trace');
  const segments = readdirSync(dir)
    .filter((f) => f.endsWith('.ndjson'))
    .sort();
  const newest = segments[segments.length - 1];
  if (!newest) return 0;
  const lines = readFileSync(join(dir, newest), 'utf8').trimEnd().split('\n');
  const last = lines[lines.length - 1] ?? '';
  return Number(/"seq":(\d+)/.exec(last)?.[1] ?? 0);
}

/** The object as a change is told: everything but its resourceVersion. */
function content(pod: V1Pod): string {
  const { resourceVersion: _rv, ...metadata } = pod.metadata ?? {};
  return JSON.stringify({ ...pod, metadata });
}

describe('client-node informer through a server restart', () => {
  it('lists once, resumes from its resourceVersion, sees every change once', async () => {
    const dataDir = await tempDir('syncscope-informer-', cleanups);
    const port = await freePort();
    let server = await startServer(dataDir, cleanups, {}, ['--port', String(port)]);
    const base = server.base;
    const post = (name: string, labels?: Record<string, string>) =>
      fetch(`${base}/api/v1/namespaces/default/pods`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: podJSON(name, labels),
      });
    expect((await post('inf-a')).status).toBe(201);
    expect((await post('inf-b')).status).toBe(201);

    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'syncscope', server: base, skipTLSVerify: true }],
      users: [{ name: 'nobody' }],
      contexts: [{ name: 'syncscope', cluster: 'syncscope', user: 'nobody' }],
      currentContext: 'syncscope',
    });
    const api = kc.makeApiClient(CoreV1Api);
    let lists = 0;
    const informer = makeInformer(kc, '/api/v1/namespaces/default/pods', () => {
      lists++;
      return api.listNamespacedPod({ namespace: 'default' });
    });
    const seen: { kind: string; name: string; content: string }[] = [];
    for (const kind of ['add', 'update', 'delete'] as const) {
      informer.on(kind, (pod: V1Pod) =>
        seen.push({ kind, name: pod.metadata?.name ?? '', content: content(pod) }),
      );
    }
    let stopped = false;
    // the informer stops on a connection error; a client starts it again, and it resumes from its version
    informer.on('error', () => {
      if (!stopped) setTimeout(() => void informer.start().catch(() => {}), 300);
    });
    await informer.start();
    cleanups.push(async () => {
      stopped = true;
      await informer.stop();
    });
    const phase = (name: string) => informer.get(name, 'default')?.status?.phase;
    await until(
      'both pods Running in the cache',
      () => phase('inf-a') === 'Running' && phase('inf-b') === 'Running',
    );
    // let the pods settle (ready conditions), so what is in the cache is what the server holds
    await until('cache matches the server', async () => {
      const list = (await (await fetch(`${base}/api/v1/namespaces/default/pods`)).json()) as {
        items: V1Pod[];
      };
      return list.items.every((p) => {
        const c = informer.get(p.metadata?.name ?? '', 'default');
        return c?.metadata?.resourceVersion === p.metadata?.resourceVersion;
      });
    });
    const beforeRestart = seen.length;
    // the journal is written within 100 ms: wait until it holds what the informer saw, then kill -9 (the
    // simulated node keeps running, and the next server adopts its containers: the pods do not change)
    const rv = Math.max(...informer.list('default').map((p) => Number(p.metadata?.resourceVersion)));
    await until('the journal holds the versions seen', () => journalSeq(dataDir) >= rv);
    await killHard(server);
    server = await startServer(dataDir, cleanups, {}, ['--port', String(port)]);
    expect(server.base).toBe(base);

    // changes after the restart: one pod relabelled, one deleted, one created
    const patch = await fetch(`${base}/api/v1/namespaces/default/pods/inf-a`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: '{"metadata":{"labels":{"after":"restart"}}}',
    });
    expect(patch.status).toBe(200);
    expect(
      (await fetch(`${base}/api/v1/namespaces/default/pods/inf-b?gracePeriodSeconds=0`, { method: 'DELETE' }))
        .status,
    ).toBe(200);
    expect((await post('inf-c')).status).toBe(201);

    await until('the changes in the cache', () => {
      const a = informer.get('inf-a', 'default');
      return (
        a?.metadata?.labels?.after === 'restart' &&
        informer.get('inf-b', 'default') === undefined &&
        informer.get('inf-c', 'default')?.status?.phase === 'Running'
      );
    });
    // none lost
    const after = seen.slice(beforeRestart);
    // the restart itself is no change: the first thing told of inf-a after it is the new label
    const firstA = after.find((e) => e.name === 'inf-a');
    expect(firstA?.content).toContain('"after":"restart"');
    expect(
      after.some((e) => e.kind === 'update' && e.name === 'inf-a' && e.content.includes('"after":"restart"')),
    ).toBe(true);
    expect(after.some((e) => e.kind === 'delete' && e.name === 'inf-b')).toBe(true);
    expect(after.some((e) => e.kind === 'add' && e.name === 'inf-c')).toBe(true);
    // none twice: no pod is told twice in a row as the same object
    for (const name of ['inf-a', 'inf-b', 'inf-c']) {
      const mine = seen.filter((e) => e.name === name && e.kind !== 'delete').map((e) => e.content);
      const repeats = mine.filter((c, i) => i > 0 && c === mine[i - 1]);
      expect(repeats, `${name} told twice unchanged`).toEqual([]);
    }
    expect(
      seen
        .filter((e) => e.kind === 'add' && e.name !== 'inf-c')
        .map((e) => e.name)
        .sort(),
    ).toEqual(['inf-a', 'inf-b']);
    // it resumed from its version: one list, never a relist (no 410)
    expect(lists).toBe(1);
  });
});
