/**
 * Message families the samples do not show, written from the kubelet's format strings (kubelet.go,
 * pod_workers.go, pleg/generic.go, prober/prober.go, kuberuntime, status_manager.go, images, the recorder),
 * and the rules with memory: back-off windows, merged PLEG reports, worker states.
 */
import { describe, expect, it } from 'vitest';
import { k, of, run, sec } from './test-lines.ts';

const UID = 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee';
const crash = (delay: string) =>
  `"Error syncing pod, skipping" err="failed to \\"StartContainer\\" for \\"app\\" with CrashLoopBackOff: \\"back-off ${delay} restarting failed container=app pod=web-0_shop(${UID})\\"" pod="shop/web-0" podUID="${UID}"`;
const finished = (cid: string, code: number) =>
  `"Generic (PLEG): container finished" podID="${UID}" containerID="${cid}" exitCode=${code}`;
const pleg = (cid: string, type: string) =>
  `"SyncLoop (PLEG): event for pod" pod="shop/web-0" event={"ID":"${UID}","Type":"${type}","Data":"${cid}"}`;

describe('the sync loop', () => {
  it('one old-style ADD line naming several pods, one naming none, and SYNC with its count', () => {
    const { events } = run([
      k(`SyncLoop (ADD, "api"): "a_ns1(u1), b_ns2(u2)"`, 0),
      k('SyncLoop (ADD, "api"): ""'),
      k('SyncLoop (SYNC): 2 pods; "a_ns1(u1)", "b_ns2(u2)"'),
      k('"SyncLoop UPDATE" source="api" pods=["ns1/a","ns2/b"]'),
      k('"SyncLoop (SYNC) pods" total=1 pods=["ns1/a"]'),
      k('"SyncLoop (housekeeping) end" duration="12.5ms"'),
    ]);
    expect(of(events, 'config.update').map((e) => [e.op, e.pod, e.podUID])).toEqual([
      ['ADD', 'ns1/a', 'u1'],
      ['ADD', 'ns2/b', 'u2'],
      ['UPDATE', 'ns1/a', 'u1'],
      ['UPDATE', 'ns2/b', 'u2'],
    ]);
    expect(of(events, 'loop.iteration').map((e) => [e.source, e.pods])).toEqual([
      ['sync', 2],
      ['sync', 1],
    ]);
    expect(of(events, 'housekeeping')[0]?.durationMs).toBe(12.5);
  });

  it('structured GenericPLEG transitions map as the relist maps them', () => {
    const g = (cid: string, from: string, to: string) =>
      k(`"GenericPLEG" podUID="${UID}" containerID="${cid}" oldState="${from}" newState="${to}"`);
    const { events } = run([
      k(`"SyncLoop ADD" source="api" pods=["shop/web-0"]`, 0),
      g('c1', 'non-existent', 'running'),
      g('c1', 'running', 'non-existent'),
    ]);
    expect(of(events, 'pleg.event').map((e) => e.event)).toEqual([
      'ContainerStarted',
      'ContainerDied',
      'ContainerRemoved',
    ]);
  });
});

