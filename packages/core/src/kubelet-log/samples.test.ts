/**
 * The five real kubelet logs in testdata/ (see its README for where each comes from), imported whole. Every
 * figure checked here was read off the log itself: pod names and UIDs, line numbers, exit codes, delays.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkTraceEvent, type TraceEvent, type TraceOf, type TraceType } from '../events/trace.ts';
import { importKubeletLog } from './index.ts';

const dir = join(import.meta.dirname, 'testdata');
function load(prefix: string, year: number) {
  const file = readFileSync(join(dir, `${prefix}.log`), 'utf8');
  return importKubeletLog(file, { year });
}
function of<T extends TraceType>(events: TraceEvent[], type: T): TraceOf<T>[] {
  return events.filter((e): e is TraceOf<T> => e.type === type);
}
function wellFormed(events: TraceEvent[]): void {
  events.forEach((e, i) => {
    expect(checkTraceEvent(e)).toBeUndefined();
    expect(e.seq).toBe(i + 1);
    expect(e.origin?.line).toBeGreaterThan(0);
    if (i > 0) expect(e.time).toBeGreaterThanOrEqual((events[i - 1] as TraceEvent).time);
  });
}

describe('01: v1.17 Windows klog file, glog messages, -v=4', () => {
  const { events, summary } = load('01-v1.17-windows-glog-v4-full-lifecycle', 2019);
  const uid = '0ac7a38c-74bc-4d23-ae50-2576492537e0';
  const pod = 'gcp-filestore-csi-driver/gcp-filestore-csi-node-glfr9';

  it('reads every line, on one node named by its pid, in time order despite the coarse clock', () => {
    wellFormed(events);
    expect(summary.lines).toBe(379);
    expect(summary.understood + summary.raw).toBe(379);
    expect(summary.nodes).toEqual(['pid 3312']);
    expect(new Date(summary.firstTime as number).toISOString()).toBe('2019-08-20T20:41:01.125Z');
    expect(summary.lastTime).toBe(Date.UTC(2019, 7, 20, 21, 11, 31) + 350.186);
    expect(events.every((e) => e.node === 'pid 3312')).toBe(true);
  });

  it('follows the pod from ADD to REMOVE', () => {
    const config = of(events, 'config.update');
    expect(config.map((e) => e.op)).toEqual([
      'ADD',
      'RECONCILE',
      'RECONCILE',
      'DELETE',
      'RECONCILE',
      'RECONCILE',
      'DELETE',
      'REMOVE',
    ]);
    expect(config.every((e) => e.podUID === uid && e.pod === pod && e.source === 'api')).toBe(true);
    expect(config[0]?.origin?.line).toBe(4);
    expect(config.at(-1)?.origin?.line).toBe(373);
    // the orphaned pod directory removed at housekeeping is the pod's end
    const last = of(events, 'worker.state').at(-1);
    expect(last).toMatchObject({ to: 'Forgotten', podUID: uid, origin: { line: 378 } });
  });

  it('has the housekeeping cadence, the image pull events and the two 30 s kills', () => {
    expect(of(events, 'loop.iteration').filter((e) => e.source === 'housekeeping')).toHaveLength(48);
    expect(of(events, 'k8s.event').map((e) => e.reason)).toEqual([
      'Pulling',
      'Pulled',
      'Created',
      'Started',
      'Killing',
    ]);
    const kills = of(events, 'runtime.call').filter((e) => e.method === 'StopContainer');
    expect(kills.map((k) => [k.origin?.line, k.gracePeriodS, k.podUID])).toEqual([
      [200, 30, uid],
      [355, 30, uid],
    ]);
  });

  it('turns GenericPLEG transitions and SyncLoop (PLEG) lines into one event each', () => {
    const app = '391717fba2ee163a54c275c157c11ec5af6ef25a0103abe6d9f0f76963f4d149';
    const forApp = of(events, 'pleg.event').filter((e) => e.containerID === app);
    expect(forApp.map((e) => [e.event, e.origin?.line])).toEqual([
      ['ContainerChanged', 157],
      ['ContainerStarted', 169],
      ['ContainerDied', 209],
      ['ContainerChanged', 221],
      ['ContainerRemoved', 361],
    ]);
    // the sandbox "non-existent -> exited" at line 51: never seen running, so its start is inferred
    const sandbox = of(events, 'pleg.event').filter((e) => e.containerID.startsWith('d5b89b6a'));
    expect(sandbox[0]).toMatchObject({ event: 'ContainerStarted', inferred: true, origin: { line: 51 } });
  });

  it('reads the phase out of the printed status structs', () => {
    expect(of(events, 'status.update').map((e) => e.status.phase)).toEqual([
      'Pending',
      'Running',
      'Running',
      'Running',
      'Running',
      'Running',
    ]);
  });
});

describe('03: v1.31 OpenShift journald (kubelet.sh), structured messages, -v=2', () => {
  const { events, summary } = load('03-v1.31-openshift-journald-v2-static-pods-probes-crashloop', 2025);
  const cvo = 'openshift-cluster-version/bootstrap-cluster-version-operator-localhost.localdomain';

  it('keeps one node when the host is renamed under the same kubelet process', () => {
    wellFormed(events);
    expect(summary.lines).toBe(886);
    expect(summary.nodes).toEqual(['localhost.localdomain']);
    expect(summary.pods).toBe(8);
    expect(new Date(summary.firstTime as number).toISOString()).toBe('2025-05-12T04:58:17.098Z');
    expect(new Date(summary.lastTime as number).toISOString()).toBe('2025-05-12T05:19:26.068Z');
  });

  it('gives the static pods named by ADD their UIDs from later lines, and re-ADDs them with the same UID', () => {
    const adds = of(events, 'config.update').filter((e) => e.pod === cvo);
    expect(adds.map((e) => [e.op, e.origin?.line, e.source])).toEqual([
      ['ADD', 147, 'file'],
      ['REMOVE', 664, 'file'],
      ['ADD', 746, 'file'],
    ]);
    expect(new Set(adds.map((e) => e.podUID))).toEqual(new Set(['aba1776703037ea02e532541162536e2']));
    expect(of(events, 'config.update').filter((e) => e.op === 'REMOVE')).toHaveLength(5);
  });

  it('reads one sandbox per pod start: the v1.29+ status lines about a missing sandbox are not each one', () => {
    // 32 "No (ready) sandbox" lines: each sync writes two (status, plan), a removed pod's status still asks
    const sandboxes = of(events, 'runtime.call').filter((e) => e.method === 'RunPodSandbox');
    expect(sandboxes.filter((e) => e.pod === cvo).map((e) => e.origin?.line)).toEqual([154, 776]);
    // every pod once at its first ADD, and the four re-added once more after their REMOVE
    expect(sandboxes).toHaveLength(12);
  });

  it('merges "container finished" with the loop\'s PLEG line and keeps the exit code', () => {
    const pleg = of(events, 'pleg.event');
    // 42 "SyncLoop (PLEG)" lines, 6 "container finished" after the REMOVEs with no loop line, 2 inferred starts
    expect(pleg).toHaveLength(50);
    const died = (id: string) =>
      pleg.find((e) => e.event === 'ContainerDied' && e.containerID.startsWith(id));
    expect(died('20e9752c')).toMatchObject({ exitCode: 143, origin: { line: 429 } });
    expect(died('360fc199')).toMatchObject({ exitCode: 1, origin: { line: 450 } });
    // an init container of coredns ran between two relists: it is only seen dying
    const inferred = pleg.filter((e) => e.inferred);
    expect(inferred.map((e) => [e.containerID.slice(0, 8), e.pod])).toEqual([
      ['92ac3f3b', 'openshift-vsphere-infra/coredns-localhost.localdomain'],
      ['69545baf', 'openshift-kube-apiserver/bootstrap-kube-apiserver-localhost.localdomain'],
    ]);
  });

  it('has the CrashLoopBackOff as a sync error with its SyncResult and one 10 s back-off window', () => {
    const errs = of(events, 'sync.result');
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatchObject({
      pod: cvo,
      podUID: 'aba1776703037ea02e532541162536e2',
      origin: { line: 637 },
      actions: [{ action: 'StartContainer', target: 'cluster-version-operator', error: 'CrashLoopBackOff' }],
    });
    const b = of(events, 'backoff');
    expect(b).toHaveLength(1);
    // the window counts from the container's finish (line 629, 05:00:14.349127)
    expect(b[0]).toMatchObject({
      kind: 'container',
      container: 'cluster-version-operator',
      delayS: 10,
      exitCode: 0,
    });
    expect(b[0]?.until).toBe(Date.UTC(2025, 4, 12, 5, 0, 24) + 349.127);
  });

  it('reads liveness and startup probe failures, with the multi-line output, and the kill they cause', () => {
    const failed = of(events, 'probe.result').filter((e) => e.container !== '');
    expect(failed.filter((e) => e.probe === 'Liveness')).toHaveLength(3);
    expect(failed.filter((e) => e.probe === 'Startup')).toHaveLength(4);
    expect(failed[0]).toMatchObject({
      container: 'keepalived',
      result: 'Failure',
      output: "/bin/bash: line 3: kill: `': not a pid or valid job spec",
      origin: { line: 143 },
    });
    const kill = of(events, 'runtime.call').find((e) => e.method === 'StopContainer');
    expect(kill).toMatchObject({ container: 'keepalived', gracePeriodS: 65, origin: { line: 378 } });
  });
});

describe('07: Talos, klog JSON after a host prefix, -v=0', () => {
  const { events, summary } = load('07-v1.3x-talos-json-v0-etcd-overload-volume-stuck', 2025);

  it('takes the node from the prefix and the time from ts (ms since the epoch)', () => {
    wellFormed(events);
    expect(summary.lines).toBe(31);
    expect(summary.raw + summary.understood).toBe(31);
    expect(summary.nodes).toEqual(['sanji']);
    expect(events[0]?.time).toBe(1746935582577.1177);
  });

  it('reads the sync error and the Events the API server rejected', () => {
    expect(of(events, 'sync.result')).toEqual([
      expect.objectContaining({
        pod: 'media/volsync-src-plex-ksn6d',
        podUID: 'd3294284-fbae-4b80-97d6-2e0390050b78',
      }),
    ]);
    const ev = of(events, 'k8s.event');
    expect(ev.map((e) => `${e.pod} ${e.reason}`)).toEqual([
      'databases/postgres-3 Created',
      'databases/postgres-3 Started',
      'observability/loki-0 Pulled',
      'observability/loki-0 Created',
      'observability/loki-0 Started',
    ]);
    expect(ev[0]).toMatchObject({
      message: 'Created container postgres',
      fieldPath: 'spec.containers{postgres}',
    });
  });
});

describe('09: v1.15 AKS journald, glog messages', () => {
  const { events, summary } = load('09-v1.15-aks-journald-glog-v2-helm-burst', 2020);

  it('reads the two ADDs and their sandboxes; the unwanted pod named without a namespace is kept raw', () => {
    wellFormed(events);
    expect(summary.nodes).toEqual(['aks-agentpool-57418505-vmss000000']);
    expect(of(events, 'config.update').map((e) => [e.pod, e.origin?.line])).toEqual([
      ['default/prop-prometheus-operator-operator-6bc6fd7c9d-d9qz4', 4],
      ['default/prop-prometheus-node-exporter-q7fvn', 7],
    ]);
    expect(of(events, 'runtime.call').map((e) => [e.method, e.podUID])).toEqual([
      ['RunPodSandbox', '47fba903-9c81-4c87-ab6c-9794e0829414'],
      ['RunPodSandbox', '8861c2f4-e635-43d3-a6af-f826801ed969'],
    ]);
    const unwanted = of(events, 'log.raw').find((e) => e.origin?.line === 26);
    expect(unwanted?.text).toBe('Killing unwanted pod "prop-prometheus-operator-admission-patch-tbln5"');
    // the CNI plugin's own lines on the kubelet's stderr are kept, each on its own
    expect(of(events, 'log.raw').find((e) => e.origin?.line === 23)?.text).toMatch(
      /\[cni-ipam\] Plugin azure-vnet-ipam/,
    );
  });
});

describe('10: v1.16–1.18 journald, glog messages, damaged lines', () => {
  const { events, summary } = load('10-v1.16-1.18-journald-glog-v2-sandbox-create-failure', 2020);
  const uid = '1bcd0d00-baf1-11ea-88c6-0242c0219250';

  it('counts the blank lines and still reads the line whose prefix lost its first letter', () => {
    wellFormed(events);
    expect(summary.lines).toBe(27);
    expect(summary.blank).toBe(2);
    expect(summary.nodes).toEqual(['prod-k8s-node']);
    expect(events.find((e) => e.origin?.line === 13)).toMatchObject({
      type: 'log.raw',
      level: 'W',
      source: 'kubelet_pods.go:832',
    });
    expect(new Date(summary.lastTime as number).toISOString()).toBe('2020-07-01T09:35:23.269Z');
  });

  it('has the sandbox failure as a CreatePodSandbox SyncResult, the retries and the late DELETE/REMOVE', () => {
    const err = of(events, 'sync.result')[0];
    expect(err?.actions.map((a) => [a.action, a.error])).toEqual([
      ['CreatePodSandbox', 'CreatePodSandboxError'],
    ]);
    expect(err?.podUID).toBe(uid);
    expect(of(events, 'runtime.call').filter((e) => e.method === 'RunPodSandbox')).toHaveLength(6);
    expect(of(events, 'config.update').map((e) => e.op)).toEqual(['ADD', 'DELETE', 'DELETE', 'REMOVE']);
  });
});
