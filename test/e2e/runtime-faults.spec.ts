/**
 * The runtime misbehaving, on the simulated node over real gRPC, driven through the HTTP API as a user would
 * (POST /api/v1/sim/faults) with the node's clock sped up 10× (PUT /api/v1/sim/speed) so the kubelet's
 * 30 s runtime threshold passes in seconds:
 *
 *  - an outage: the engine reports the runtime down (runtime.state trace, GET /api/v1/node, loop.skipped),
 *    keeps serving HTTP, and recovers when the runtime comes back, the pod's container untouched;
 *  - a slow runtime (every call 2 s): pods still start, no call hits a deadline, and a pod never has more
 *    than one sync in flight (sync.start / sync.result alternate per pod).
 */
import type { Pod } from '@syncscope/core/api/v1';
import type { TraceEvent, TraceOf } from '@syncscope/core/trace';
import { afterEach, describe, expect, it } from 'vitest';
import { example, type Harness, startHarness } from '../support/harness.ts';

const SPEED = 10;
let h: Harness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(): Promise<Harness> {
  h = await startHarness();
  const res = await fetch(`${h.base}/api/v1/sim/speed`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ speed: SPEED }),
  });
  expect(res.status).toBe(200);
  return h;
}

async function fault(h: Harness, body: object): Promise<void> {
  const res = await fetch(`${h.base}/api/v1/sim/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

const isRunning = (p: Pod) =>
  p.status?.phase === 'Running' &&
  (p.status.containerStatuses ?? []).length > 0 &&
  (p.status.containerStatuses ?? []).every((c) => c.state.running !== undefined);

const after = (h: Harness, seq: number, type: TraceEvent['type']) =>
  h.built.trace.since(seq, (e) => e.type === type);

describe('runtime faults over CRI gRPC', () => {
  it('an outage: runtime reported down, HTTP still served, recovery afterwards', async () => {
    const h = await start();
    const pod = await h.apply(await example('healthy.yaml'));
    const uid = pod.metadata.uid as string;
    const before = await h.waitForPod('default', 'healthy', 'Running', isRunning);
    const containerID = before.status?.containerStatuses?.[0]?.containerID;

    const mark = h.built.trace.next - 1;
    await fault(h, { kind: 'outage', seconds: 60 });
    // the kubelet calls the runtime down once its last good Status is maxWaitForContainerRuntime (30 s) old
    await h.waitFor('runtime.state: container runtime is down', () =>
      after(h, mark, 'runtime.state').some((e) =>
        (e as TraceOf<'runtime.state'>).errors.includes('container runtime is down'),
      ),
    );
    const down = (await (await fetch(`${h.base}/api/v1/node`)).json()) as {
      runtime: { ready: boolean; errors: string[] };
    };
    expect(down.runtime.ready).toBe(false);
    expect(down.runtime.errors).toContain('container runtime is down');
    await h.waitFor('loop.skipped', () => after(h, mark, 'loop.skipped').length >= 2);
    const skipped = after(h, mark, 'loop.skipped') as TraceOf<'loop.skipped'>[];
    expect(skipped[0]?.errors).toContain('container runtime is down');
    // still serving while the runtime is down
    expect((await fetch(`${h.base}/healthz`)).status).toBe(200);
    const pods = (await (await fetch(`${h.base}/api/v1/pods`)).json()) as { items: Pod[] };
    expect(pods.items.map((p) => p.metadata.uid)).toEqual([uid]);

    const downAt = h.built.trace.next - 1;
    await h.waitFor('runtime.state ready=true', () =>
      after(h, downAt, 'runtime.state').some((e) => (e as TraceOf<'runtime.state'>).ready),
    );
    const faultAt = after(h, mark, 'sim.fault')[0]?.time ?? 0;
    const states = (after(h, mark, 'runtime.state') as TraceOf<'runtime.state'>[]).map(
      (e) => `+${(e.time - faultAt) / 1000}s ready=${e.ready} ${JSON.stringify(e.errors)}`,
    );
    console.log(
      `outage of 60 s (virtual): runtime.state ${states.join(', ')}; ${after(h, mark, 'loop.skipped').length} loop.skipped`,
    );
    const up = (await (await fetch(`${h.base}/api/v1/node`)).json()) as { runtime: { ready: boolean } };
    expect(up.runtime.ready).toBe(true);
    // the loop runs again and the pod is as it was: same container, no restart
    const upAt = h.built.trace.next - 1;
    await h.waitFor(
      'a sync after recovery',
      () => h.built.trace.since(upAt, (e) => e.type === 'sync.result' && e.podUID === uid).length > 0,
    );
    const now = await h.waitForPod('default', 'healthy', 'Running after the outage', isRunning);
    expect(now.status?.containerStatuses?.[0]?.containerID).toBe(containerID);
    expect(now.status?.containerStatuses?.[0]?.restartCount).toBe(0);
  });

  it('a slow runtime: deadlines hold and a pod never has two syncs in flight', async () => {
    const h = await start();
    await fault(h, { kind: 'latency', ms: 2000 });
    const uids: string[] = [];
    for (const name of ['slow-a', 'slow-b', 'slow-c']) {
      const yaml = (await example('healthy.yaml')).replace('name: healthy', `name: ${name}`);
      uids.push((await h.apply(yaml)).metadata.uid as string);
    }
    for (const name of ['slow-a', 'slow-b', 'slow-c']) {
      await h.waitForPod('default', name, 'Running on a slow runtime', isRunning, 60_000);
    }
    // a few more syncs per pod in the slow steady state
    const mark = h.built.trace.next - 1;
    await h.waitFor(
      'two more syncs of every pod',
      () =>
        uids.every(
          (uid) => h.built.trace.since(mark, (e) => e.type === 'sync.result' && e.podUID === uid).length >= 2,
        ),
      60_000,
    );

    const calls = h.built.trace.since(0, (e) => e.type === 'runtime.call') as TraceOf<'runtime.call'>[];
    expect(calls.filter((c) => c.code === 4 || /deadline/i.test(c.error ?? ''))).toEqual([]);
    const slowCalls = calls.filter((c) => c.podUID !== undefined && uids.includes(c.podUID));
    expect(slowCalls.length).toBeGreaterThan(0);
    expect(Math.min(...slowCalls.map((c) => c.durationMs))).toBeGreaterThanOrEqual(2000);

    for (const uid of uids) {
      let inFlight = 0;
      let most = 0;
      let syncs = 0;
      for (const e of h.podTrace(uid)) {
        if (e.type === 'sync.start') {
          inFlight++;
          syncs++;
        } else if (e.type === 'sync.result') inFlight--;
        most = Math.max(most, inFlight);
        expect(inFlight).toBeGreaterThanOrEqual(0);
      }
      expect(syncs).toBeGreaterThanOrEqual(3);
      expect(most).toBe(1);
      // pod-scoped calls overlapping in time: the worker's own, plus at most a PLEG status read beside it
      const spans = slowCalls
        .filter((c) => c.podUID === uid)
        .map((c) => [c.time - c.durationMs, c.time] as const)
        .sort((a, b) => a[0] - b[0]);
      let overlap = 0;
      for (let i = 0; i < spans.length; i++) {
        const [s] = spans[i] as readonly [number, number];
        const open = spans.filter(([a, b]) => a <= s && b > s).length;
        overlap = Math.max(overlap, open);
      }
      console.log(
        `${uid}: ${syncs} syncs, ${spans.length} calls, at most ${overlap} calls in flight at once`,
      );
      expect(overlap).toBeLessThanOrEqual(2);
    }
  });
});