describe('structured lines of v1.20-v1.26 (klog before v2.100 printed Go values)', () => {
  it('pods as format.Pods and as a Go slice, the PLEG event and the pod status as Go structs', () => {
    const U2 = '22222222-bbbb-cccc-dddd-eeeeeeeeeeee';
    const { events, summary } = run([
      // v1.20-v1.21: format.Pods, the UIDs included
      k(`"SyncLoop ADD" source="api" pods="web-0_shop(${UID}), web-1_shop(${U2})"`, 0),
      // v1.22-v1.26: klog.KObjs printed with %+v
      k('"SyncLoop UPDATE" source="api" pods=[shop/web-0 shop/web-1]'),
      k('"SyncLoop (SYNC) pods" total=2 pods=[shop/web-0 shop/web-1]'),
      k(`"SyncLoop (PLEG): event for pod" pod="shop/web-0" event=&{ID:${UID} Type:ContainerStarted Data:c1}`),
      k(`"SyncLoop (PLEG): event for pod" pod="shop/web-1" event=&{ID:${U2} Type:PodSync Data:<nil>}`),
      k(
        `"Status for pod updated successfully" pod="shop/web-0" statusVersion=2 status={Phase:Running Conditions:[{Type:Ready Status:False LastProbeTime:0001-01-01 00:00:00 +0000 UTC LastTransitionTime:2024-06-01 10:00:00 +0000 UTC Reason:ContainersNotReady Message:containers with unready status: [app]}] Message: Reason: NominatedNodeName: HostIP:10.0.0.4 PodIP:10.244.1.7}`,
      ),
      k(
        `"Status for pod updated successfully" pod="shop/web-1" statusVersion=3 status={Phase:Failed Conditions:[] Message:Pod was rejected Reason:OutOfmemory NominatedNodeName: HostIP:10.0.0.4}`,
      ),
      k('"SyncLoop DELETE" source="api" pods=[shop/web-1]'),
    ]);
    expect(summary).toMatchObject({ understood: 8, raw: 0 });
    expect(of(events, 'config.update').map((e) => [e.op, e.pod, e.podUID])).toEqual([
      ['ADD', 'shop/web-0', UID],
      ['ADD', 'shop/web-1', U2],
      ['UPDATE', 'shop/web-0', UID],
      ['UPDATE', 'shop/web-1', U2],
      ['DELETE', 'shop/web-1', U2],
    ]);
    expect(of(events, 'loop.iteration').map((e) => e.pods)).toEqual([2]);
    expect(of(events, 'pleg.event').map((e) => [e.event, e.podUID, e.containerID])).toEqual([
      ['ContainerStarted', UID, 'c1'],
      ['PodSync', U2, ''],
    ]);
    expect(of(events, 'status.update').map((e) => [e.pod, e.status])).toEqual([
      ['shop/web-0', { phase: 'Running' }],
      ['shop/web-1', { phase: 'Failed', reason: 'OutOfmemory' }],
    ]);
  });
});

