/**
 * @kubernetes/client-node (the JavaScript client) against a server on the simulated node, through the
 * kubeconfig the server writes, the way its users call it: KubeConfig.loadFromFile, CoreV1Api for create,
 * list, read and delete, Watch on the pods while pods come and go, Log following a container, the previous
 * log of a crashed one, and Exec over the WebSocket with the command's Status.
 */
import { PassThrough } from 'node:stream';
import { CoreV1Api, Exec, KubeConfig, Log, type V1Pod, type V1Status, Watch } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/until.ts';
import { type Kubectl, startKubectl } from './kubectl-run.ts';

const NS = 'default';
const cleanups: (() => Promise<void>)[] = [];
let k: Kubectl;
let kc: KubeConfig;
let api: CoreV1Api;

beforeAll(async () => {
  k = await startKubectl(cleanups);
  kc = new KubeConfig();
  kc.loadFromFile(k.kubeconfig);
  api = kc.makeApiClient(CoreV1Api);
}, 60_000);

afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A pod as the client's users write one: a typed object, no apiVersion or kind. */
const pod = (name: string, script: string): V1Pod => ({
  metadata: { name },
  spec: {
    terminationGracePeriodSeconds: 1,
    containers: [{ name: 'app', image: 'busybox', command: ['sh', '-c', script] }],
  },
});

/** What a writable stream was given, as text, and a wait for a text in it. */
function collected() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (d: Buffer) => {
    text += d.toString();
  });
  return { stream, text: () => text, has: (s: string) => until(`"${s}"`, () => text.includes(s)) };
}

describe('@kubernetes/client-node', () => {
  it('creates, lists, reads, watches, follows logs, execs and deletes as its users write it', async () => {
    const seen: [string, string][] = [];
    const watching = await new Watch(kc).watch(
      `/api/v1/namespaces/${NS}/pods`,
      {},
      (type, obj: V1Pod) => seen.push([type, obj.metadata?.name ?? '']),
      () => undefined,
    );
    cleanups.push(async () => watching.abort());

    const created = [];
    for (const [name, script] of [
      ['js-web', 'echo one; echo two; sleep 3600'],
      ['js-crash', 'echo boom; exit 1'],
      ['js-churn', 'sleep 3600'],
    ] as const) {
      created.push(
        (await api.createNamespacedPod({ namespace: NS, body: pod(name, script) })).metadata?.name,
      );
    }
    expect(created).toEqual(['js-web', 'js-crash', 'js-churn']);
    const listed = (await api.listNamespacedPod({ namespace: NS })).items.map((p) => p.metadata?.name);
    expect(listed).toEqual(expect.arrayContaining(['js-web', 'js-crash', 'js-churn']));
    await until(
      'js-web Running',
      async () =>
        (await api.readNamespacedPod({ name: 'js-web', namespace: NS })).status?.phase === 'Running',
      60_000,
    );
    const churned = await api.deleteNamespacedPod({ name: 'js-churn', namespace: NS });
    expect(churned.metadata?.name).toBe('js-churn');

    // the log, read whole, then followed until its second line
    const log = await until('js-web log', async () => {
      const text = await api.readNamespacedPodLog({ name: 'js-web', namespace: NS });
      return text.includes('two') && text;
    });
    expect(log).toBe('one\ntwo\n');
    const followed = collected();
    const following = await new Log(kc).log(NS, 'js-web', 'app', followed.stream, { follow: true });
    await followed.has('two\n');
    following.abort();
    expect(followed.text()).toBe('one\ntwo\n');

    // the crashed container's previous instance, once the kubelet has restarted it
    const previous = await until(
      "js-crash's previous log",
      () => api.readNamespacedPodLog({ name: 'js-crash', namespace: NS, previous: true }),
      60_000,
    );
    expect(previous).toBe('boom\n');

    // exec: the command's output and its Success Status
    const out = collected();
    let status: V1Status | undefined;
    await new Exec(kc).exec(NS, 'js-web', 'app', ['echo', 'hi'], out.stream, null, null, false, (s) => {
      status = s;
    });
    await until('the exec Status', () => status);
    expect(status?.status).toBe('Success');
    expect(out.text()).toBe('hi\n');

    // the watch saw the pods come, change and go
    await until('js-churn DELETED', () => seen.some(([t, n]) => t === 'DELETED' && n === 'js-churn'), 60_000);
    expect(seen).toContainEqual(['ADDED', 'js-web']);
    expect(seen).toContainEqual(['ADDED', 'js-churn']);
    expect(seen).toContainEqual(['MODIFIED', 'js-web']);

    const deleted = [];
    for (const name of ['js-web', 'js-crash']) {
      deleted.push((await api.deleteNamespacedPod({ name, namespace: NS })).metadata?.name);
    }
    expect(deleted).toEqual(['js-web', 'js-crash']);
    await until('the pods gone', async () => {
      const left = (await api.listNamespacedPod({ namespace: NS })).items.map((p) => p.metadata?.name);
      return !left.some((n) => n?.startsWith('js-'));
    });
  }, 180_000);
});
