/**
 * Black-box scenarios that run unchanged on the simulated node and on containerd: each applies a pod through the
 * API, waits (on the trace) for what a kubelet would do, asserts what a user sees (status, Events, trace), and
 * returns a runtime-independent summary of the pod's trace for the differential test.
 */
import type { Container, Pod, PodStatus } from '@syncscope/core/api/v1';
import type { TraceEvent } from '@syncscope/core/trace';
import { expect } from 'vitest';
import type { Harness } from '../support/harness.ts';
import { crashWindowScenario } from './crash-window.ts';

const busybox = (name: string, script: string, extra: Partial<Container> = {}): Container => ({
  name,
  image: 'busybox',
  imagePullPolicy: 'IfNotPresent',
  command: ['sh', '-c', script],
  ...extra,
});

export function podManifest(name: string, spec: Pod['spec']): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec };
}

const state = (st: PodStatus | undefined, name: string) =>
  [...(st?.initContainerStatuses ?? []), ...(st?.containerStatuses ?? [])].find((c) => c.name === name);

export interface Scenario {
  name: string;
  pod: Pod;
  /** Waits for and asserts the behaviour; the pod is already applied. */
  run(h: Harness, uid: string): Promise<void>;
  /** Applied last in a combined run; deletes the pod itself. */
  deletes?: boolean;
}