describe('lines whose meaning needs the kubelet version or the line before', () => {
  it('v1.22-v1.26 pod workers: lowercase sync functions, numeric work types; one update per UpdatePod', () => {
    const { events, summary } = run([
      k(`"Pod is being synced for the first time" pod="shop/web-0" podUID=${UID} updateType="create"`, 0),
      k(`"Notifying pod of pending update" pod="shop/web-0" podUID=${UID} workType="sync"`, 0),
      k(`"Processing pod event" pod="shop/web-0" podUID=${UID} updateType=0`),
      k(`"syncPod enter" pod="shop/web-0" podUID=${UID}`),
      k(`"syncPod exit" pod="shop/web-0" podUID=${UID} isTerminal=false`),
      k(`"Notifying pod of pending update" pod="shop/web-0" podUID=${UID} workType="terminating"`),
      k(`"Processing pod event" pod="shop/web-0" podUID=${UID} updateType=1`),
      k(`"syncTerminatingPod enter" pod="shop/web-0" podUID=${UID}`),
      k(`"syncTerminatingPod exit" pod="shop/web-0" podUID=${UID}`),
      k(`"Processing pod event" pod="shop/web-0" podUID=${UID} updateType=2`),
      k(`"syncTerminatedPod enter" pod="shop/web-0" podUID=${UID}`),
      k(`"syncTerminatedPod exit" pod="shop/web-0" podUID=${UID}`),
    ]);
    expect(summary.raw).toBe(0);
    expect(of(events, 'worker.update').map((e) => e.updateType)).toEqual(['SyncPodCreate', 'SyncPodKill']);
    expect(of(events, 'sync.start').map((e) => e.workType)).toEqual([
      'SyncPod',
      'TerminatingPod',
      'TerminatedPod',
    ]);
    expect(of(events, 'sync.result').map((e) => [e.workType, e.durationMs])).toEqual([
      ['SyncPod', 1000],
      ['TerminatingPod', 1000],
      ['TerminatedPod', 1000],
    ]);
    expect(of(events, 'worker.state').map((e) => e.to)).toEqual([
      'SyncPod',
      'TerminatingPod',
      'TerminatedPod',
    ]);
  });

  it('teardown: an orphan found after a restart is killed from its first update; a deleted pod once', () => {
    const U2 = '22222222-bbbb-cccc-dddd-eeeeeeeeeeee';
    const { events } = run([
      // v1.22: a running pod the restarted kubelet no longer has in its config
      k(`"Pod is being synced for the first time" pod="shop/old-0" podUID=${U2}`, 0),
      k(`"Pod is orphaned and must be torn down" pod="shop/old-0" podUID=${U2}`, 0),
      k(`"Processing pod event" pod="shop/old-0" podUID=${U2} updateType=1`),
      // v1.27+: a running pod deleted: the teardown line, then the Notifying line of the same call
      k(`"Pod is being synced for the first time" pod="shop/web-0" podUID="${UID}" updateType="create"`),
      k(`"Notifying pod of pending update" pod="shop/web-0" podUID="${UID}" workType="sync"`, sec),
      k(`"Pod is marked for graceful deletion, begin teardown" pod="shop/web-0" podUID="${UID}"`),
      k(`"Notifying pod of pending update" pod="shop/web-0" podUID="${UID}" workType="terminating"`, sec),
    ]);
    expect(of(events, 'worker.update').map((e) => [e.pod, e.updateType])).toEqual([
      ['shop/old-0', 'SyncPodKill'],
      ['shop/web-0', 'SyncPodCreate'],
      ['shop/web-0', 'SyncPodKill'],
    ]);
    expect(of(events, 'worker.state').map((e) => [e.pod, e.from, e.to])).toEqual([
      ['shop/old-0', null, 'TerminatingPod'],
      ['shop/web-0', null, 'SyncPod'],
      ['shop/web-0', 'SyncPod', 'TerminatingPod'],
    ]);
    expect(of(events, 'sync.start').map((e) => e.workType)).toEqual(['TerminatingPod']);
  });

  it("the rest of a worker's way down, and the other reasons a sandbox is made again", () => {
    const U2 = '22222222-bbbb-cccc-dddd-eeeeeeeeeeee';
    const { events, summary } = run([
      k('"SyncLoop ADD" source="api" pods=["shop/web-0"]', 0),
      k(
        `"Pod indicated lifecycle completed naturally and should now terminate" pod="shop/web-0" podUID="${UID}"`,
      ),
      k(`"Pod terminated all containers successfully" pod="shop/web-0" podUID="${UID}"`),
      // v1.27+: a pod only the runtime knows (an orphan) is torn down by its own function
      k(`"SyncTerminatingRuntimePod enter" pod="shop/old-0" podUID="${U2}"`),
      k(`"SyncTerminatingRuntimePod exit" pod="shop/old-0" podUID="${U2}"`),
      k('"Sandbox for pod has changed. Need to start a new one" pod="shop/web-1"'),
      k(`Sandbox for pod "web-2_shop(${U2}x)" has no IP address. Need to start a new one`),
    ]);
    expect(summary.raw).toBe(0);
    expect(of(events, 'worker.state').map((e) => [e.pod, e.to])).toEqual([
      ['shop/web-0', 'TerminatingPod'],
      ['shop/web-0', 'TerminatedPod'],
      ['shop/old-0', 'TerminatingPod'],
    ]);
    expect(of(events, 'sync.result').map((e) => [e.pod, e.workType, e.durationMs])).toEqual([
      ['shop/old-0', 'TerminatingPod', 1000],
    ]);
    expect(
      of(events, 'runtime.call')
        .filter((e) => e.method === 'RunPodSandbox')
        .map((e) => e.pod),
    ).toEqual(['shop/web-1', 'shop/web-2']);
  });

  it('the loop\'s probe lines: readiness "" (before v1.32) and "not ready" are failures, as is startup "unhealthy"', () => {
    const { events } = run([
      k('"SyncLoop (probe)" probe="readiness" status="" pod="shop/web-0"', 0),
      k('"SyncLoop (probe)" probe="readiness" status="not ready" pod="shop/web-0"'),
      k('"SyncLoop (probe)" probe="readiness" status="ready" pod="shop/web-0"'),
      k('"SyncLoop (probe)" probe="startup" status="unhealthy" pod="shop/web-0"'),
      k('"SyncLoop (probe)" probe="liveness" status="unhealthy" pod="shop/web-0"'),
      k(
        `"Probe succeeded with a warning" probeType="Readiness" pod="shop/web-0" podUID="${UID}" containerName="app" output="Probe terminated redirects, Response body: "`,
      ),
    ]);
    expect(of(events, 'probe.result').map((e) => [e.probe, e.result])).toEqual([
      ['Readiness', 'Failure'],
      ['Readiness', 'Failure'],
      ['Readiness', 'Success'],
      ['Startup', 'Failure'],
      ['Liveness', 'Failure'],
      ['Readiness', 'Success'],
    ]);
  });

  it('-v=4: the exit code of "container finished" reaches the ContainerDied its GenericPLEG line made', () => {
    const { events } = run([
      k('"SyncLoop ADD" source="api" pods=["shop/web-0"]', 0),
      k(pleg('c1', 'ContainerStarted')),
      k(`"GenericPLEG" podUID="${UID}" containerID="c1" oldState="running" newState="exited"`),
      k(finished('c1', 137), sec),
      k(pleg('c1', 'ContainerDied'), sec),
      k(crash('10s')),
      // v1.17-v1.19 glog: the back-off line of -v=3 alone opens the same window
      k(`back-off 10s restarting failed container=app pod=web-0_shop(${UID})`, sec),
    ]);
    expect(of(events, 'pleg.event').map((e) => [e.event, e.exitCode])).toEqual([
      ['ContainerStarted', undefined],
      ['ContainerDied', 137],
    ]);
    expect(of(events, 'backoff').map((e) => [e.delayS, e.exitCode])).toEqual([[10, 137]]);
  });

  it('a missing sandbox: one RunPodSandbox per attempt, none for a pod deleted; a structured pull failure once', () => {
    const none = (p: string) => k(`"No sandbox for pod can be found. Need to start a new one" pod="${p}"`);
    const { events } = run([
      k('"SyncLoop ADD" source="api" pods=["shop/web-0","shop/web-1"]', 0),
      // v1.29+: a sync's status asks, then its plan: one attempt
      none('shop/web-0'),
      none('shop/web-0'),
      k(
        `"Error syncing pod, skipping" err="failed to \\"CreatePodSandbox\\" for \\"web-0_shop(${UID})\\" with CreatePodSandboxError: \\"boom\\"" pod="shop/web-0" podUID="${UID}"`,
      ),
      // after the failure, the next sync's: a new attempt
      none('shop/web-0'),
      // a minute later with nothing between (how older kubelets retry): another
      k('"No ready sandbox for pod can be found. Need to start a new one" pod="shop/web-0"', sec + 60),
      k('"SyncLoop DELETE" source="api" pods=["shop/web-1"]'),
      // the status of a pod being deleted still asks: no sandbox is made for it
      none('shop/web-1'),
      k(
        '"PullImage from image service failed" err="rpc error: code = NotFound desc = nope" image="nope:1"',
        undefined,
        'E',
      ),
      k('"Failed to pull image" err="rpc error: code = NotFound desc = nope" image="nope:1"', sec, 'E'),
    ]);
    const calls = of(events, 'runtime.call');
    expect(calls.filter((c) => c.method === 'RunPodSandbox').map((c) => [c.pod, c.origin?.line])).toEqual([
      ['shop/web-0', 2],
      ['shop/web-0', 5],
      ['shop/web-0', 6],
    ]);
    expect(calls.filter((c) => c.method === 'PullImage')).toHaveLength(1);
  });
});

