/**
 * The reducer against the engine over the dashboard's scenarios (the example pods and the scenarios the
 * end-to-end tests run: ../../../../examples, ../../../../test/scenarios): each pod runs on the simulated node
 * under a FakeClock, and at every status the engine's status manager reports (each `status.update`), the
 * reducer folding the same trace must say what kubectl would print from that status: STATUS, RESTARTS, READY,
 * and per container its state, last exit code and restart count.
 *
 * With the statuses in the trace the reducer must copy them (stated) at every step; without them it must
 * work out the same words and counts by the kubelet's rules wherever a log could tell them (the scenarios
 * a log cannot tell, such as readiness or an init container, are named in `inferable: false`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { printPod } from '../api/kubectl.ts';
import { type Container, type Pod, type PodStatus, rfc3339 } from '../api/v1.ts';
import type { TraceEvent } from '../events/trace.ts';
import { simKubelet } from '../kubelet/testing/sim-kubelet.ts';
import { PodStateReducer } from './reducer.ts';
import type { PodSnapshot } from './types.ts';

let logDir: string;
beforeEach(() => {
  logDir = mkdtempSync(join(tmpdir(), 'pod-state-sc-'));
});
afterEach(() => rmSync(logDir, { recursive: true, force: true }));

const busybox = (name: string, script: string, extra: Partial<Container> = {}): Container => ({
  name,
  image: 'busybox',
  imagePullPolicy: 'IfNotPresent',
  command: ['sh', '-c', script],
  ...extra,
});

interface Scenario {
  name: string;
  spec: Pod['spec'];
  forMs: number;
  /** a graceful delete after this long, with this grace period */
  deleteAfter?: { ms: number; graceS: number };
  /** the reducer can work every step out without the statuses (false: the trace alone cannot tell) */
  inferable: boolean;
}

const SCENARIOS: Scenario[] = [
  {
    name: 'healthy',
    spec: { containers: [busybox('app', 'echo started; while true; do sleep 5; done')] },
    forMs: 30_000,
    inferable: true,
  },
  {
    name: 'crashloop',
    spec: { containers: [busybox('app', 'echo boom; exit 1')] },
    forMs: 4 * 60_000,
    inferable: true,
  },
  {
    name: 'completes',
    spec: { restartPolicy: 'Never', containers: [busybox('job', 'echo done; sleep 2; exit 0')] },
    forMs: 30_000,
    inferable: false,
  },
  {
    name: 'fails',
    spec: { restartPolicy: 'Never', containers: [busybox('job', 'exit 3')] },
    forMs: 30_000,
    inferable: false,
  },
  {
    name: 'missing-image',
    spec: { containers: [{ name: 'app', image: 'doesnotexist:1' }] },
    forMs: 2 * 60_000,
    inferable: false,
  },
  {
    name: 'init-container',
    spec: {
      initContainers: [busybox('init', 'echo init; sleep 2')],
      containers: [busybox('app', 'echo started; while true; do sleep 5; done')],
    },
    forMs: 30_000,
    inferable: false,
  },
  {
    name: 'liveness',
    spec: {
      containers: [
        busybox('app', 'touch /tmp/healthy; sleep 2; rm -f /tmp/healthy; while true; do sleep 5; done', {
          livenessProbe: {
            exec: { command: ['cat', '/tmp/healthy'] },
            periodSeconds: 1,
            failureThreshold: 1,
          },
        }),
      ],
    },
    forMs: 60_000,
    inferable: false,
  },
  {
    name: 'grace',
    spec: { containers: [busybox('app', 'while true; do sleep 1; done')], terminationGracePeriodSeconds: 3 },
    forMs: 30_000,
    deleteAfter: { ms: 10_000, graceS: 3 },
    // the terminal status is written by syncTerminatingPod from its own read of the runtime, a relist before
    // the PLEG event of the death: the reducer says it one relist later (checked at the end below)
    inferable: false,
  },
];

async function engineTrace(sc: Scenario) {
  const { clock, trace, kl } = simKubelet({ podLogsDirectory: logDir }, 200_000);
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      uid: `uid-${sc.name}`,
      name: sc.name,
      namespace: 'default',
      creationTimestamp: rfc3339(clock.now()),
    },
    spec: sc.spec,
  };
  kl.addPod(pod);
  kl.start();
  if (sc.deleteAfter) {
    await clock.step(sc.deleteAfter.ms);
    kl.deletePod(`uid-${sc.name}`, sc.deleteAfter.graceS);
    await clock.step(sc.forMs - sc.deleteAfter.ms);
  } else await clock.step(sc.forMs);
  const events = trace.since(0, () => true);
  await kl.stop();
  return { pod, events };
}

