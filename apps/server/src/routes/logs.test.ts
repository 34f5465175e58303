import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ContainerStatus, Pod } from '@syncscope/core/api';
import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../http.ts';
import { FakeEngine } from '../testing.ts';

const SECRET = 'TOP-SECRET-CONTENT';
const UID = '0b4f1f0e-1111-4222-8333-444455556666';

let tmp: string;
let logs: string;
let podDir: string;
let app: FastifyInstance;
let engine: FakeEngine;

const running = (restartCount: number, last?: number): ContainerStatus => ({
  name: 'app',
  image: 'busybox',
  imageID: '',
  ready: true,
  restartCount,
  state: { running: { startedAt: '2026-01-01T12:00:00Z' } },
  lastState: last === undefined ? {} : { terminated: { exitCode: last, containerID: 'containerd://old' } },
});

function addPod(name: string, containers: string[], statuses: ContainerStatus[]): Pod {
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid: name === 'web' ? UID : `uid-${name}` },
    spec: { containers: containers.map((c) => ({ name: c, image: 'busybox' })) },
  };
  engine.addPod(pod);
  const stored = engine.getPodByUID(pod.metadata.uid as string) as Pod;
  stored.status = { phase: 'Running', containerStatuses: statuses };
  return stored;
}

/** Writes <podDir>/<container>/<n>.log in the CRI format. */
function writeLog(container: string, n: number, lines: string[], dir = podDir) {
  mkdirSync(join(dir, container), { recursive: true });
  writeFileSync(join(dir, container, `${n}.log`), lines.map((l) => `${l}\n`).join(''));
}

const get = (query: string, name = 'web') =>
  app.inject({ method: 'GET', url: `/api/v1/namespaces/default/pods/${name}/log${query}` });

// one app for the file; each test starts from an empty log directory and an engine without pods
beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'logs-test-'));
  logs = join(tmp, 'pods');
  podDir = join(logs, `default_web_${UID}`);
  writeFileSync(join(tmp, 'secret.txt'), `2026-01-01T00:00:00.000000000Z stdout F ${SECRET}\n`);
  const clock = new FakeClock();
  engine = new FakeEngine(clock);
  app = await createHttpApp({ engine, trace: new TraceRecorder(clock, 100), clock, podLogsDirectory: logs });
});
beforeEach(() => {
  rmSync(logs, { recursive: true, force: true });
  mkdirSync(podDir, { recursive: true });
  engine.pods.clear();
});
afterAll(async () => {
  await app.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('GET /api/v1/namespaces/:ns/pods/:name/log', () => {
  it('serves a pod named with up to 253 characters: its logs while the directory name fits, else a 404', async () => {
    const fits = 'f'.repeat(121); // default_<121>_uid-<121>: 255 bytes, the longest directory name
    addPod(fits, ['app'], [running(0)]);
    writeLog(
      'app',
      0,
      ['2026-01-01T12:00:00.000000001Z stdout F long'],
      join(logs, `default_${fits}_uid-${fits}`),
    );
    const ok = await get('', fits);
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toBe('long\n');
    // past NAME_MAX no directory can exist (the kubelet never got the pod started); nothing is read
    const long = 'l'.repeat(253);
    addPod(long, ['app'], [running(0)]);
    const res = await get('', long);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({
      kind: 'Status',
      message: `log file for container "app" in pod "${long}" not found`,
    });
  });

  it('serves the only container by default, without the CRI prefix, joining partial lines', async () => {
    addPod('web', ['app'], [running(0)]);
    writeLog('app', 0, [
      '2026-01-01T12:00:00.000000001Z stdout F hello',
      '2026-01-01T12:00:00.000000002Z stderr P par',
      '2026-01-01T12:00:00.000000003Z stderr F tial',
      '2026-01-01T12:00:00.000000004Z stdout F ',
    ]);
    const res = await get('');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toBe('hello\npartial\n\n');
  });

  it('keeps the last tailLines records and prefixes times with timestamps=true', async () => {
    addPod('web', ['app'], [running(0)]);
    writeLog('app', 0, [
      '2026-01-01T12:00:01Z stdout F a',
      '2026-01-01T12:00:02Z stdout F b',
      '2026-01-01T12:00:03Z stdout F c',
    ]);
    expect((await get('?tailLines=2')).body).toBe('b\nc\n');
    expect((await get('?tailLines=0')).body).toBe('');
    expect((await get('?tailLines=1&timestamps=true')).body).toBe('2026-01-01T12:00:03Z c\n');
    expect((await get('?tailLines=-1')).statusCode).toBe(400);
  });

  it('asks for a container name when the pod has several', async () => {
    addPod('web', ['a', 'b'], []);
    const res = await get('');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      kind: 'Status',
      reason: 'BadRequest',
      message: 'a container name must be specified for pod web, choose one of: [a b]',
    });
  });

  it('reads the current instance (restartCount) and, with previous=true, the one before', async () => {
    addPod('web', ['app'], [running(2, 1)]);
    writeLog('app', 1, ['2026-01-01T12:00:00Z stdout F run one']);
    writeLog('app', 2, ['2026-01-01T12:00:10Z stdout F run two']);
    expect((await get('?container=app')).body).toBe('run two\n');
    expect((await get('?container=app&previous=true')).body).toBe('run one\n');
  });

  it('in CrashLoopBackOff serves the last instance that ran, as current and as previous', async () => {
    addPod(
      'web',
      ['app'],
      [
        {
          ...running(3),
          ready: false,
          state: {
            waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s restarting failed container' },
          },
          lastState: { terminated: { exitCode: 1, reason: 'Error', containerID: 'containerd://c3' } },
        },
      ],
    );
    writeLog('app', 3, ['2026-01-01T12:00:00Z stdout F crashed']);
    expect((await get('')).body).toBe('crashed\n');
    expect((await get('?previous=true')).body).toBe('crashed\n');
  });

  it('answers the kubelet messages when there is no previous instance or the container has not started', async () => {
    addPod('web', ['app'], [running(0)]);
    writeLog('app', 0, ['2026-01-01T12:00:00Z stdout F x']);
    const prev = await get('?previous=true');
    expect(prev.statusCode).toBe(400);
    expect(prev.json().message).toBe('previous terminated container "app" in pod "web" not found');

    addPod('pending', ['app'], [{ ...running(0), state: { waiting: { reason: 'ContainerCreating' } } }]);
    const waiting = await get('', 'pending');
    expect(waiting.statusCode).toBe(400);
    expect(waiting.json().message).toBe(
      'container "app" in pod "pending" is waiting to start: ContainerCreating',
    );
  });

  it('answers a previous instance whose file is gone with the previous-not-found message', async () => {
    addPod('web', ['app'], [running(1, 0)]);
    writeLog('app', 1, ['2026-01-01T12:00:00Z stdout F now']);
    const res = await get('?previous=true');
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('previous terminated container "app" in pod "web" not found');
  });

  it('404s an unknown pod and rejects a bad previous value', async () => {
    expect((await get('', 'nope')).statusCode).toBe(404);
    addPod('web', ['app'], [running(0)]);
    const res = await get('?previous=yes');
    expect(res.statusCode).toBe(400);
    expect(res.json().details.causes[0].field).toBe('previous');
  });
});

