import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimRuntime } from '@syncscope/core';
import { FakeClock, RealClock } from '@syncscope/core/clock';
import {
  type ContainerConfig,
  imageSpec,
  linuxSandboxSecurityContext,
  namespaceOption,
  type PodSandboxConfig,
} from '@syncscope/core/cri';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../http.ts';
import type { SimControl } from '../sim-control.ts';
import { FakeEngine, testPod } from '../testing.ts';

const UID = 'c0ffee00-0000-4000-8000-000000000001';

let tmp: string;
let clock: FakeClock;
let sim: SimRuntime;
let trace: TraceRecorder;
let engine: FakeEngine;
let app: FastifyInstance;
let control: SimControl;

function sandboxConfig(): PodSandboxConfig {
  return {
    metadata: { name: 'web', uid: UID, namespace: 'default', attempt: 0 },
    hostname: 'web',
    log_directory: join(tmp, `default_web_${UID}`),
    dns_config: null,
    port_mappings: [],
    labels: {
      'io.kubernetes.pod.name': 'web',
      'io.kubernetes.pod.namespace': 'default',
      'io.kubernetes.pod.uid': UID,
    },
    annotations: {},
    linux: {
      cgroup_parent: '',
      security_context: linuxSandboxSecurityContext({
        namespace_options: namespaceOption({ network: 'POD', pid: 'CONTAINER', ipc: 'POD' }),
      }),
      sysctls: {},
    },
  };
}

function containerConfig(name: string, attempt: number): ContainerConfig {
  return {
    metadata: { name, attempt },
    image: imageSpec({ image: 'busybox' }),
    command: ['sleep', '3600'],
    args: [],
    working_dir: '',
    envs: [],
    mounts: [],
    labels: {
      'io.kubernetes.pod.name': 'web',
      'io.kubernetes.pod.namespace': 'default',
      'io.kubernetes.pod.uid': UID,
      'io.kubernetes.container.name': name,
    },
    annotations: { 'io.kubernetes.container.restartCount': String(attempt) },
    log_path: `${name}/${attempt}.log`,
    stdin: false,
    stdin_once: false,
    tty: false,
    linux: { resources: null, security_context: null },
  };
}

/** A sandbox for pod default/web with `app` started twice (the first instance exited). */
async function runWeb(): Promise<{ sandbox: string; old: string; current: string }> {
  const sb = sandboxConfig();
  const sandbox = await sim.runPodSandbox(sb);
  const old = await sim.createContainer(sandbox, containerConfig('app', 0), sb);
  await sim.startContainer(old);
  await sim.stopContainer(old, 0);
  await clock.step(1);
  const current = await sim.createContainer(sandbox, containerConfig('app', 1), sb);
  await sim.startContainer(current);
  return { sandbox, old, current };
}

const post = (body: unknown) =>
  app.inject({
    method: 'POST',
    url: '/api/v1/sim/faults',
    headers: { 'content-type': 'application/json' },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });

const stateOf = async (id: string) => (await sim.listContainers({ id }))[0]?.state;

// one app for the file; each test gets its own simulated node and trace, which the app's controls reach
beforeAll(async () => {
  clock = new FakeClock();
  engine = new FakeEngine(clock);
  engine.addPod(testPod('web', UID));
  control = {
    get runtime() {
      return sim;
    },
    record: (ev) => trace.record(ev),
  };
  app = await createHttpApp({ engine, trace: new TraceRecorder(clock, 1000), clock, sim: control });
});
afterAll(() => app.close());
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'sim-route-'));
  sim = new SimRuntime({ clock });
  trace = new TraceRecorder(clock, 1000);
});
afterEach(() => {
  sim.shutdown();
  rmSync(tmp, { recursive: true, force: true });
});

