/**
 * Watching through the real kubectl: `get pods -w` keeps printing server-side Table rows (READY, STATUS)
 * for the changes after its first list; `get events -w`, `get ns -w`, `get nodes -w` and `kubectl events -w`
 * stream instead of failing; the legacy `/api/v1/watch/...` paths answer WatchEvents. Pods are created with
 * kubectl while the watches run; each expectation waits on the output it needs.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Kubectl, podManifest, startKubectl } from './kubectl-run.ts';

const cleanups: (() => Promise<void>)[] = [];
let k: Kubectl;

beforeAll(async () => {
  k = await startKubectl(cleanups);
});

afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function create(name: string, ns = 'default'): Promise<void> {
  const path = join(k.dir, `${ns}-${name}.yaml`);
  await writeFile(path, podManifest(name));
  // without client-side validation: this spec is about watching
  await k.ok(['create', '--validate=false', '-n', ns, '-f', path]);
}

/** The first line of a watch stream at `path`, parsed. */
async function firstEvent(
  path: string,
): Promise<{ type: string; object: { kind: string; metadata: { name: string } } }> {
  const res = await fetch(`${k.server.base}${path}`);
  expect(res.status).toBe(200);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  let text = '';
  while (!text.includes('\n')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  await reader.cancel();
  return JSON.parse(text.slice(0, text.indexOf('\n')));
}

describe('kubectl watches', () => {
  it('get pods -w prints Table rows for every change', async () => {
    await create('listed');
    const w = k.watch(['get', 'pods', '-w']);
    // the first list; then a pod created while the watch runs
    await w.seen(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\n+listed\s/m);
    await create('watched');
    // a row after the first list, with the server's READY and STATUS
    await w.seen(/^watched\s+1\/1\s+Running\s+0\s+\S+$/m);
    w.stop();
  });

  it('get events -w, get ns -w and kubectl events -w stream what happens after they start', async () => {
    const events = k.watch(['get', 'events', '-w']);
    const ns = k.watch(['get', 'ns', '-w']);
    const kevents = k.watch(['events', '-w', '-n', 'later']);
    await ns.seen(/^default\s+Active/m);
    await k.ok(['create', 'namespace', 'later']).catch(() => undefined);
    await create('late', 'later');
    await ns.seen(/^later\s+Active\s+\S+$/m);
    await kevents.seen(/Normal\s+Started\s+Pod\/late\s+Started container app/);
    // `get events` watches the default namespace
    await create('noted');
    await events.seen(/Normal\s+Started\s+pod\/noted\s+Started container app/);
    for (const w of [events, ns, kevents]) {
      expect(w.out()).not.toMatch(/error|InternalError/i);
      w.stop();
    }
  });

  it('get nodes -w prints the node and keeps watching', async () => {
    const w = k.watch(['get', 'nodes', '-w']);
    await w.seen(/^\S+\s+Ready\s+<none>\s+\S+\s+v1\.32\.10$/m);
    await create('churn');
    await k.ok(['wait', '--for=condition=Ready', 'pod/churn', '--timeout=30s']);
    expect(w.out()).not.toMatch(/error/i);
    w.stop();
  });
});

describe('legacy watch paths', () => {
  it('answer WatchEvents for pods, one pod, namespaces and the node', async () => {
    await create('legacy');
    expect(await firstEvent('/api/v1/watch/namespaces/default/pods/legacy')).toMatchObject({
      type: 'ADDED',
      object: { kind: 'Pod', metadata: { name: 'legacy' } },
    });
    expect((await firstEvent('/api/v1/watch/pods')).object.kind).toBe('Pod');
    expect(await firstEvent('/api/v1/watch/namespaces/default')).toMatchObject({
      type: 'ADDED',
      object: { kind: 'Namespace', metadata: { name: 'default' } },
    });
    expect((await firstEvent('/api/v1/watch/nodes')).object.kind).toBe('Node');
    expect((await firstEvent('/api/v1/watch/events')).object.kind).toBe('Event');
  });

  it('answers a Table watch event with the columns first', async () => {
    const res = await fetch(`${k.server.base}/api/v1/watch/nodes`, {
      headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' },
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const { value } = await reader.read();
    await reader.cancel();
    const ev = JSON.parse(new TextDecoder().decode(value).split('\n')[0] ?? '');
    expect(ev.type).toBe('ADDED');
    expect(ev.object.kind).toBe('Table');
    expect(ev.object.columnDefinitions.map((c: { name: string }) => c.name)).toContain('Status');
    expect(ev.object.rows[0].cells[1]).toBe('Ready');
  });
});
