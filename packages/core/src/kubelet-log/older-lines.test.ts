/**
 * Lines of older kubelets that word the same actions differently, written from their source (v1.15.3, v1.18.6,
 * v1.19.10, v1.21.4, v1.22.6, v1.24.17 and v1.27.7 as vendored by kubeedge over its history): each test is one
 * wording and the events the newer wording gives.
 */
import { describe, expect, it } from 'vitest';
import { k, of, run, sec } from './test-lines.ts';

const UID = '8f3c2a1e-1111-4222-8333-944455556666';
const POD = 'pod="shop/web-0"';
/** the keys a structured kill line carries (v1.21 prints the UID bare, klog v2.8) */
const KILL = `${POD} podUID=${UID} containerName="app" containerID="containerd://4b5e7d1c9a0f"`;

describe('lines of older kubelets', () => {
  it('v1.21 words every kill "with a grace period override": one line is a kill, two back to back an overridden one', () => {
    const { events, summary } = run([
      // -v=2, no override: the kill's only line
      k(`"Killing container with a grace period override" ${KILL} gracePeriod=30`, 0),
      // an override at -v=3: the override's line, then the kill's, worded the same
      k(`"Killing container with a grace period override" ${KILL} gracePeriod=2`, 60),
      k(`"Killing container with a grace period override" ${KILL} gracePeriod=2`, 60),
      // v1.22+: the override's line, then the kill's own
      k(`"Killing container with a grace period override" ${KILL} gracePeriod=1`, 120),
      k(`"Killing container with a grace period" ${KILL} gracePeriod=1`, 120),
      // v1.22+ at -v=2: the kill's own line only
      k(`"Killing container with a grace period" ${KILL} gracePeriod=30`, 180),
    ]);
    expect(summary.raw).toBe(0);
    expect(
      of(events, 'runtime.call').map((e) => [e.method, e.gracePeriodS, e.override ?? false, e.container]),
    ).toEqual([
      ['StopContainer', 30, false, 'app'],
      ['StopContainer', 2, true, 'app'],
      ['StopContainer', 1, true, 'app'],
      ['StopContainer', 30, false, 'app'],
    ]);
    // an overridden kill is shown at its first line
    expect(of(events, 'runtime.call').map((e) => e.origin?.line)).toEqual([1, 2, 4, 6]);
  });

  it('"Clean up orphaned pod containers" (v1.22-v1.26, -v=3) is the kill of an orphan, as v1.27\'s wording is', () => {
    const { events, summary } = run([
      k(`"Clean up orphaned pod containers" podUID=${UID}`, 0),
      k(`"Pod is being synced for the first time" ${POD} podUID=${UID}`, 0),
      k(`"Pod is orphaned and must be torn down" ${POD} podUID=${UID} updateType=3`, 0),
    ]);
    expect(summary.raw).toBe(0);
    expect(of(events, 'worker.update').map((e) => [e.updateType, e.pod])).toEqual([
      ['SyncPodKill', 'shop/web-0'],
    ]);
    expect(of(events, 'worker.state').map((e) => e.to)).toEqual(['TerminatingPod']);
  });

  it('a worker that never started its pod stops: "Pod never started…" (v1.23-v1.26), "Pod cannot start ever" (v1.27)', () => {
    for (const line of [
      `"Pod never started and the worker can now stop" ${POD} podUID=${UID}`,
      `"Pod cannot start ever" ${POD} podUID="${UID}" updateType="terminating"`,
    ]) {
      const { events, summary } = run([
        k(`"Pod is being synced for the first time" ${POD} podUID=${UID}`, 0),
        k(`"Pod is marked for graceful deletion, begin teardown" ${POD} podUID=${UID}`, 0),
        k(line),
      ]);
      expect(summary.raw).toBe(0);
      expect(of(events, 'worker.state').map((e) => e.to)).toEqual(['TerminatingPod', 'Finished']);
    }
  });

  it('"SyncLoop (housekeeping) end" without a duration (v1.22-v1.26) lasts from its start line', () => {
    const at = (ms: number) =>
      `I0601 10:00:0${Math.floor(ms / 1000)}.${String((ms % 1000) * 1000).padStart(6, '0')}`;
    const { events } = run([
      `${at(0)}    42 kubelet.go:1983] "SyncLoop (housekeeping)"`,
      `${at(37)}    42 kubelet.go:1989] "SyncLoop (housekeeping) end"`,
      `${at(2000)}    42 kubelet.go:2314] "SyncLoop (housekeeping)"`,
      `${at(2001)}    42 kubelet.go:2320] "SyncLoop (housekeeping) end" duration="12ms"`,
    ]);
    expect(of(events, 'housekeeping').map((e) => e.durationMs)).toEqual([37, 12]);
  });

  it('an Event the recorder could not write, printed whole (%#v) before the structured form, is one k8s.event of its pod', () => {
    const ev = (id: string, reason: string, message: string, type: string, count = 1) =>
      `&v1.Event{TypeMeta:v1.TypeMeta{Kind:"", APIVersion:""}, ObjectMeta:v1.ObjectMeta{Name:"web-0.${id}", ` +
      `GenerateName:"", Namespace:"shop", SelfLink:"", UID:"", ResourceVersion:"", Generation:0, CreationTimestamp:v1.Time{Time:time.Time{wall:0x0, ext:0, loc:(*time.Location)(nil)}}}, ` +
      `InvolvedObject:v1.ObjectReference{Kind:"Pod", Namespace:"shop", Name:"web-0", UID:"${UID}", APIVersion:"v1", ResourceVersion:"4711", FieldPath:"spec.containers{app}"}, ` +
      `Reason:"${reason}", Message:"${message}", Source:v1.EventSource{Component:"kubelet", Host:"n1"}, ` +
      `FirstTimestamp:v1.Time{Time:time.Time{wall:0xc0d5b2a0a1b2c3d4, ext:123456789, loc:(*time.Location)(0x7a6b5c0)}}, Count:${count}, Type:"${type}", ` +
      `EventTime:v1.MicroTime{Time:time.Time{wall:0x0, ext:0, loc:(*time.Location)(nil)}}, Series:(*v1.EventSeries)(nil), Action:"", Related:(*v1.ObjectReference)(nil), ReportingController:"", ReportingInstance:""}`;
    const refused = `'Post "https://10.0.0.1:6443/api/v1/namespaces/shop/events": dial tcp 10.0.0.1:6443: connect: connection refused'`;
    const backOff = ev('17a2b3c4d5e6f702', 'BackOff', 'Back-off pulling image \\"busybox:nope\\"', 'Warning');
    const node =
      'InvolvedObject:v1.ObjectReference{Kind:"Node", Namespace:"", Name:"n1", UID:"n1", APIVersion:"", ResourceVersion:"", FieldPath:""}, Reason:"NodeReady", Message:"ready", Count:1, Type:"Normal"';
    const { events, summary } = run([
      k(
        `Server rejected event '${ev('17a2b3c4d5e6f701', 'Killing', 'Stopping container app', 'Normal')}': 'namespaces "shop" not found' (will not retry!)`,
        0,
        'E',
      ),
      // a write tried again and again (every 10 s, 12 times at most), then given up: one Event
      k(`Unable to write event: '${backOff}': ${refused}(may retry after sleeping)`, 10, 'E'),
      k(`Unable to write event: '${backOff}': ${refused}(may retry after sleeping)`, 20, 'E'),
      k(`Unable to write event '${backOff}' (retry limit exceeded!)`, 120, 'E'),
      // the same Event seen again (its Count one more): another occurrence
      k(
        `Unable to write event: '${ev('17a2b3c4d5e6f702', 'BackOff', 'Back-off pulling image \\"busybox:nope\\"', 'Warning', 2)}': ${refused}(may retry after sleeping)`,
        130,
        'E',
      ),
      k(`Server rejected event '&v1.Event{${node}}': 'forbidden' (will not retry!)`, undefined, 'E'),
    ]);
    const backedOff = ['Warning', 'BackOff', 'Back-off pulling image "busybox:nope"'];
    expect(of(events, 'k8s.event').map((e) => [e.eventType, e.reason, e.message, e.count])).toEqual([
      ['Normal', 'Killing', 'Stopping container app', 1],
      [...backedOff, 1],
      [...backedOff, 2],
    ]);
    for (const e of of(events, 'k8s.event'))
      expect([e.pod, e.podUID, e.fieldPath]).toEqual(['shop/web-0', UID, 'spec.containers{app}']);
    // the node's own event stays a raw line; the retries are understood
    expect(summary.raw).toBe(1);
    expect(summary.understood).toBe(5);
  });

  it('v1.29+ logs a failed write structured too: each reason is read, a retry is the same Event', () => {
    const ev = (count: number) =>
      `event="&Event{ObjectMeta:{web-0.17e2f5c4a1b2c3d4  shop    0 0001-01-01 00:00:00 +0000 UTC <nil> <nil> map[] map[] [] [] []},` +
      `InvolvedObject:ObjectReference{Kind:Pod,Namespace:shop,Name:web-0,UID:${UID},APIVersion:v1,ResourceVersion:123,FieldPath:spec.containers{app},},` +
      `Reason:Killing,Message:Stopping container app, with a comma,Source:EventSource{Component:kubelet,Host:n1,},` +
      `FirstTimestamp:2024-06-01 10:00:00 +0000 UTC,LastTimestamp:2024-06-01 10:00:00 +0000 UTC,Count:${count},Type:Normal,EventTime:0001-01-01 00:00:00 +0000 UTC,Series:nil,Action:,Related:nil,ReportingController:kubelet,ReportingInstance:n1,}"`;
    const err = 'err="Post \\"https://10.0.0.1:6443/api/v1/namespaces/shop/events\\": connection refused"';
    const { events, summary } = run([
      k(`"Unable to write event (may retry after sleeping)" ${err} ${ev(1)}`, 0, 'E'),
      k(`"Unable to write event (may retry after sleeping)" ${err} ${ev(1)}`, 10, 'E'),
      k(`"Unable to write event (retry limit exceeded!)" ${ev(1)}`, 120, 'E'),
      k(`"Unable to write event (broadcaster is shut down)" ${ev(2)}`, 130, 'E'),
      k(`"Unable to construct event (will not retry!)" ${err} ${ev(3)}`, 140, 'E'),
    ]);
    expect(summary.raw).toBe(0);
    expect(of(events, 'k8s.event').map((e) => [e.reason, e.message, e.count, e.podUID, e.fieldPath])).toEqual(
      [
        ['Killing', 'Stopping container app, with a comma', 1, UID, 'spec.containers{app}'],
        ['Killing', 'Stopping container app, with a comma', 2, UID, 'spec.containers{app}'],
        ['Killing', 'Stopping container app, with a comma', 3, UID, 'spec.containers{app}'],
      ],
    );
  });

  it('glog kills: v1.19\'s "with a N second grace period", and the override line with the ID printed as a struct', () => {
    const cid = '2e2354889588dc74d825';
    const { events, summary } = run([
      // v1.15-v1.18: the override's ID as `{"docker" "id"}`, then the kill's own line
      k(`Killing container {"docker" "${cid}"}, but using 2 second grace period override`, 0),
      k(`Killing container "docker://${cid}" with 2 second grace period`, 0),
      // v1.19
      k(`Killing container {"docker" "${cid}"}, but using a 1 second grace period override`),
      k(`Killing container "docker://${cid}" with a 1 second grace period`, sec),
      k(`Killing container "docker://${cid}" with a 30 second grace period`),
    ]);
    expect(summary.raw).toBe(0);
    expect(of(events, 'runtime.call').map((e) => [e.gracePeriodS, e.override ?? false])).toEqual([
      [2, true],
      [1, true],
      [30, false],
    ]);
  });

  it('glog sandbox lines: v1.15\'s two blanks, and several ready sandboxes ("More than 1 …" v1.15, "Multiple …" v1.18+)', () => {
    const full = `web-0_shop(${UID})`;
    const { events, summary } = run([
      k(`SyncLoop (ADD, "api"): "${full}"`, 0),
      k(`Sandbox for pod "${full}" has no IP address.  Need to start a new one`),
      k(`More than 1 sandboxes for pod "${full}" are ready. Need to reconcile them`, 60),
      k(`Multiple sandboxes are ready for Pod "${full}". Need to reconcile them`, 120),
    ]);
    expect(summary.raw).toBe(0);
    expect(of(events, 'runtime.call').map((e) => [e.method, e.pod, e.origin?.line])).toEqual([
      ['RunPodSandbox', 'shop/web-0', 2],
      ['RunPodSandbox', 'shop/web-0', 3],
      ['RunPodSandbox', 'shop/web-0', 4],
    ]);
  });

  it('glog loop lines: "skipping pod synchronization" in lower case, an UPDATE naming pods being deleted, an ignored probe update', () => {
    const { events, summary } = run([
      k(
        'skipping pod synchronization - [container runtime status check may not have completed yet, PLEG is not healthy: pleg has yet to be successful]',
        0,
        'E',
      ),
      k(
        `SyncLoop (UPDATE, "api"): "web-0_shop(${UID}):DeletionTimestamp=2019-08-20T20:41:04Z, web-2_shop(22222222-2222-4222-8222-222222222222)"`,
      ),
      k(
        `SyncLoop (container unhealthy): ignore irrelevant update: proberesults.Update{ContainerID:kubecontainer.ContainerID{Type:"docker", ID:"abc"}, Result:false, PodUID:"${UID}"}`,
      ),
    ]);
    expect(summary.raw).toBe(0);
    expect(of(events, 'loop.skipped').map((e) => e.errors)).toEqual([
      [
        '[container runtime status check may not have completed yet, PLEG is not healthy: pleg has yet to be successful]',
      ],
    ]);
    expect(of(events, 'config.update').map((e) => [e.op, e.pod, e.podUID])).toEqual([
      ['UPDATE', 'shop/web-0', UID],
      ['UPDATE', 'shop/web-2', '22222222-2222-4222-8222-222222222222'],
    ]);
    expect(of(events, 'probe.result')).toEqual([]);
  });

  it('v1.15 ends each SyncResult with a newline: an error of several results spans lines, and all are read', () => {
    const { events, summary } = run([
      k(
        `Error syncing pod ${UID} ("web-0_shop(${UID})"), skipping: [failed to "KillContainer" for "app" with KillContainerError: "rpc error: code = Unknown desc = timeout"`,
        0,
        'E',
      ),
      `, failed to "KillPodSandbox" for "${UID}" with KillPodSandboxError: "rpc error: code = Unknown desc = busy"`,
      ']',
      k('next line'),
    ]);
    expect(summary.understood).toBe(3);
    expect(of(events, 'sync.result')[0]?.actions.map((a) => [a.action, a.error])).toEqual([
      ['KillContainer', 'KillContainerError'],
      ['KillPodSandbox', 'KillPodSandboxError'],
    ]);
  });

  it('the event recorder of kubelets to v1.5 printed the internal api.ObjectReference', () => {
    const { events } = run([
      k(
        `Event(api.ObjectReference{Kind:"Pod", Namespace:"shop", Name:"web-0", UID:"${UID}", APIVersion:"v1", ResourceVersion:"281", FieldPath:"spec.containers{app}"}): type: 'Warning' reason: 'BackOff' Back-off restarting failed docker container`,
        0,
      ),
    ]);
    expect(of(events, 'k8s.event').map((e) => [e.reason, e.pod, e.fieldPath])).toEqual([
      ['BackOff', 'shop/web-0', 'spec.containers{app}'],
    ]);
  });

  it('a static pod whose UID comes back is restarted: its old worker forgotten, a create with the UpdatePod lines after it', () => {
    for (const restart of [
      `"Pod is restartable after termination due to UID reuse" ${POD} podUID=${UID}`,
      `"Pod will be restarted because it is in the desired set and not known to the pod workers (likely due to UID reuse)" podUID="${UID}"`,
    ]) {
      const { events, summary } = run([
        k(`"SyncLoop ADD" source="file" pods=["shop/web-0"]`, 0),
        k(`"Pod is being synced for the first time" ${POD} podUID="${UID}" updateType="create"`, 0),
        k(`"Pod is complete and the worker can now stop" ${POD} podUID="${UID}"`),
        k(
          `"Pod has been terminated but another pod with the same UID was created, remove history to allow restart" podUID="${UID}"`,
        ),
        k(restart),
        k(`"Pod is being synced for the first time" ${POD} podUID="${UID}" updateType="create"`, sec),
        k(`"Notifying pod of pending update" ${POD} podUID="${UID}" workType="sync"`, sec),
      ]);
      expect(summary.raw).toBe(0);
      expect(of(events, 'worker.update').map((e) => [e.updateType, e.origin?.line])).toEqual([
        ['SyncPodCreate', 2],
        ['SyncPodCreate', 5],
      ]);
      expect(of(events, 'worker.state').map((e) => e.to)).toEqual([
        'SyncPod',
        'Finished',
        'Forgotten',
        'SyncPod',
      ]);
      // the static pod, named by "ns/name" only in its ADD, gets the UID the later lines give
      expect(of(events, 'config.update')[0]?.podUID).toBe(UID);
    }
  });

  it('v1.27+: a terminal, deleted pod no worker knows is killed; an orphan still running begins terminating', () => {
    const other = '77777777-1111-4222-8333-944455550000';
    const { events, summary } = run([
      k(
        `"Handling termination and deletion of the pod to pod workers" pod="shop/rejected-0" podUID="${other}"`,
        0,
      ),
      k(`"Pod is being synced for the first time" ${POD} podUID="${UID}" updateType="create"`),
      k(`"Pod is orphaned and still running, began terminating" podUID="${UID}"`),
      k(`"Pod is orphaned and still terminating, notified the pod worker" podUID="${UID}"`),
      k(`"Pod is orphaned and has not been started" podUID="${other}"`),
    ]);
    expect(summary.raw).toBe(0);
    expect(of(events, 'worker.update').map((e) => [e.updateType, e.pod])).toEqual([
      ['SyncPodKill', 'shop/rejected-0'],
      ['SyncPodCreate', 'shop/web-0'],
    ]);
    expect(of(events, 'worker.state').map((e) => [e.pod, e.to])).toEqual([
      ['shop/rejected-0', 'TerminatingPod'],
      ['shop/web-0', 'SyncPod'],
      ['shop/web-0', 'TerminatingPod'],
    ]);
  });

  it('structured loop lines of updates the loop drops are read and make no event', () => {
    const { events, summary } = run([
      k(
        `"SyncLoop (probe): ignore irrelevant update" probe="readiness" status="ready" update={"ContainerID":{"Type":"containerd","ID":"abc"},"Result":true,"PodUID":"${UID}"}`,
        0,
      ),
      k(
        `"SyncLoop (containermanager): pod does not exist, ignore devices updates" event={"PodUIDs":["${UID}"]}`,
      ),
    ]);
    expect(summary.raw).toBe(0);
    expect(summary.understood).toBe(2);
    expect(events).toEqual([]);
  });

  it('v1.5-v1.9 write the override line after the kill line, with the period used once the preStop hook ran', () => {
    const cid = '3917a2e0d9e0';
    const { events, summary } = run([
      k(`Killing container "docker://${cid}" with 30 second grace period`, 0),
      k(`Killing container {"docker" "${cid}"}, but using 0 second grace period override`, 4),
      // a later kill without an override: its own line only
      k(`Killing container "docker://${cid}" with 30 second grace period`, 60),
    ]);
    expect(summary.raw).toBe(0);
    expect(
      of(events, 'runtime.call').map((e) => [e.gracePeriodS, e.override ?? false, e.origin?.line]),
    ).toEqual([
      [0, true, 1],
      [30, false, 3],
    ]);
  });

  it('v1.5-v1.6 dockertools: kills name "id container ns/pod", the pod infra container is the sandbox', () => {
    const full = `web-0_shop(${UID})`;
    const { events, summary } = run([
      k(`SyncLoop (ADD, "api"): "${full}"`, 0),
      k(`Need to restart pod infra container for "${full}" because it is not found`),
      k('Killing container "3917a2e0d9e0 app shop/web-0" with 30 second grace period', 60),
      k('Killing container "3917a2e0d9e0 app shop/web-0", but using 2 second grace period override', 61),
      k(`Need to restart pod infra container for "${full}" because it is changed`, 120),
    ]);
    expect(summary.raw).toBe(0);
    expect(
      of(events, 'runtime.call').map((e) => [
        e.method,
        e.container,
        e.pod,
        e.podUID,
        e.gracePeriodS,
        e.override,
      ]),
    ).toEqual([
      ['RunPodSandbox', undefined, 'shop/web-0', UID, undefined, undefined],
      ['StopContainer', 'app', 'shop/web-0', UID, 2, true],
      ['RunPodSandbox', undefined, 'shop/web-0', UID, undefined, undefined],
    ]);
  });

  it("v1.5-v1.6.0 print the status manager's whole record", () => {
    const { events, summary } = run([
      k(
        `Status for pod "web-0_shop(${UID})" updated successfully: {status:{Phase:Running Conditions:[{Type:Ready Status:True LastProbeTime:0001-01-01 00:00:00 +0000 UTC LastTransitionTime:2017-03-20 10:00:02 +0000 UTC Reason: Message:}] Message: Reason: HostIP:10.0.0.1 PodIP:10.2.0.5 StartTime:0xc420a1b2c0 InitContainerStatuses:[] ContainerStatuses:[]} version:3 podName:web-0 podNamespace:shop}`,
        0,
      ),
    ]);
    expect(summary.raw).toBe(0);
    expect(of(events, 'status.update').map((e) => [e.status, e.pod, e.podUID])).toEqual([
      [{ phase: 'Running' }, 'shop/web-0', UID],
    ]);
  });

  it('SyncPod stops the sandbox of a pod whose containers are all dead (-v=4): glog and structured', () => {
    const { events, summary } = run([
      k(`Stopping PodSandbox for "web-0_shop(${UID})" because all other containers are dead.`, 0),
      k(`"Stopping PodSandbox for pod, because all other containers are dead" ${POD}`, 60),
    ]);
    expect(summary.raw).toBe(0);
    expect(of(events, 'runtime.call').map((e) => [e.method, e.pod, e.podUID])).toEqual([
      ['StopPodSandbox', 'shop/web-0', UID],
      ['StopPodSandbox', 'shop/web-0', UID],
    ]);
  });
});
