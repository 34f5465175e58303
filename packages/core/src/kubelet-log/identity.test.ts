/**
 * A pod told by pieces from several lines: "Killing unwanted pod" names the pod alone, the line that kills its
 * containers just after names it whole; a line no family reads may be the only one that gives a pod's name with
 * its UID, and a line that names the pod by UID alone then joins it. Lines shaped as an AKS node (v1.15, glog)
 * and an OpenShift master (v1.31, structured) wrote them.
 */
import { describe, expect, it } from 'vitest';
import { importKubeletLog } from './index.ts';

const UID = '2d1c9e7a-43f1-11ea-9a5b-000d3a4f8e21';
const AKS = (t: string, src: string, msg: string) =>
  `Jan 30 23:28:${t.slice(0, 2)} aks-agentpool-57418505-vmss000000 kubelet[4382]: I0130 23:28:${t}    4382 ${src}] ${msg}`;

describe('a pod told across lines', () => {
  it('"Killing unwanted pod" names the pod the kill of its containers names whole a moment later', () => {
    const text = [
      AKS(
        '21.135911',
        'kubelet_pods.go:1090',
        'Killing unwanted pod "prop-prometheus-operator-admission-patch-tbln5"',
      ),
      AKS(
        '21.136420',
        'kuberuntime_container.go:581',
        `Killing container "docker://5be1c1f9a0" with 30 second grace period`,
      ),
      AKS(
        '21.140015',
        'kubelet.go:1933',
        `SyncLoop (PLEG): "prop-prometheus-operator-admission-patch-tbln5_monitoring(${UID})", event: &pleg.PodLifecycleEvent{ID:"${UID}", Type:"ContainerDied", Data:"5be1c1f9a0"}`,
      ),
    ].join('\n');
    const { events, summary } = importKubeletLog(text, { year: 2020 });
    expect(summary.raw).toBe(0);
    expect(events.find((e) => e.type === 'worker.update')).toMatchObject({
      updateType: 'SyncPodKill',
      pod: 'monitoring/prop-prometheus-operator-admission-patch-tbln5',
      podUID: UID,
    });
    expect(events.find((e) => e.type === 'worker.update')).not.toHaveProperty('podName');
  });

  it('an unwanted pod no line names whole stays a raw line', () => {
    const { events, summary } = importKubeletLog(
      AKS(
        '21.135911',
        'kubelet_pods.go:1090',
        'Killing unwanted pod "prop-prometheus-operator-admission-patch-tbln5"',
      ),
      { year: 2020 },
    );
    expect(summary).toMatchObject({ raw: 1, understood: 0 });
    expect(events.map((e) => e.type)).toEqual(['log.raw']);
  });

  it("a device manager's line with the pod's UID alone joins the pod a raw line named both ways", () => {
    const ocp = (t: string, src: string, msg: string) =>
      `May 12 05:00:${t.slice(0, 2)} master-0 kubenswrapper[2473]: I0512 05:00:${t}    2473 ${src}] ${msg}`;
    const text = [
      ocp(
        '01.000000',
        'kubelet.go:2000',
        `"Pod admitted by the topology manager" pod="gpu/trainer-0" podUID="${UID}"`,
      ),
      ocp(
        '01.100000',
        'manager.go:839',
        `"Looking for needed resources" needed=1 resourceName="nvidia.com/gpu" podUID="${UID}"`,
      ),
    ].join('\n');
    const { events } = importKubeletLog(text, { year: 2025 });
    expect(events.map((e) => (e as { pod?: string }).pod)).toEqual(['gpu/trainer-0', 'gpu/trainer-0']);
  });
});

describe('a kubelet started again', () => {
  const line = (pid: number, t: string, src: string, msg: string) =>
    `May 12 ${t.slice(0, 8)} master-0 kubenswrapper[${pid}]: I0512 ${t}    ${pid} ${src}] ${msg}`;
  const died = (pid: number, t: string, cid: string) =>
    line(
      pid,
      t,
      'kubelet.go:2453',
      `"SyncLoop (PLEG): event for pod" pod="openshift-etcd/etcd-master-0" event={"ID":"${UID}","Type":"ContainerDied","Data":"${cid}"}`,
    );
  const add = (pid: number, t: string) =>
    line(pid, t, 'kubelet.go:2421', '"SyncLoop ADD" source="file" pods=["openshift-etcd/etcd-master-0"]');

  it('the containers that exited before it started are what it found, not runs that started again', () => {
    const text = [
      add(2473, '05:00:01.000000'),
      died(2473, '05:00:02.000000', 'aaa111'),
      // the kubelet restarted (a new process): its first relist lists the exited containers
      add(3100, '06:10:00.000000'),
      died(3100, '06:10:01.500000', 'bbb222'),
      died(3100, '06:10:01.500000', 'ccc333'),
      // a minute on, a container that dies unseen ran between two relists
      died(3100, '06:15:00.000000', 'ddd444'),
    ].join('\n');
    const { events } = importKubeletLog(text, { year: 2025 });
    const pleg = events.filter((e) => e.type === 'pleg.event') as (typeof events)[number][];
    const started = pleg.filter((e) => (e as { event?: string }).event === 'ContainerStarted');
    expect(started.map((e) => (e as { containerID?: string }).containerID)).toEqual(['aaa111', 'ddd444']);
    expect(pleg.filter((e) => (e as { event?: string }).event === 'ContainerDied')).toHaveLength(4);
  });
});