describe('back-off', () => {
  it('the same back-off repeated at every sync is one window; each restart opens the next, twice as long', () => {
    const lines = [
      k('"SyncLoop ADD" source="api" pods=["shop/web-0"]', 0),
      k(pleg('c1', 'ContainerStarted'), 1),
    ];
    lines.push(k(finished('c1', 2), 5), k(pleg('c1', 'ContainerDied'), 5));
    for (const t of [5, 6, 8, 11]) lines.push(k(crash('10s'), t));
    lines.push(k(pleg('c2', 'ContainerStarted'), 16), k(finished('c2', 2), 18));
    for (const t of [18, 25, 30, 37]) lines.push(k(crash('20s'), t));
    const { events } = run(lines);
    const windows = of(events, 'backoff');
    expect(
      windows.map((w) => [w.delayS, w.exitCode, (w.until - (windows[0]?.time ?? 0)) / 1000, w.restartCount]),
    ).toEqual([
      // (the log does not say the container's restart count)
      [10, 2, 10, undefined],
      [20, 2, 33, undefined],
    ]);
    expect(of(events, 'sync.result')).toHaveLength(8);
  });

  it('a sync that meets the container dead before the relist reports it: the back-off lines either side of its death are one window', () => {
    const { events } = run([
      k('"SyncLoop ADD" source="api" pods=["shop/web-0"]', 0),
      k(pleg('c1', 'ContainerStarted'), 1),
      k(finished('c1', 2), 5),
      k(pleg('c1', 'ContainerDied'), 5),
      k(crash('10s'), 5),
      k(pleg('c2', 'ContainerStarted'), 16),
      // c2 exits at 18; a sync at 19 reads the runtime's status first, the relist at 20 reports the death
      k(crash('20s'), 19),
      k(finished('c2', 2), 20),
      k(pleg('c2', 'ContainerDied'), 20),
      k(crash('20s'), 21),
      k(crash('20s'), 25),
      k(pleg('c3', 'ContainerStarted'), 39),
      k(finished('c3', 2), 40),
      k(crash('40s'), 40),
    ]);
    // the 20 s window counts from the sync that met c2 dead (19), not from c1's death (5): it ends when c3
    // starts; its exit code is not c1's (c2's is read only after)
    const t0 = events[0]?.time ?? 0;
    expect(
      of(events, 'backoff').map((w) => [w.delayS, w.origin?.line, (w.until - t0) / 1000, w.exitCode]),
    ).toEqual([
      [10, 5, 15, 2],
      [20, 7, 39, undefined],
      [40, 14, 80, 2],
    ]);
  });

  it("kuberuntime's own back-off line (-v=3) opens the window; the sync error after it is the same window", () => {
    const backOff = (delay: string) =>
      `"Back-off restarting failed container" err="back-off ${delay} restarting failed container=app pod=web-0_shop(${UID})"`;
    const { events, summary } = run([
      k('"SyncLoop ADD" source="api" pods=["shop/web-0"]', 0),
      k(pleg('c1', 'ContainerStarted'), 1),
      k(finished('c1', 2), 5),
      k(backOff('10s'), 5),
      k(crash('10s'), 5),
      k(backOff('10s'), 8),
      k(crash('10s'), 8),
      k(pleg('c2', 'ContainerStarted'), 16),
      k(finished('c2', 2), 18),
      k(backOff('20s'), 18),
    ]);
    expect(summary.raw).toBe(0);
    expect(
      of(events, 'backoff').map((w) => [w.pod, w.podUID, w.container, w.delayS, w.origin?.line]),
    ).toEqual([
      ['shop/web-0', UID, 'app', 10, 4],
      ['shop/web-0', UID, 'app', 20, 10],
    ]);
  });

  it('at the 5 m cap the delay stays the same: a restart between the lines still opens a new window', () => {
    const { events } = run([
      k(pleg('c1', 'ContainerStarted'), 0),
      k(finished('c1', 1), 1),
      k(crash('5m0s'), 1),
      k(crash('5m0s'), 100),
      k(pleg('c2', 'ContainerStarted'), 302),
      k(finished('c2', 1), 303),
      k(crash('5m0s'), 303),
    ]);
    expect(of(events, 'backoff').map((w) => [w.delayS, w.origin?.line])).toEqual([
      [300, 3],
      [300, 7],
    ]);
  });

  it('image back-off: each failed pull (ErrImagePull) opens the next window, ImagePullBackOff inside it does not', () => {
    const err = (what: string, msg: string) =>
      `"Error syncing pod, skipping" err="failed to \\"StartContainer\\" for \\"app\\" with ${what}: \\"${msg}\\"" pod="shop/web-0" podUID="${UID}"`;
    const failed = err('ErrImagePull', 'rpc error: code = NotFound desc = not found');
    const waiting = err('ImagePullBackOff', 'Back-off pulling image');
    // the second failure comes 11 s after the first, the ImagePullBackOff after it 12 s later, still in its 20 s;
    // the sandbox starting in between is no restart of the container
    const { events } = run([
      k(failed, 0),
      k(pleg('sandbox1', 'ContainerStarted'), 1),
      k(waiting, 1),
      k(failed, 11),
      k(waiting, 23),
      k(failed, 32),
    ]);
    expect(
      of(events, 'backoff').map((w) => [w.kind, w.container, w.delayS, w.time - (events[0]?.time ?? 0)]),
    ).toEqual([
      ['image', 'app', 10, 0],
      ['image', 'app', 20, 11_000],
      ['image', 'app', 40, 32_000],
    ]);
  });

  it("image back-off from the sync error: its delay follows the kubelet's image back-off (10 s doubling)", () => {
    const pull = `"Error syncing pod, skipping" err="failed to \\"StartContainer\\" for \\"app\\" with ImagePullBackOff: \\"Back-off pulling image \\\\\\"nope:1\\\\\\"\\"" pod="shop/web-0" podUID="${UID}"`;
    // 3 s: still in the first window; 12 s: past it, the pull was retried and failed again; 40 s: past the second
    const { events } = run([k(pull, 0), k(pull, 3), k(pull, 12), k(pull, 40)]);
    expect(of(events, 'backoff').map((w) => [w.kind, w.container, w.image, w.delayS])).toEqual([
      ['image', 'app', 'nope:1', 10],
      ['image', 'app', 'nope:1', 20],
      ['image', 'app', 'nope:1', 40],
    ]);
  });

  it('old glog sync errors with several SyncResults', () => {
    const { events } = run([
      k(
        `Error syncing pod ${UID} ("web-0_shop(${UID})"), skipping: [failed to "StartContainer" for "a" with CrashLoopBackOff: "Back-off 1m20s restarting failed container=a pod=web-0_shop(${UID})", failed to "StartContainer" for "b" with ErrImagePull: "rpc error: code = NotFound desc = not found"]`,
        0,
        'E',
      ),
    ]);
    const r = of(events, 'sync.result')[0];
    expect(r?.actions.map((a) => [a.target, a.error])).toEqual([
      ['a', 'CrashLoopBackOff'],
      ['b', 'ErrImagePull'],
    ]);
    expect(of(events, 'backoff')[0]).toMatchObject({ container: 'a', delayS: 80, pod: 'shop/web-0' });
  });
});

