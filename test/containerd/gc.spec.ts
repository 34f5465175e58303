/**
 * Container GC on a real containerd (a private one, root): the sandbox of a deleted pod, which killPod only
 * stops, is removed by the next GC run, with its containers and log directory, while a live pod and a dead
 * sandbox someone else made in the same namespace are left alone. The engine runs in this process with a 2 s
 * GC period instead of the kubelet's 1 min, so the test takes seconds.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from '@syncscope/core';
import { Kubelet, RealClock, RemoteRuntime, rfc3339, TraceRecorder } from '@syncscope/core';
import { foreignSandbox } from '@syncscope/core/testing/foreign-sandbox';
import type { TraceOf } from '@syncscope/core/trace';
import { type PrivateContainerd, startPrivateContainerd } from '@syncscope/server/private-containerd';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitOnTrace } from '../support/wait-trace.ts';

const GC_PERIOD_MS = 2_000;

let ctd: PrivateContainerd;
let cri: RemoteRuntime;
let kl: Kubelet;
let logDir: string;
const clock = new RealClock();
const trace = new TraceRecorder(clock);

beforeAll(async () => {
  ctd = await startPrivateContainerd(`/tmp/syncscope-ctd-gc-${process.pid}`);
  cri = new RemoteRuntime(ctd.endpoint, { timeoutMs: 10_000 });
  logDir = await mkdtemp(join(tmpdir(), 'syncscope-gc-logs-'));
  kl = new Kubelet({
    cri,
    clock,
    trace,
    config: { podLogsDirectory: logDir },
    runtimeEndpoint: ctd.endpoint,
    simulated: false,
    containerGC: { periodMs: GC_PERIOD_MS },
  });
  kl.start();
}, 120_000);

afterAll(async () => {
  await kl?.stop();
  cri?.close();
  await ctd?.stop();
  if (logDir) await rm(logDir, { recursive: true, force: true });
});

const pod = (name: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', uid: `uid-gc-${name}`, creationTimestamp: rfc3339(clock.now()) },
  spec: {
    terminationGracePeriodSeconds: 1,
    containers: [
      {
        name: 'app',
        image: 'busybox',
        imagePullPolicy: 'IfNotPresent',
        command: ['sh', '-c', 'echo started; while true; do sleep 1; done'],
      },
    ],
  },
});

/** A sandbox as a kubelet sharing this containerd would make it: its labels, not our ownership label. */
const foreign = foreignSandbox('foreign-gc', 'foreign-gc-uid');

const sandboxesOf = async (uid: string) =>
  (await cri.listPodSandbox({ label_selector: { 'io.kubernetes.pod.uid': uid } })).map((s) => s.state);
const containersOf = async (uid: string) =>
  (await cri.listContainers({ label_selector: { 'io.kubernetes.pod.uid': uid } })).map((c) => c.state);
const gcRuns = () => trace.since(0, (e) => e.type === 'container.gc') as TraceOf<'container.gc'>[];

describe('container GC on containerd', () => {
  it("removes a deleted pod's sandbox within the GC period, and nothing of a live pod or of others", async () => {
    const foreignID = await cri.runPodSandbox(foreign);
    await cri.stopPodSandbox(foreignID); // dead and empty: what the kubelet's own GC would take

    const gone = pod('gone');
    const live = pod('live');
    kl.addPod(gone);
    kl.addPod(live);
    const running = (uid: string) => kl.getPodByUID(uid)?.status?.containerStatuses?.[0]?.state.running;
    await waitOnTrace(trace, 'both pods running', () =>
      Boolean(running('uid-gc-gone') && running('uid-gc-live')),
    );
    const podLogDir = join(logDir, 'default_gone_uid-gc-gone');
    expect(existsSync(podLogDir)).toBe(true);

    const deletedAt = clock.now();
    kl.deletePod('uid-gc-gone', 0);
    await waitOnTrace(trace, 'the deleted pod finished', () =>
      ['Finished', undefined].includes(kl.podWorkers.stateOf('uid-gc-gone')),
    );
    const finishedAt = clock.now();

    // the first run that starts after the pod finished removes its sandbox: within one period (plus that run)
    await waitOnTrace(
      trace,
      'a GC run that removed a sandbox',
      () => gcRuns().some((r) => r.sandboxes > 0),
      2 * GC_PERIOD_MS + 10_000,
    );
    // runs that ended after the delete: one under way at the finish may remove the log directory (its last
    // step) before the next run takes the sandbox; each goes once, none of them fails
    const after = gcRuns().filter((r) => r.time >= deletedAt);
    const run = after.find((r) => r.sandboxes > 0) as TraceOf<'container.gc'>;
    expect(run.time - run.durationMs - finishedAt).toBeLessThanOrEqual(GC_PERIOD_MS);
    const upTo = after.slice(0, after.indexOf(run) + 1);
    expect(upTo.reduce((n, r) => n + r.sandboxes, 0)).toBe(1);
    expect(upTo.reduce((n, r) => n + r.podLogDirs, 0)).toBe(1);
    expect(upTo.map((r) => r.error)).toEqual(upTo.map(() => undefined));
    expect(await sandboxesOf('uid-gc-gone')).toEqual([]);
    expect(await containersOf('uid-gc-gone')).toEqual([]);
    expect(existsSync(podLogDir)).toBe(false);

    // the live pod, and the sandbox we did not make, are untouched
    expect(await sandboxesOf('uid-gc-live')).toEqual(['SANDBOX_READY']);
    expect(await containersOf('uid-gc-live')).toEqual(['CONTAINER_RUNNING']);
    expect(existsSync(join(logDir, 'default_live_uid-gc-live'))).toBe(true);
    expect(await sandboxesOf('foreign-gc-uid')).toEqual(['SANDBOX_NOTREADY']);
    const removals = trace.since(
      0,
      (e) => e.type === 'runtime.call' && /^(Stop|Remove)PodSandbox$/.test(e.method),
    ) as TraceOf<'runtime.call'>[];
    expect(removals.filter((c) => c.podUID !== 'uid-gc-gone')).toEqual([]);

    await cri.removePodSandbox(foreignID);
  }, 90_000);
});