describe('log path safety', () => {
  beforeEach(() => {
    addPod('web', ['app'], [running(0)]);
  });

  it.each(['../..', '..', '../../../secret.txt', 'app/../../..', 'APP', '%2e%2e', 'app%2f..'])(
    'refuses container=%s without reading anything',
    async (container) => {
      const res = await get(`?container=${encodeURIComponent(container)}`);
      expect(res.statusCode).toBe(400);
      expect(res.body).not.toContain(SECRET);
      expect(res.json().message).toMatch(/is not valid for pod web/);
    },
  );

  it('refuses a log file that is a symlink planted to a file outside the pod directory', async () => {
    mkdirSync(join(podDir, 'app'), { recursive: true });
    symlinkSync(join(tmp, 'secret.txt'), join(podDir, 'app', '0.log'));
    const res = await get('');
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/outside the pod's log directory/);
    expect(res.body).not.toContain(SECRET);
  });

  it('refuses a container directory that is a symlink leading outside', async () => {
    const outside = join(tmp, 'outside');
    writeLog('app', 0, [`2026-01-01T00:00:00Z stdout F ${SECRET}`], outside);
    symlinkSync(join(outside, 'app'), join(podDir, 'app'));
    const res = await get('');
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/outside the pod's log directory/);
    expect(res.body).not.toContain(SECRET);
  });

  it('refuses a pod log directory that is itself a symlink out of podLogsDirectory', async () => {
    const outside = join(tmp, 'elsewhere');
    writeLog('app', 0, [`2026-01-01T00:00:00Z stdout F ${SECRET}`], outside);
    rmSync(podDir, { recursive: true });
    symlinkSync(outside, podDir);
    const res = await get('');
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/outside the pod's log directory/);
    expect(res.body).not.toContain(SECRET);
  });

  it('still follows a symlink that stays inside the pod directory', async () => {
    writeLog('app', 7, ['2026-01-01T00:00:00Z stdout F inside']);
    symlinkSync(join(podDir, 'app', '7.log'), join(podDir, 'app', '0.log'));
    const res = await get('');
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('inside\n');
  });
});