/** What kubectl prints from a status, and each container's state, last exit and restarts. */
function printed(pod: Pod, status: PodStatus, now: number, deleted: boolean) {
  const p: Pod = deleted
    ? { ...pod, metadata: { ...pod.metadata, deletionTimestamp: rfc3339(now) }, status }
    : { ...pod, status };
  const row = printPod(p, now);
  const containers = [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])].map(
    (c) => ({
      name: c.name,
      state: c.state.running
        ? 'running'
        : c.state.terminated
          ? `terminated ${c.state.terminated.reason}`
          : `waiting ${c.state.waiting?.reason ?? ''}`,
      lastExit: c.lastState.terminated?.exitCode,
      restarts: c.restartCount,
    }),
  );
  return { word: row.status, restarts: Number.parseInt(row.restarts, 10), containers };
}

function fromReducer(s: PodSnapshot) {
  const containers = s.containers
    .filter((c) => c.state.basis !== 'unknown')
    .map((c) => {
      const st = c.state.basis === 'unknown' ? undefined : c.state.value;
      const last = c.lastState.basis === 'unknown' ? undefined : c.lastState.value;
      return {
        name: c.name.basis === 'unknown' ? c.key : c.name.value,
        state:
          st?.kind === 'running'
            ? 'running'
            : st?.kind === 'terminated'
              ? `terminated ${st.reason}`
              : `waiting ${st?.reason ?? ''}`,
        lastExit: last?.exitCode,
        restarts: c.restartCount.basis === 'unknown' ? undefined : c.restartCount.value,
      };
    });
  return {
    word: s.statusWord.basis === 'unknown' ? undefined : s.statusWord.value,
    restarts: s.restarts.basis === 'unknown' ? undefined : s.restarts.value,
    containers,
  };
}

/** Folds the trace; at each status.update of the pod compares. Returns how many steps were compared. */
function compare(sc: Scenario, pod: Pod, events: readonly TraceEvent[], withStatus: boolean): number {
  const r = new PodStateReducer();
  const uid = pod.metadata.uid as string;
  let deleted = false;
  let compared = 0;
  for (const ev of events) {
    if (ev.type === 'config.update' && ev.podUID === uid && ev.op === 'DELETE') deleted = true;
    if (ev.type === 'status.update' && ev.podUID === uid) {
      if (withStatus) r.add(ev);
      const want = printed(pod, ev.status, ev.time, deleted);
      const s = r.snapshot(uid) as PodSnapshot;
      const got = fromReducer(s);
      const where = `${sc.name}, ${withStatus ? 'stated' : 'inferred'}, at seq ${ev.seq} (${want.word})`;
      expect(got.word, where).toBe(want.word);
      expect(got.restarts, where).toBe(want.restarts);
      if (withStatus) {
        expect(got.containers, where).toEqual(want.containers);
        expect(s.statusWord.basis, where).toBe(want.word === 'Terminating' ? 'inferred' : 'stated');
      }
      compared++;
      continue;
    }
    r.add(ev);
  }
  return compared;
}

describe('the reducer agrees with the engine over the scenarios', () => {
  for (const sc of SCENARIOS) {
    it(`${sc.name}: at every status the engine reports`, async () => {
      const { pod, events } = await engineTrace(sc);
      expect(compare(sc, pod, events, true)).toBeGreaterThan(1);
      if (sc.inferable) expect(compare(sc, pod, events, false)).toBeGreaterThan(1);
    }, 60_000);
  }

  it('a deleted pod, from its events alone: Terminating, then the terminal phase once every container stopped', async () => {
    const sc = SCENARIOS.find((s) => s.name === 'grace') as Scenario;
    const { pod, events } = await engineTrace(sc);
    const statuses = events.filter((e) => e.type === 'status.update');
    const last = statuses[statuses.length - 1];
    if (last?.type !== 'status.update') throw new Error('no status');
    const want = printPod({ ...pod, status: last.status }, last.time).status;
    expect(want).toBe('Error');
    const r = new PodStateReducer().addAll(events.filter((e) => e.type !== 'status.update'));
    const s = r.snapshot('uid-grace') as PodSnapshot;
    expect(s.statusWord).toMatchObject({ basis: 'inferred', value: want });
    expect(s.phase).toMatchObject({ basis: 'inferred', value: last.status.phase });
  }, 60_000);
});