describe('pod workers, status, probes, kills, images, events', () => {
  it('the -v=4 pod worker lines give worker states and sync runs with their durations', () => {
    const p = `pod="shop/web-0" podUID="${UID}"`;
    const { events } = run([
      k(`"Pod is being synced for the first time" ${p} updateType="create"`, 0),
      k(`"Notifying pod of pending update" ${p} workType="sync"`, 0),
      k(`"Processing pod event" ${p} updateType="sync"`, 0),
      k(`"SyncPod enter" ${p}`, 0),
      k(`"SyncPod exit" ${p} isTerminal=false`, 2),
      k(`"Pod worker has observed request to terminate" ${p}`, 3),
      k(`"SyncTerminatingPod enter" ${p}`, 3),
      k(`"SyncTerminatingPod exit" ${p}`, 7),
      k(`"SyncTerminatedPod enter" ${p}`, 7),
      k(`"SyncTerminatedPod exit" ${p}`, 8),
      k(`"Pod is complete and the worker can now stop" podUID="${UID}"`, 8),
      k(
        `"Pod has been terminated and is no longer known to the kubelet, remove all history" podUID="${UID}"`,
        9,
      ),
    ]);
    expect(of(events, 'worker.state').map((e) => [e.from, e.to])).toEqual([
      [null, 'SyncPod'],
      ['SyncPod', 'TerminatingPod'],
      ['TerminatingPod', 'TerminatedPod'],
      ['TerminatedPod', 'Finished'],
      ['Finished', 'Forgotten'],
    ]);
    expect(of(events, 'sync.start')[0]).toMatchObject({ workType: 'SyncPod', updateType: 'SyncPodCreate' });
    expect(of(events, 'sync.result').map((e) => [e.workType, e.durationMs, e.isTerminal])).toEqual([
      ['SyncPod', 2000, false],
      ['TerminatingPod', 4000, undefined],
      ['TerminatedPod', 1000, undefined],
    ]);
    expect(events.every((e) => !('pod' in e) || e.pod === 'shop/web-0')).toBe(true);
  });

  it('status, probes (glog and structured), kills with an override, image pull failures and recorded events', () => {
    const { events } = run([
      k(
        `"Status for pod updated successfully" pod="shop/web-0" statusVersion=3 status={"phase":"Failed","reason":"Evicted"}`,
        0,
      ),
      k('"Got phase for pod" pod="shop/web-0" oldPhase="Failed" phase="Failed"'),
      k('"Got phase for pod" pod="shop/web-0" oldPhase="Pending" phase="Running"'),
      k(
        `Readiness probe for "web-0_shop(${UID}):app" failed (failure): HTTP probe failed with statuscode: 503`,
      ),
      k(`"Probe succeeded" probeType="Startup" pod="shop/web-0" podUID="${UID}" containerName="app"`),
      k(
        `"Probe unknown without error" probeType="Liveness" pod="shop/web-0" podUID="${UID}" containerName="app" probeResult="unknown"`,
      ),
      // the override line (-v=3) is followed by the kill's own line: one stop
      k(
        `"Killing container with a grace period override" pod="shop/web-0" podUID="${UID}" containerName="app" containerID="containerd://c1" gracePeriod=2`,
      ),
      k(
        `"Killing container with a grace period" pod="shop/web-0" podUID="${UID}" containerName="app" containerID="containerd://c1" gracePeriod=2`,
        sec,
      ),
      // one failed pull, written by the CRI client and by kuberuntime (glog): one PullImage call
      k(
        'PullImage "nope:1" from image service failed: rpc error: code = NotFound desc = failed to resolve',
        undefined,
        'E',
      ),
      k('Pull image "nope:1" failed: rpc error: code = NotFound desc = failed to resolve', sec, 'E'),
      k(
        `"Event occurred" object="shop/web-0" fieldPath="spec.containers{app}" kind="Pod" apiVersion="v1" type="Warning" reason="BackOff" message="Back-off restarting failed container app in pod web-0_shop(${UID})"`,
      ),
      k(
        `"Event occurred" object="n1" fieldPath="" kind="Node" apiVersion="" type="Normal" reason="NodeReady" message="Node n1 status is now: NodeReady"`,
      ),
    ]);
    expect(of(events, 'status.update').map((e) => e.status)).toEqual([
      { phase: 'Failed', reason: 'Evicted' },
      { phase: 'Running' },
    ]);
    expect(of(events, 'probe.result').map((e) => [e.probe, e.result, e.container, e.podUID])).toEqual([
      ['Readiness', 'Failure', 'app', UID],
      ['Startup', 'Success', 'app', UID],
      ['Liveness', 'Unknown', 'app', UID],
    ]);
    expect(of(events, 'runtime.call').map((e) => [e.method, e.gracePeriodS, e.override, e.code])).toEqual([
      ['StopContainer', 2, true, undefined],
      ['PullImage', undefined, undefined, 5],
    ]);
    expect(of(events, 'k8s.event')).toEqual([
      expect.objectContaining({
        eventType: 'Warning',
        reason: 'BackOff',
        fieldPath: 'spec.containers{app}',
        podUID: UID,
      }),
    ]);
    // the node's own event is kept as a raw line
    expect(of(events, 'log.raw')).toHaveLength(1);
  });
});
