/**
 * The pod API as a Kubernetes client uses it, over a real socket against the server on the simulated node
 * (real gRPC): watches (from a resourceVersion, bookmarks, timeout, selectors, MODIFIED on a container
 * restart, DELETED), PUT and the three PATCH types with the apiserver's refusals (422, 409, 415), and the
 * two-phase delete (both phases in the trace, a shorter grace wins, grace 0 removes at once).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from '@syncscope/core/api';
import type { TraceEvent } from '@syncscope/core/trace';
import { type BuiltApp, buildApp } from '@syncscope/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWatch, type WatchStream } from '../support/watch-client.ts';

let built: BuiltApp;
let dataDir: string;
let base: string;
const open: WatchStream[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'syncscope-kube-watch-'));
  built = await buildApp({ dataDir, examples: false, logger: false });
  await built.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = built.app.server.address();
  if (typeof addr !== 'object' || !addr) throw new Error('no address');
  base = `http://127.0.0.1:${addr.port}`;
});

afterAll(async () => {
  for (const w of open) w.close();
  await built?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const PODS = '/api/v1/namespaces/default/pods';

/** A Pod, a PodList's metadata or a Status: whatever the call answered, read loosely. */
type Body = Omit<Pod, 'kind'> & { kind: string; message: string; reason: string };

function manifest(
  name: string,
  opts: { labels?: Record<string, string>; command?: string; grace?: number } = {},
) {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: opts.labels ?? { app: name } },
    spec: {
      terminationGracePeriodSeconds: opts.grace ?? 30,
      containers: [{ name: 'app', image: 'busybox', command: ['sh', '-c', opts.command ?? 'sleep 3600'] }],
    },
  });
}

async function call(method: string, path: string, body?: string, type = 'application/json') {
  const res = await fetch(base + path, {
    method,
    ...(body !== undefined ? { body, headers: { 'content-type': type } } : {}),
  });
  return { code: res.status, body: (await res.json()) as Body };
}

async function create(name: string, opts?: Parameters<typeof manifest>[1]): Promise<Pod> {
  const r = await call('POST', PODS, manifest(name, opts));
  expect(r.code).toBe(201);
  return r.body as unknown as Pod;
}

async function watch(query: string, path = '/api/v1/pods'): Promise<WatchStream> {
  const w = await openWatch(`${base}${path}?${query}`);
  open.push(w);
  return w;
}

async function listVersion(): Promise<string> {
  const r = await call('GET', '/api/v1/pods');
  return r.body.metadata.resourceVersion as string;
}

function configOps(uid: string): string[] {
  return built.trace
    .since(0, (e) => e.type === 'config.update' && e.podUID === uid)
    .map((e) => (e as Extract<TraceEvent, { type: 'config.update' }>).op);
}

const running = (name: string) => (e: { type: string; object: Pod }) =>
  e.object.metadata.name === name && e.object.status?.phase === 'Running';

