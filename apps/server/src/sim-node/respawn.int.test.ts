/**
 * A simulated node process killed with -9 under a running server (integration: real processes and sockets).
 * What a user sees, event by event: the runtime goes (the kubelet's `runtime.state` turns not ready), the
 * Node is NotReady with the kubelet's reason, /readyz is a 503 naming the runtime and /healthz says why;
 * then the server spawns another node on the same sockets, the runtime comes back, the Node is Ready and the
 * pod runs on. The new node adopts the dead one's containers from its state file, as containerd restarted
 * finds what its shims kept running: a healthy pod keeps its container, a crash loop's restart count goes on.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from '@syncscope/core/api';
import type { TraceEvent } from '@syncscope/core/trace';
import { afterEach, describe, expect, it } from 'vitest';
import { example } from '../../../../test/support/harness.ts';
import { type BuiltApp, buildApp } from '../app.ts';
import { respawnDelay } from './link-state.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Resolves with the first trace event (from now on) that `pred` accepts. */
function nextEvent(built: BuiltApp, what: string, pred: (ev: TraceEvent) => boolean, ms = 30_000) {
  return new Promise<TraceEvent>((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`timed out after ${ms} ms waiting for ${what}`));
    }, ms);
    const off = built.trace.subscribe((ev) => {
      if (!pred(ev)) return;
      clearTimeout(timer);
      off();
      resolve(ev);
    });
  });
}

const runtimeState = (ready: boolean) => (ev: TraceEvent) =>
  ev.type === 'runtime.state' && ev.ready === ready;

const POD = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web' },
  spec: { containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'] }] },
};

describe('a simulated node killed with -9', () => {
  it('makes the Node NotReady and /readyz fail, and is respawned until the Node is Ready again', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'syncscope-respawn-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const warnings: string[] = [];
    const built = await buildApp({
      dataDir,
      examples: false,
      logger: false,
      warn: (m) => warnings.push(m),
    });
    cleanups.push(() => built.close());
    const get = (url: string) => built.app.inject({ method: 'GET', url });
    const readyCondition = async () => {
      const node = (await get('/api/v1/nodes')).json().items[0];
      return node.status.conditions.find((c: { type: string }) => c.type === 'Ready');
    };
    const running = (p: Pod | undefined) => p?.status?.containerStatuses?.[0]?.state?.running !== undefined;

    const created = await built.app.inject({
      method: 'POST',
      url: '/api/v1/namespaces/default/pods',
      payload: POD,
    });
    expect(created.statusCode, created.body).toBe(201);
    if (!running(built.engine.getPod('default', 'web')))
      await nextEvent(built, 'the pod running', () => running(built.engine.getPod('default', 'web')));
    expect((await get('/readyz')).body).toBe('ok');
    expect((await readyCondition()).status).toBe('True');

    const link = built.simNode;
    if (!link) throw new Error('no simulated node process');
    const oldPid = link.info.pid;
    const down = nextEvent(built, 'the runtime down', runtimeState(false));
    process.kill(oldPid, 'SIGKILL');
    await down;

    const notReady = await readyCondition();
    expect(notReady).toMatchObject({ status: 'False', reason: 'KubeletNotReady' });
    expect(notReady.message).toMatch(/container runtime/);
    const readyz = await get('/readyz');
    expect(readyz.statusCode).toBe(503);
    expect(readyz.body).toContain(`unix://${join(built.simNode?.info.dataDir ?? dataDir, 'sim.sock')}`);
    expect(readyz.body).toContain('readyz check failed');
    const health = (await get('/healthz')).body;
    if (!link.state.up)
      expect(health).toMatch(/^degraded: simulated node \(pid \d+\) is down: .*; respawn attempt \d+ in /);

    // respawned after the first back-off step, on the server's clock, and the kubelet sees it come back
    await nextEvent(built, 'the runtime ready again', runtimeState(true), 30_000 + respawnDelay(0));
    expect(link.state).toMatchObject({ up: true, respawns: 1 });
    expect(link.info.pid).not.toBe(oldPid);
    expect(warnings.some((w) => w.includes(`simulated node respawned: pid ${link.info.pid}`))).toBe(true);
    expect((await readyCondition()).status).toBe('True');
    expect((await get('/readyz')).body).toBe('ok');
    expect((await get('/healthz')).body).toBe('ok');

    // the pod runs on the new node
    if (!running(built.engine.getPod('default', 'web')))
      await nextEvent(built, 'the pod running again', () => running(built.engine.getPod('default', 'web')));
  }, 90_000);

  it("adopts the dead node's containers: the same running container, restart counts going on", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'syncscope-respawn-adopt-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const built = await buildApp({ dataDir, examples: false, logger: false, warn: () => {} });
    cleanups.push(() => built.close());
    const inject = (method: 'POST' | 'PUT', url: string, payload: string | object) =>
      built.app.inject({
        method,
        url,
        payload,
        headers: { 'content-type': typeof payload === 'string' ? 'application/yaml' : 'application/json' },
      });
    // ten times faster, so the crash loop's back-off (10 s, 20 s) passes in seconds
    expect((await inject('PUT', '/api/v1/sim/speed', { speed: 10 })).statusCode).toBe(200);
    for (const file of ['healthy.yaml', 'crashloop.yaml']) {
      const created = await inject('POST', '/api/v1/namespaces/default/pods', await example(file));
      expect(created.statusCode, created.body).toBe(201);
    }
    const app = (name: string) => built.engine.getPod('default', name)?.status?.containerStatuses?.[0];
    const until = (what: string, check: () => boolean) =>
      check() ? Promise.resolve() : nextEvent(built, what, check, 60_000).then(() => undefined);
    await until('healthy running, crashloop restarted twice', () =>
      Boolean(app('healthy')?.state.running && (app('crashloop')?.restartCount ?? 0) >= 2),
    );
    const healthyID = app('healthy')?.containerID;
    const crashCount = app('crashloop')?.restartCount ?? 0;

    const link = built.simNode;
    if (!link) throw new Error('no simulated node process');
    const down = nextEvent(built, 'the runtime down', runtimeState(false));
    process.kill(link.info.pid, 'SIGKILL');
    await down;
    await nextEvent(built, 'the runtime ready again', runtimeState(true), 30_000 + respawnDelay(0));

    // the crash loop goes on from its count: one more restart on the adopted node, never back to 0
    await until(
      'crashloop restarted on the new node',
      () => (app('crashloop')?.restartCount ?? 0) > crashCount,
    );
    // the healthy pod kept its container all along: same ID, running, never restarted
    expect(app('healthy')).toMatchObject({ containerID: healthyID, restartCount: 0 });
    expect(app('healthy')?.state.running).toBeDefined();
    const cri = await built.engine.listRuntimePods?.();
    const ids = (cri ?? []).flatMap((p) => p.containers.map((c) => c.id));
    expect(ids).toContain(healthyID?.replace(/^[a-z-]+:\/\//, ''));
  }, 120_000);
});