export const scenarios: Scenario[] = [
  {
    name: 'create and run',
    pod: podManifest('sc-run', {
      containers: [busybox('app', 'echo started; while true; do sleep 5; done')],
    }),
    async run(h) {
      const p = await h.waitForPod('default', 'sc-run', 'Running and ready', (p) =>
        Boolean(p.status?.phase === 'Running' && p.status.containerStatuses?.[0]?.state.running),
      );
      expect(p.status?.podIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    },
  },
  {
    name: 'crash loop: first restart at once, then back-off 10s',
    pod: podManifest('sc-crash', { containers: [busybox('app', 'echo boom; exit 1')] }),
    async run(h, uid) {
      const p = await h.waitForPod(
        'default',
        'sc-crash',
        'CrashLoopBackOff back-off 10s',
        (p) => state(p.status, 'app')?.state.waiting?.reason === 'CrashLoopBackOff',
        60_000,
      );
      const app = state(p.status, 'app');
      expect(app?.state.waiting?.message).toBe(
        `back-off 10s restarting failed container=app pod=sc-crash_default(${uid})`,
      );
      expect(app?.restartCount).toBe(1);
      expect(app?.lastState.terminated?.exitCode).toBe(1);
      expect(app?.lastState.terminated?.reason).toBe('Error');
    },
  },
  crashWindowScenario,
  {
    name: 'Never pod succeeds',
    pod: podManifest('sc-ok', { restartPolicy: 'Never', containers: [busybox('job', 'echo done; exit 0')] }),
    async run(h) {
      const p = await h.waitForPod(
        'default',
        'sc-ok',
        'Succeeded',
        (p) => p.status?.phase === 'Succeeded',
        30_000,
      );
      expect(state(p.status, 'job')?.state.terminated?.reason).toBe('Completed');
    },
  },
  {
    name: 'Never pod fails',
    pod: podManifest('sc-fail', { restartPolicy: 'Never', containers: [busybox('job', 'exit 3')] }),
    async run(h) {
      const p = await h.waitForPod(
        'default',
        'sc-fail',
        'Failed',
        (p) => p.status?.phase === 'Failed',
        30_000,
      );
      const t = state(p.status, 'job')?.state.terminated;
      expect(t?.exitCode).toBe(3);
      expect(t?.reason).toBe('Error');
    },
  },
  {
    name: 'missing image: ErrImagePull then ImagePullBackOff',
    pod: podManifest('sc-noimage', { containers: [{ name: 'app', image: 'doesnotexist:1' }] }),
    async run(h) {
      const seen = new Set<string>();
      await h.waitForPod(
        'default',
        'sc-noimage',
        'ErrImagePull then ImagePullBackOff',
        (p) => {
          const r = state(p.status, 'app')?.state.waiting?.reason;
          if (r) seen.add(r);
          return seen.has('ErrImagePull') && r === 'ImagePullBackOff';
        },
        60_000,
      );
    },
  },
  {
    name: 'init container runs before the app',
    pod: podManifest('sc-init', {
      initContainers: [busybox('init', 'echo init; sleep 1')],
      containers: [busybox('app', 'while true; do sleep 5; done')],
    }),
    async run(h, uid) {
      await h.waitForPod('default', 'sc-init', 'Running', (p) => p.status?.phase === 'Running', 30_000);
      const calls = h.podTrace(uid).filter((e) => e.type === 'runtime.call' && e.method === 'StartContainer');
      const order = calls.map((e) => (e.type === 'runtime.call' ? e.container : ''));
      expect(order.slice(0, 2)).toEqual(['init', 'app']);
      const st = (await h.pod('default', 'sc-init'))?.status;
      expect(state(st, 'init')?.state.terminated?.reason).toBe('Completed');
    },
  },
  {
    name: 'exec liveness failure restarts the container',
    pod: podManifest('sc-live', {
      containers: [
        busybox('app', 'touch /tmp/healthy; sleep 2; rm -f /tmp/healthy; while true; do sleep 5; done', {
          livenessProbe: {
            exec: { command: ['cat', '/tmp/healthy'] },
            periodSeconds: 1,
            failureThreshold: 1,
          },
        }),
      ],
    }),
    async run(h) {
      await h.waitForPod(
        'default',
        'sc-live',
        'restarted after liveness failure',
        (p) => (state(p.status, 'app')?.restartCount ?? 0) >= 1,
        60_000,
      );
      const killing = h.built.engine
        .getEvents()
        .find((e) => e.involvedObject.name === 'sc-live' && e.reason === 'Killing');
      expect(killing?.message).toBe('Container app failed liveness probe, will be restarted');
    },
  },
  {
    name: 'HTTP readiness probe: ready when the server answers, not ready when nothing listens',
    pod: podManifest('sc-ready', {
      containers: [
        busybox('web', 'httpd -f -p 8080 -h /var/www', {
          readinessProbe: { httpGet: { path: '/', port: 8080 }, periodSeconds: 1 },
        }),
        busybox('side', 'while true; do sleep 5; done', {
          readinessProbe: { tcpSocket: { port: 8081 }, periodSeconds: 1 },
        }),
      ],
    }),
    async run(h, uid) {
      const p = await h.waitForPod(
        'default',
        'sc-ready',
        'web ready, side not ready',
        (p) => state(p.status, 'web')?.ready === true && (p.status?.containerStatuses ?? []).length === 2,
        30_000,
      );
      expect(state(p.status, 'side')?.ready).toBe(false);
      expect(p.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');
      await h.waitFor('an Unhealthy event for side', () =>
        h.built.engine.getEvents().some((e) => e.involvedObject.uid === uid && e.reason === 'Unhealthy'),
      );
      const ev = h.built.engine
        .getEvents()
        .find((e) => e.involvedObject.uid === uid && e.reason === 'Unhealthy');
      expect(ev?.message).toMatch(
        /^Readiness probe failed: dial tcp [\d.]+:8081: connect: connection refused$/,
      );
    },
  },
  {
    name: 'OOMKilled with a small memory limit',
    pod: podManifest('sc-oom', {
      restartPolicy: 'Never',
      containers: [busybox('app', 'tail /dev/zero', { resources: { limits: { memory: '32Mi' } } })],
    }),
    async run(h) {
      const p = await h.waitForPod(
        'default',
        'sc-oom',
        'Failed',
        (p) => p.status?.phase === 'Failed',
        30_000,
      );
      const t = state(p.status, 'app')?.state.terminated;
      expect(t?.reason).toBe('OOMKilled');
      expect(t?.exitCode).toBe(137);
    },
  },
  {
    name: 'missing command: StartError and RunContainerError',
    pod: podManifest('sc-nocmd', {
      containers: [
        { name: 'app', image: 'busybox', imagePullPolicy: 'IfNotPresent', command: ['/bin/doesnotexist'] },
      ],
    }),
    async run(h) {
      const p = await h.waitForPod(
        'default',
        'sc-nocmd',
        'RunContainerError or CrashLoopBackOff after StartError',
        (p) =>
          state(p.status, 'app')?.lastState.terminated?.reason === 'StartError' ||
          state(p.status, 'app')?.state.terminated?.reason === 'StartError',
        30_000,
      );
      const c = state(p.status, 'app');
      const t = c?.lastState.terminated ?? c?.state.terminated;
      expect(t?.exitCode).toBe(128);
      const failed = h.built.engine
        .getEvents()
        .find((e) => e.involvedObject.name === 'sc-nocmd' && e.reason === 'Failed');
      expect(failed?.message).toMatch(/^Error: .*no such file or directory/);
    },
  },
  {
    name: 'delete with a grace period: SIGTERM ignored takes the whole grace; two-phase in the API',
    deletes: true,
    pod: podManifest('sc-grace', { containers: [busybox('app', 'while true; do sleep 1; done')] }),
    async run(h, uid) {
      await h.waitForPod(
        'default',
        'sc-grace',
        'Running',
        (p) => Boolean(state(p.status, 'app')?.state.running),
        30_000,
      );
      const res = await h.remove('default', 'sc-grace', 3);
      expect(res.status).toBe(200);
      await h.waitFor(
        'sc-grace gone',
        () => h.built.engine.getPod('default', 'sc-grace') === undefined,
        30_000,
      );
      const stop = h
        .podTrace(uid)
        .find(
          (e): e is Extract<TraceEvent, { type: 'runtime.call' }> =>
            e.type === 'runtime.call' && e.method === 'StopContainer',
        );
      expect(stop?.durationMs).toBeGreaterThanOrEqual(2_900);
      const states = h
        .podTrace(uid)
        .filter((e) => e.type === 'worker.state')
        .map((e) => (e.type === 'worker.state' ? e.to : ''));
      expect(states).toEqual(expect.arrayContaining(['SyncPod', 'TerminatingPod', 'TerminatedPod']));
      // the apiserver's side: the graceful DELETE, then the final delete with grace 0, then REMOVE
      const ops = h
        .podTrace(uid)
        .filter((e) => e.type === 'config.update')
        .map((e) => (e.type === 'config.update' ? e.op : ''));
      expect(ops).toEqual(['ADD', 'DELETE', 'DELETE', 'REMOVE']);
    },
  },
];

/**
 * What must agree between runtimes for one pod when its scenario's expectation is met: the worker states in
 * order, the set of sync actions with their error tokens, and the final container reasons.
 */
export function summarize(events: TraceEvent[], finalStatus: PodStatus | undefined): Record<string, unknown> {
  const workerStates: string[] = [];
  const actions = new Set<string>();
  for (const e of events) {
    if (e.type === 'worker.state') workerStates.push(e.to);
    if (e.type === 'sync.result') for (const a of e.actions) actions.add(`${a.action}:${a.error ?? 'ok'}`);
  }
  const reasons = [
    ...(finalStatus?.initContainerStatuses ?? []),
    ...(finalStatus?.containerStatuses ?? []),
  ].map((c) => ({
    name: c.name,
    state: c.state.waiting?.reason ?? c.state.terminated?.reason ?? (c.state.running ? 'Running' : ''),
    last: c.lastState.terminated?.reason ?? '',
    exit: c.state.terminated?.exitCode ?? c.lastState.terminated?.exitCode ?? null,
  }));
  return { phase: finalStatus?.phase, workerStates, actions: [...actions].sort(), reasons };
}

/**
 * Which PLEG events each container produced, once the PLEG has caught up (a sync may act on a status read
 * after the relist's list, so the matching event can come one relist later). A container that exits at once
 * may or may not be seen running by a relist, depending on where the 1 s relist falls (the kubelet has the
 * same race; a busy containerd widens it), so for a container that died ContainerStarted is not compared.
 * Sandboxes are left out: when a terminal pod's sandbox is stopped depends on the runtime's speed.
 */
export function plegSummary(events: TraceEvent[]): string[] {
  const seen = new Set<string>();
  for (const e of events) {
    if (e.type === 'pleg.event' && e.event !== 'ContainerRemoved' && e.containerName)
      seen.add(`${e.containerName}:${e.event}`);
  }
  return [...seen]
    .filter(
      (l) =>
        !(l.endsWith(':ContainerStarted') && seen.has(l.replace(/:ContainerStarted$/, ':ContainerDied'))),
    )
    .sort();
}