describe('POST /api/v1/sim/faults', () => {
  it('makes the newest running instance exit with the code, and records a sim.fault event', async () => {
    const { old, current } = await runWeb();
    const res = await post({
      kind: 'containerExit',
      namespace: 'default',
      pod: 'web',
      container: 'app',
      exitCode: 3,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, detail: expect.stringContaining('exited with code 3') });
    expect(await stateOf(current)).toBe('CONTAINER_EXITED');
    const st = await sim.containerStatus(current);
    expect(st.status?.exit_code).toBe(3);
    expect(await stateOf(old)).toBe('CONTAINER_EXITED');
    const ev = trace.since(0).filter((e) => e.type === 'sim.fault');
    expect(ev).toEqual([expect.objectContaining({ fault: 'containerExit', detail: res.json().detail })]);
  });

  it('puts a container in CONTAINER_UNKNOWN and kills a sandbox', async () => {
    const { sandbox, current } = await runWeb();
    expect(
      (await post({ kind: 'containerUnknown', namespace: 'default', pod: 'web', container: 'app' }))
        .statusCode,
    ).toBe(200);
    expect(await stateOf(current)).toBe('CONTAINER_UNKNOWN');
    expect((await post({ kind: 'sandboxDie', namespace: 'default', pod: 'web' })).statusCode).toBe(200);
    expect((await sim.listPodSandbox({ id: sandbox }))[0]?.state).toBe('SANDBOX_NOTREADY');
  });

  it('answers 409 when no instance is running and 404 for unknown pods and containers', async () => {
    const { current } = await runWeb();
    await sim.stopContainer(current, 0);
    const conflict = await post({
      kind: 'containerExit',
      namespace: 'default',
      pod: 'web',
      container: 'app',
      exitCode: 1,
    });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json().message).toBe('container "app" of pod "default/web" is not running');
    expect(
      (await post({ kind: 'containerUnknown', namespace: 'default', pod: 'web', container: 'db' }))
        .statusCode,
    ).toBe(404);
    const nopod = await post({ kind: 'sandboxDie', namespace: 'default', pod: 'nope' });
    expect(nopod.statusCode).toBe(404);
    expect(nopod.json().message).toBe('pods "nope" not found');
    expect(trace.since(0).some((e) => e.type === 'sim.fault')).toBe(false);
  });

  it('fails the next calls of a method with the given code', async () => {
    const res = await post({
      kind: 'failNext',
      method: 'listPodSandbox',
      count: 1,
      code: 'DeadlineExceeded',
    });
    expect(res.statusCode).toBe(200);
    await expect(sim.listPodSandbox()).rejects.toMatchObject({ code: 4 });
    await expect(sim.listPodSandbox()).resolves.toEqual([]);
  });

  it('starts an outage that a later fault lookup reports as 503, and clear ends it', async () => {
    await runWeb();
    expect((await post({ kind: 'outage', seconds: 30 })).statusCode).toBe(200);
    await expect(sim.version()).rejects.toMatchObject({ code: 14 });
    const during = await post({ kind: 'sandboxDie', namespace: 'default', pod: 'web' });
    expect(during.statusCode).toBe(503);
    expect(during.json().reason).toBe('ServiceUnavailable');
    expect((await post({ kind: 'clear' })).json().detail).toBe('1 fault cleared');
    await expect(sim.version()).resolves.toMatchObject({ runtime_name: 'syncscope-sim' });
  });

  it('makes an image missing from the registry until restored', async () => {
    expect((await post({ kind: 'imageMissing', image: 'nginx:1.27' })).statusCode).toBe(200);
    await expect(sim.pullImage({ image: 'nginx:1.27' } as never)).rejects.toMatchObject({ code: 2 });
    expect((await post({ kind: 'imageRestore', image: 'nginx:1.27' })).statusCode).toBe(200);
  });

  it.each([
    [{ kind: 'explode' }, 'kind'],
    [{ kind: 'containerExit', namespace: 'default', pod: 'web', container: 'app' }, 'exitCode'],
    [
      { kind: 'containerExit', namespace: 'default', pod: 'web', container: 'app', exitCode: 256 },
      'exitCode',
    ],
    [{ kind: 'sandboxDie', namespace: 'default' }, 'pod'],
    [{ kind: 'outage', seconds: -1 }, 'seconds'],
    [{ kind: 'failNext', method: 'Frobnicate', count: 1 }, 'method'],
    [{ kind: 'failNext', method: 'StartContainer', count: 1.5 }, 'count'],
    [{ kind: 'failNext', method: 'StartContainer', count: 1, code: 'Nope' }, 'code'],
    [{ kind: 'slowPull', image: 'busybox' }, 'seconds'],
    [{ kind: 'latency', ms: 'fast' }, 'ms'],
  ])('answers 400 naming the field for %j', async (body, field) => {
    const res = await post(body);
    expect(res.statusCode).toBe(400);
    expect(res.json().details.causes[0].field).toBe(field);
  });

  it('answers 400 to a body that is not a JSON object', async () => {
    expect((await post('{nope')).statusCode).toBe(400);
    expect((await post('[1]')).statusCode).toBe(400);
  });
});

