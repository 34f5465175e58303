/**
 * Every valid pod name works end to end on a real server (the simulated node, real HTTP on loopback), up
 * to the 253 characters the API allows: create, get, list, logs, delete to 404, and the dashboard's route.
 *
 * The pod log directory is `<ns>_<name>_<uid>`, which the kubelet does not shorten. Up to 255 bytes it is a
 * name like any other and the pod runs with its logs; past it the kubelet's mkdir fails, so the pod stays
 * Pending with FailedCreatePodSandBox, its logs answer the kubelet's "waiting to start", and it can still be
 * deleted.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Event, Pod, PodList } from '@syncscope/core/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const manifest = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: {
    terminationGracePeriodSeconds: 1,
    containers: [
      {
        name: 'app',
        image: 'busybox',
        command: ['sh', '-c', 'echo hello from a long name; sleep 3600'],
      },
    ],
  },
});

const url = (name: string, sub = '') => `${h.base}/api/v1/namespaces/default/pods/${name}${sub}`;

async function events(name: string): Promise<Event[]> {
  const list = (await (await fetch(`${h.base}/api/v1/events`)).json()) as { items: Event[] };
  return list.items.filter((e) => e.involvedObject.name === name);
}

async function deleteTo404(name: string): Promise<void> {
  const del = await fetch(url(name), { method: 'DELETE' });
  expect(del.status).toBe(200);
  await h.waitFor(`${name.slice(0, 12)}... gone`, () => h.built.engine.getPod('default', name) === undefined);
  const gone = await fetch(url(name));
  expect(gone.status).toBe(404);
  expect(await gone.json()).toMatchObject({ kind: 'Status', code: 404, message: `pods "${name}" not found` });
  const again = await fetch(url(name), { method: 'DELETE' });
  expect(again.status).toBe(404);
}

describe('long pod names', () => {
  it('runs a 210-character name (a 255-byte log directory) and serves its logs', async () => {
    const name = `r${'x'.repeat(208)}r`;
    expect(name.length).toBe(210);
    const created = await h.apply(manifest(name));
    expect(created.metadata.name).toBe(name);
    await h.waitForPod('default', name, 'Running', (p) => p.status?.phase === 'Running');
    const got = await fetch(url(name));
    expect(got.status).toBe(200);
    expect(((await got.json()) as Pod).metadata.uid).toBe(created.metadata.uid);
    const file = `${h.dataDir}/pods/default_${name}_${created.metadata.uid}/app/0.log`;
    await h.waitFor(
      'the log line on disk',
      () => existsSync(file) && readFileSync(file, 'utf8').includes('hello'),
    );
    const res = await fetch(url(name, '/log'));
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toBe('hello from a long name\n');
    await deleteTo404(name);
  });

  it('shows the kubelet failure for a 253-character name, and still gets, lists and deletes it', async () => {
    const name = `l${'o'.repeat(251)}g`;
    expect(name.length).toBe(253);
    const created = await h.apply(manifest(name));
    const uid = created.metadata.uid as string;
    const dir = `${h.dataDir}/pods/default_${name}_${uid}`;

    await h.waitFor('FailedCreatePodSandBox', () =>
      h.built.engine
        .getEvents()
        .some((e) => e.involvedObject.uid === uid && e.reason === 'FailedCreatePodSandBox'),
    );
    const [ev] = (await events(name)).filter((e) => e.reason === 'FailedCreatePodSandBox');
    expect(ev).toMatchObject({
      type: 'Warning',
      message: `Failed to create pod sandbox: mkdir ${dir}: file name too long`,
    });

    const got = await fetch(url(name));
    expect(got.status).toBe(200);
    const pod = (await got.json()) as Pod;
    expect(pod.status?.phase).toBe('Pending');
    expect(pod.status?.containerStatuses?.[0]?.state.waiting?.reason).toBe('ContainerCreating');

    const list = (await (await fetch(`${h.base}/api/v1/pods`)).json()) as PodList;
    expect(list.items.map((p) => p.metadata.name)).toContain(name);
    const nsList = (await (await fetch(`${h.base}/api/v1/namespaces/default/pods`)).json()) as PodList;
    expect(nsList.items.map((p) => p.metadata.name)).toContain(name);

    const logs = await fetch(url(name, '/log'));
    expect(logs.status).toBe(400);
    expect(await logs.json()).toMatchObject({
      kind: 'Status',
      code: 400,
      message: `container "app" in pod "${name}" is waiting to start: ContainerCreating`,
    });

    // a browser opening the dashboard's pod route gets the page (the route itself lives in the URL's hash)
    const page = await fetch(`${h.base}/pods/default/${name}`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);

    await deleteTo404(name);
  });

  it('answers a name past 253 characters with the 404 Status, not the framework', async () => {
    const name = 'x'.repeat(254);
    const res = await fetch(url(name));
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ kind: 'Status', message: `pods "${name}" not found` });
  });
});