describe('watch', () => {
  it('without a version: ADDED for every pod, then each change; a container restart is MODIFIED; a delete ends in DELETED', async () => {
    await create('w-first');
    const w = await watch('watch=true');
    expect(w.status).toBe(200);
    expect(w.contentType).toMatch(/^application\/json/);
    await w.until('ADDED w-first', (e) => e.type === 'ADDED' && e.object.metadata.name === 'w-first');
    const crash = await create('w-crash', { command: 'exit 1' });
    await w.until('ADDED w-crash', (e) => e.type === 'ADDED' && e.object.metadata.uid === crash.metadata.uid);
    await w.until('MODIFIED with a restart', (e) => {
      const c = e.object.status?.containerStatuses?.[0];
      return e.type === 'MODIFIED' && e.object.metadata.name === 'w-crash' && (c?.restartCount ?? 0) >= 1;
    });
    // versions only grow
    const rvs = w.events.map((e) => Number(e.object.metadata.resourceVersion));
    expect(rvs.slice(1).every((rv, i) => rv >= (rvs[i] as number))).toBe(true);
    expect((await call('DELETE', `${PODS}/w-crash?gracePeriodSeconds=0`)).code).toBe(200);
    const gone = await w.until(
      'DELETED w-crash',
      (e) => e.type === 'DELETED' && e.object.metadata.name === 'w-crash',
    );
    expect(gone.object.metadata.uid).toBe(crash.metadata.uid);
  });

  it('from a resourceVersion: only what changed after it, each pod once, as it is now', async () => {
    const before = await create('w-from');
    const w0 = await watch('watch=1');
    await w0.until('w-from Running', running('w-from'));
    const rv = await listVersion();
    expect(
      (
        await call(
          'PATCH',
          `${PODS}/w-from`,
          '{"metadata":{"labels":{"tier":"x"}}}',
          'application/merge-patch+json',
        )
      ).code,
    ).toBe(200);
    const w = await watch(`watch=true&resourceVersion=${rv}`);
    const e = await w.until('MODIFIED w-from', (x) => x.object.metadata.name === 'w-from');
    expect(e.type).toBe('MODIFIED');
    expect(e.object.metadata.labels?.tier).toBe('x');
    expect(Number(e.object.metadata.resourceVersion)).toBeGreaterThan(Number(rv));
    expect(w.events.filter((x) => x.object.metadata.uid === before.metadata.uid)).toHaveLength(1);
    // nothing from before the version: no ADDED for pods that were there already
    expect(w.events.filter((x) => x.type === 'ADDED')).toEqual([]);
  });

  it('a bad or unreadable version is a 400 Status; a selector that cannot be read is a 400 Status', async () => {
    const bad = await call('GET', '/api/v1/pods?watch=true&resourceVersion=abc');
    expect(bad.code).toBe(400);
    expect(bad.body.kind).toBe('Status');
    const sel = await call('GET', '/api/v1/pods?watch=true&fieldSelector=spec.nope%3Dx');
    expect(sel.code).toBe(400);
    expect(sel.body.message).toContain('field label not supported: spec.nope');
  });

  it('timeoutSeconds ends the stream; allowWatchBookmarks sends a BOOKMARK with the newest version first', async () => {
    const rv = await listVersion();
    const w = await watch(`watch=true&resourceVersion=${rv}&timeoutSeconds=1&allowWatchBookmarks=true`);
    await w.ended; // the server ended it: the watch asked for no end of its own
    const last = w.events[w.events.length - 1];
    expect(last?.type).toBe('BOOKMARK');
    expect(Number(last?.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(rv));
  });

  it('selectors: a pod that starts to match is ADDED, one that stops is DELETED, others are not sent', async () => {
    const w = await watch('watch=true&labelSelector=team%3Dblue', PODS);
    await create('sel-red', { labels: { team: 'red' } });
    await create('sel-blue', { labels: { team: 'blue' } });
    await w.until('ADDED sel-blue', (e) => e.type === 'ADDED' && e.object.metadata.name === 'sel-blue');
    const patch = '{"metadata":{"labels":{"team":"green"}}}';
    expect((await call('PATCH', `${PODS}/sel-blue`, patch, 'application/merge-patch+json')).code).toBe(200);
    await w.until('DELETED sel-blue', (e) => e.type === 'DELETED' && e.object.metadata.name === 'sel-blue');
    expect(w.events.some((e) => e.object.metadata.name === 'sel-red')).toBe(false);

    const one = await watch('watch=true&fieldSelector=metadata.name%3Dsel-red');
    await one.until('ADDED sel-red', (e) => e.type === 'ADDED');
    await call(
      'DELETE',
      `${PODS}/sel-red`,
      '{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":1}',
    );
    await one.until('DELETED sel-red', (e) => e.type === 'DELETED');
    expect(one.events.every((e) => e.object.metadata.name === 'sel-red')).toBe(true);
  });
});

describe('writes', () => {
  it('strategic merge patch of an image restarts that container; the trace shows the UPDATE', async () => {
    const pod = await create('p-image', { grace: 1 });
    const w = await watch('watch=true&fieldSelector=metadata.name%3Dp-image');
    await w.until('Running', running('p-image'));
    const patch = '{"spec":{"containers":[{"name":"app","image":"busybox:latest"}]}}';
    const r = await call('PATCH', `${PODS}/p-image`, patch, 'application/strategic-merge-patch+json');
    expect(r.code).toBe(200);
    expect(r.body.spec.containers[0]?.image).toBe('busybox:latest');
    expect(r.body.spec.containers[0]?.command).toEqual(['sh', '-c', 'sleep 3600']); // merged by name, not replaced
    await w.until('restarted with the new image', (e) => {
      const c = e.object.status?.containerStatuses?.[0];
      return (c?.restartCount ?? 0) >= 1 && c?.state.running !== undefined;
    });
    expect(configOps(pod.metadata.uid as string)).toContain('UPDATE');
  });

  it('JSON patch and PUT; a failed test op is 422; a stale resourceVersion is 409', async () => {
    await create('p-json');
    const ops = '[{"op":"add","path":"/metadata/annotations","value":{"a":"1"}}]';
    const r = await call('PATCH', `${PODS}/p-json`, ops, 'application/json-patch+json');
    expect(r.code).toBe(200);
    expect(r.body.metadata.annotations).toEqual({ a: '1' });
    const failed = await call(
      'PATCH',
      `${PODS}/p-json`,
      '[{"op":"test","path":"/metadata/name","value":"x"}]',
      'application/json-patch+json',
    );
    expect(failed.code).toBe(422);

    const got = (await call('GET', `${PODS}/p-json`)).body;
    const replaced = { ...got, metadata: { ...got.metadata, labels: { app: 'p-json', put: 'yes' } } };
    const put = await call('PUT', `${PODS}/p-json`, JSON.stringify(replaced));
    expect(put.code).toBe(200);
    expect(put.body.metadata.labels?.put).toBe('yes');
    const stale = await call('PUT', `${PODS}/p-json`, JSON.stringify(replaced));
    expect(stale.code).toBe(409);
    expect(stale.body.message).toBe(
      'Operation cannot be fulfilled on pods "p-json": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it('an immutable field is 422 Invalid with the apiserver message; an unknown patch type is 415; nothing changes', async () => {
    const pod = await create('p-immutable');
    const r = await call(
      'PATCH',
      `${PODS}/p-immutable`,
      '{"spec":{"restartPolicy":"Never"}}',
      'application/merge-patch+json',
    );
    expect(r.code).toBe(422);
    expect(r.body.reason).toBe('Invalid');
    expect(r.body.message).toMatch(
      /^Pod "p-immutable" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers\[\*\].image`,`spec.initContainers\[\*\].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` \(only additions to existing tolerations\),`spec.terminationGracePeriodSeconds` \(allow it to be set to 1 if it was previously negative\)/,
    );
    const apply = await call('PATCH', `${PODS}/p-immutable`, '{}', 'application/apply-patch+yaml');
    expect(apply.code).toBe(415);
    expect(apply.body.reason).toBe('UnsupportedMediaType');
    expect(configOps(pod.metadata.uid as string)).toEqual(['ADD']);
  });

  it('DELETE preconditions: a wrong uid or resourceVersion is 409 and the pod stays', async () => {
    const pod = await create('d-pre');
    const uid = await call('DELETE', `${PODS}/d-pre`, '{"preconditions":{"uid":"not-it"}}');
    expect(uid.code).toBe(409);
    expect(uid.body.message).toBe(
      `Operation cannot be fulfilled on pods "d-pre": Precondition failed: UID in precondition: not-it, UID in object meta: ${pod.metadata.uid}`,
    );
    const rv = await call('DELETE', `${PODS}/d-pre`, '{"preconditions":{"resourceVersion":"1"}}');
    expect(rv.code).toBe(409);
    expect(rv.body.message).toContain(
      'Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta:',
    );
    expect((await call('GET', `${PODS}/d-pre`)).code).toBe(200);
    expect(configOps(pod.metadata.uid as string)).toEqual(['ADD']);
  });
});

describe('two-phase delete', () => {
  it('DELETE, then the final delete with grace 0 once the pod has terminated, then REMOVE', async () => {
    const pod = await create('d-two', { grace: 5 });
    const w = await watch('watch=true&fieldSelector=metadata.name%3Dd-two');
    await w.until('Running', running('d-two'));
    const r = await call('DELETE', `${PODS}/d-two`, '{"propagationPolicy":"Background"}');
    expect(r.code).toBe(200);
    expect(r.body.metadata.deletionGracePeriodSeconds).toBe(5);
    await w.until('DELETED', (e) => e.type === 'DELETED');
    expect(configOps(pod.metadata.uid as string)).toEqual(['ADD', 'DELETE', 'DELETE', 'REMOVE']);
    // the watcher saw the final delete's grace 0 before the object went
    const graces = w.events.map((e) => e.object.metadata.deletionGracePeriodSeconds);
    expect(graces).toContain(5);
    expect(graces).toContain(0);
    expect((await call('GET', `${PODS}/d-two`)).code).toBe(404);
  });

  it('a second DELETE with a shorter grace shortens it; a longer one does not', async () => {
    await create('d-short', { grace: 60, command: 'trap "" TERM; sleep 3600' });
    const w = await watch('watch=true&fieldSelector=metadata.name%3Dd-short');
    await w.until('Running', running('d-short'));
    const first = await call('DELETE', `${PODS}/d-short?gracePeriodSeconds=60`);
    expect(first.body.metadata.deletionGracePeriodSeconds).toBe(60);
    const shorter = await call('DELETE', `${PODS}/d-short`, '{"gracePeriodSeconds":2}');
    expect(shorter.body.metadata.deletionGracePeriodSeconds).toBe(2);
    const started = Date.parse(first.body.metadata.deletionTimestamp as string) - 60_000;
    expect(Date.parse(shorter.body.metadata.deletionTimestamp as string)).toBe(started + 2_000);
    const longer = await call('DELETE', `${PODS}/d-short?gracePeriodSeconds=100`);
    expect(longer.body.metadata.deletionGracePeriodSeconds).toBe(2);
    await w.until('DELETED', (e) => e.type === 'DELETED');
    // the kill that ended it was sent with the shorter grace, never a longer one after it
    const uid = first.body.metadata.uid as string;
    const stops = built.trace.since(
      0,
      (e) => e.type === 'runtime.call' && e.method === 'StopContainer' && e.podUID === uid,
    ) as Extract<TraceEvent, { type: 'runtime.call' }>[];
    expect(stops.at(-1)?.gracePeriodS).toBe(2);
  });

  it('gracePeriodSeconds=0 removes the API object at once; the kubelet still kills with its minimum grace', async () => {
    const pod = await create('d-zero', { grace: 30 });
    const w = await watch('watch=true&fieldSelector=metadata.name%3Dd-zero');
    await w.until('Running', running('d-zero'));
    const r = await call('DELETE', `${PODS}/d-zero`, '{"gracePeriodSeconds":0}');
    expect(r.code).toBe(200);
    expect((await call('GET', `${PODS}/d-zero`)).code).toBe(404);
    expect(configOps(pod.metadata.uid as string)).toEqual(['ADD', 'DELETE', 'REMOVE']);
    await w.until('DELETED', (e) => e.type === 'DELETED');
    // the name is free at once
    await create('d-zero');
    const uid = pod.metadata.uid as string;
    const stop = await new Promise<TraceEvent>((resolve) => {
      const find = () =>
        built.trace.since(
          0,
          (e) =>
            e.type === 'runtime.call' &&
            e.method === 'StopContainer' &&
            (e as { podUID?: string }).podUID === uid,
        )[0];
      const hit = find();
      if (hit) return resolve(hit);
      const off = built.trace.subscribe(() => {
        const h = find();
        if (h) {
          off();
          resolve(h);
        }
      });
    });
    expect((stop as { gracePeriodS?: number }).gracePeriodS).toBe(2);
  });
});