describe('GET /api/v1/sim/faults and clearing', () => {
  const active = async () => (await app.inject({ method: 'GET', url: '/api/v1/sim/faults' })).json().items;

  it('lists each lasting fault, clears one by kind and target, and "clear" ends every one', async () => {
    expect(await active()).toEqual([]);
    await post({ kind: 'outage', seconds: 30 });
    await post({ kind: 'failNext', method: 'StartContainer', count: 2 });
    await post({ kind: 'latency', ms: 200 });
    await post({ kind: 'imageMissing', image: 'nginx' });
    await post({ kind: 'slowPull', image: 'busybox', seconds: 20 });
    await clock.step(10_000);
    const listed = await active();
    expect(listed.map((f: { kind: string; target?: string }) => [f.kind, f.target])).toEqual([
      ['outage', undefined],
      ['failNext', 'StartContainer'],
      ['latency', undefined],
      ['imageMissing', 'nginx'],
      ['slowPull', 'busybox'],
    ]);
    expect(listed[0]).toMatchObject({ remainingMs: 20_000, detail: 'runtime unavailable for 20s more' });

    const one = await post({ kind: 'clear', fault: 'failNext', target: 'StartContainer' });
    expect(one.statusCode).toBe(200);
    expect((await active()).map((f: { kind: string }) => f.kind)).toEqual([
      'outage',
      'latency',
      'imageMissing',
      'slowPull',
    ]);
    const again = await post({ kind: 'clear', fault: 'failNext', target: 'StartContainer' });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe('no failNext StartContainer fault is in effect');
    const badKind = await post({ kind: 'clear', fault: 'gremlins' });
    expect(badKind.statusCode).toBe(400);
    expect(badKind.json().details.causes[0].field).toBe('fault');

    // clear all ends the image faults too: the missing image can be pulled again
    expect((await post({ kind: 'clear' })).json().detail).toBe('4 faults cleared');
    expect(await active()).toEqual([]);
    const pulled = sim.pullImage({ image: 'nginx' } as never);
    await clock.step(1_000);
    await expect(pulled).resolves.toBeDefined();
    const clears = trace.since(0).filter((e) => e.type === 'sim.fault' && e.fault === 'clear');
    expect(clears.map((e) => (e as { cleared?: string }).cleared)).toEqual(['failNext', 'all']);
  });

  it('records how long an outage lasts, and lists it no more once it is over', async () => {
    await post({ kind: 'outage', seconds: 5 });
    const ev = trace.since(0).find((e) => e.type === 'sim.fault');
    expect(ev).toMatchObject({ fault: 'outage', outageMs: 5000 });
    await clock.step(5_000);
    expect(await active()).toEqual([]);
  });
});

describe('on a real runtime', () => {
  it('has no fault or speed endpoints, and says so on GET /api/v1/sim', async () => {
    const real = await createHttpApp({ engine, trace, clock });
    expect((await real.inject({ method: 'GET', url: '/api/v1/sim' })).json()).toEqual({
      simulated: false,
      speed: 1,
    });
    const res = await real.inject({ method: 'POST', url: '/api/v1/sim/faults', payload: '{"kind":"clear"}' });
    expect(res.statusCode).toBe(404);
    expect(res.json().kind).toBe('Status');
    const speed = await real.inject({ method: 'PUT', url: '/api/v1/sim/speed', payload: '{"speed":2}' });
    expect(speed.statusCode).toBe(404);
    await real.close();
  });
});

describe('speed', () => {
  it('sets the RealClock speed within 1..100 and reports it', async () => {
    const real = new RealClock();
    const withClock = await createHttpApp({ engine, trace, clock, sim: { ...control, clock: real } });
    const put = (speed: unknown) =>
      withClock.inject({ method: 'PUT', url: '/api/v1/sim/speed', payload: JSON.stringify({ speed }) });
    expect((await put(10)).json()).toEqual({ speed: 10 });
    expect(real.speed).toBe(10);
    expect((await withClock.inject({ method: 'GET', url: '/api/v1/sim' })).json()).toEqual({
      simulated: true,
      speed: 10,
    });
    for (const bad of [0, 101, 'x', null]) {
      const res = await put(bad);
      expect(res.statusCode).toBe(400);
      expect(res.json().details.causes[0].field).toBe('speed');
    }
    expect(real.speed).toBe(10);
    await withClock.close();
  });

  it('is not settable when the server does not own a RealClock', async () => {
    const res = await app.inject({ method: 'PUT', url: '/api/v1/sim/speed', payload: '{"speed":5}' });
    expect(res.statusCode).toBe(404);
  });
});

describe('token', () => {
  it('needs the bearer token for a fault when one is set', async () => {
    const guarded = await createHttpApp({ engine, trace, clock, sim: control, token: 's3cret' });
    const body = '{"kind":"clear"}';
    expect(
      (await guarded.inject({ method: 'POST', url: '/api/v1/sim/faults', payload: body })).statusCode,
    ).toBe(401);
    const ok = await guarded.inject({
      method: 'POST',
      url: '/api/v1/sim/faults',
      payload: body,
      headers: { authorization: 'Bearer s3cret' },
    });
    expect(ok.statusCode).toBe(200);
    await guarded.close();
  });
});
