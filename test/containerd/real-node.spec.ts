/**
 * On a real containerd shared with others: the engine never touches what it did not create, reports a runtime
 * outage and recovers from it, and after a restart of the server adopts running containers (restart counts from
 * the annotations) instead of restarting them.
 */
import { RemoteRuntime } from '@syncscope/core';
import { foreignSandbox } from '@syncscope/core/testing/foreign-sandbox';
import {
  type PrivateContainerd,
  pauseContainerd,
  resumeContainerd,
  startPrivateContainerd,
} from '@syncscope/server/private-containerd';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { podManifest } from '../scenarios/scenarios.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let ctd: PrivateContainerd;
let h: Harness;
let cri: RemoteRuntime;
const dataDir = `/tmp/syncscope-realnode-data-${process.pid}`;

beforeAll(async () => {
  ctd = await startPrivateContainerd(`/tmp/syncscope-ctd-rn-${process.pid}`);
  cri = new RemoteRuntime(ctd.endpoint, { timeoutMs: 10_000 });
  h = await startHarness({ runtimeEndpoint: ctd.endpoint, dataDir });
}, 120_000);

afterAll(async () => {
  await h?.close();
  cri?.close();
  await ctd?.stop();
});

const housekeepings = () => h.built.trace.since(0).filter((e) => e.type === 'housekeeping').length;

describe('a containerd shared with others', () => {
  it('leaves sandboxes it did not create alone for ten housekeeping cycles and lists them as not managed', async () => {
    // looks like a kubelet's sandbox (same label keys), but without our ownership label
    const foreign = foreignSandbox('foreign', 'foreign-uid-1');
    const id = await cri.runPodSandbox(foreign);
    const start = housekeepings();
    await h.waitFor('ten housekeeping cycles', () => housekeepings() >= start + 10, 40_000);
    const st = await cri.podSandboxStatus(id);
    expect(st.status?.state).toBe('SANDBOX_READY');
    const calls = h.built.trace
      .since(0)
      .filter((e) => e.type === 'runtime.call' && /^(Stop|Remove)PodSandbox$/.test(e.method));
    expect(calls).toEqual([]);
    const res = await fetch(`${h.base}/api/v1/runtime/pods`);
    const body = (await res.json()) as { items: { id: string; managed: boolean; name: string }[] };
    expect(body.items.find((p) => p.id === 'foreign-uid-1')).toMatchObject({
      managed: false,
      name: 'foreign',
    });
    await cri.stopPodSandbox(id);
    await cri.removePodSandbox(id);
  }, 60_000);

  it('reports a runtime outage, keeps serving, and converges after it with no duplicate and no pod lost', async () => {
    await h.apply(
      podManifest('outage-a', {
        containers: [
          {
            name: 'app',
            image: 'busybox',
            imagePullPolicy: 'IfNotPresent',
            command: ['sh', '-c', 'while true; do sleep 1; done'],
          },
        ],
      }),
    );
    await h.waitForPod(
      'default',
      'outage-a',
      'Running',
      (p) => Boolean(p.status?.containerStatuses?.[0]?.state.running),
      30_000,
    );
    const createsBefore = h.built.trace
      .since(0)
      .filter(
        (e) => e.type === 'runtime.call' && e.method === 'CreateContainer' && e.pod === 'default/outage-a',
      ).length;

    await pauseContainerd(ctd.dir);
    await h.waitFor('runtime reported down', () => h.built.engine.nodeInfo().runtime.ready === false, 15_000);
    const node = await (await fetch(`${h.base}/api/v1/node`)).json();
    expect(node.runtime.ready).toBe(false);
    expect(h.built.trace.since(0).some((e) => e.type === 'runtime.state' && !e.ready)).toBe(true);
    // ~10 s of outage, measured on the trace's own clock
    const downAt = Date.now();
    await h.waitFor('10 s of outage', () => Date.now() - downAt >= 8_000, 15_000);
    await resumeContainerd(ctd.dir);
    const back = Date.now();
    await h.waitFor(
      'a relist succeeds again',
      () => {
        const last = h.built.trace.since(h.built.trace.next - 50).filter((e) => e.type === 'pleg.relist');
        return last.length > 0 && (last[last.length - 1]?.time ?? 0) >= back;
      },
      10_000,
    );
    const convergedMs = Date.now() - back;
    expect(convergedMs).toBeLessThan(2_000);
    await h.waitFor('runtime reported ready', () => h.built.engine.nodeInfo().runtime.ready, 10_000);
    const pod = h.built.engine.getPod('default', 'outage-a');
    expect(pod?.status?.containerStatuses?.[0]?.state.running).toBeDefined();
    expect(pod?.status?.containerStatuses?.[0]?.restartCount).toBe(0);
    const createsAfter = h.built.trace
      .since(0)
      .filter(
        (e) => e.type === 'runtime.call' && e.method === 'CreateContainer' && e.pod === 'default/outage-a',
      ).length;
    expect(createsAfter).toBe(createsBefore);
    const running = await cri.listContainers({
      state: { state: 'CONTAINER_RUNNING' },
      label_selector: { 'io.kubernetes.pod.name': 'outage-a' },
    });
    expect(running).toHaveLength(1);
  }, 90_000);

  it('adopts running containers after a server restart, with restart counts from the annotations', async () => {
    await h.apply(
      podManifest('adopt-a', {
        containers: [
          {
            name: 'app',
            image: 'busybox',
            imagePullPolicy: 'IfNotPresent',
            command: ['sh', '-c', 'sleep 1; exit 1'],
          },
        ],
      }),
    );
    const before = await h.waitForPod(
      'default',
      'adopt-a',
      'restarted once',
      (p) => (p.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1,
      40_000,
    );
    const count = before.status?.containerStatuses?.[0]?.restartCount ?? 0;
    await h.close();
    h = await startHarness({ runtimeEndpoint: ctd.endpoint, dataDir });
    const after = await h.waitForPod(
      'default',
      'adopt-a',
      'status read back',
      (p) => (p.status?.containerStatuses?.[0]?.restartCount ?? -1) >= count,
      30_000,
    );
    expect(after.metadata.uid).toBe(before.metadata.uid);
    expect(after.status?.containerStatuses?.[0]?.restartCount).toBeGreaterThanOrEqual(count);
    const healthy = await h.waitForPod(
      'default',
      'outage-a',
      'still running, adopted',
      (p) => Boolean(p.status?.containerStatuses?.[0]?.state.running),
      30_000,
    );
    expect(healthy.status?.containerStatuses?.[0]?.restartCount).toBe(0);
    // only this server's events (the journal brings the earlier history back too)
    const starts = h.built.trace.since(0).filter((e) => e.type === 'server.start');
    const since = starts[starts.length - 1]?.seq ?? 0;
    const creates = h.built.trace
      .since(since)
      .filter(
        (e) => e.type === 'runtime.call' && e.method === 'CreateContainer' && e.pod === 'default/outage-a',
      );
    expect(creates).toEqual([]);
  }, 120_000);
});
