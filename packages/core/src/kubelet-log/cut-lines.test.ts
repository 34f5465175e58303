/**
 * Lines as bug reports paste them: cut by a pager (`less -S` puts `>` in the last column), cut with an ellipsis,
 * a multi-line value whose lines were left out, a grep that printed a line twice; and the pod killer's failure
 * that a report quotes as its symptom. The lines are shaped as the nodes wrote them (an OpenShift master through
 * journald, an AKS node's `Failed killing the pod` as quoted in a public bug report); names shortened.
 */
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../events/trace.ts';
import { importKubeletLog } from './index.ts';

const OCP = (t: string, src: string, msg: string) =>
  `May 12 05:19:${t.slice(0, 2)} master-0 kubenswrapper[2473]: I0512 05:19:${t}    2473 ${src}] ${msg}`;
const UID = '6f1e2d3c-4b5a-4978-8a1b-2c3d4e5f6a7b';
const NAME = /^[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?\/[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?$/;
const podsOf = (events: TraceEvent[]) =>
  [
    ...new Set(events.map((e) => (e as { pod?: string }).pod).filter((p) => p !== undefined && p !== '')),
  ].sort();

describe('cut lines', () => {
  it("a pod reference cut by a pager's `>` or an ellipsis names no pod", () => {
    const text = [
      OCP(
        '09.100000',
        'kubelet.go:2431',
        '"SyncLoop DELETE" source="api" pods=["openshift-marketplace/certified-operators-x7k2p"]',
      ),
      OCP(
        '09.200000',
        'kuberuntime_container.go:808',
        '"Killing container with a grace period" pod="openshift-marketplace/cert>',
      ),
      OCP(
        '09.300000',
        'kubelet.go:2453',
        '"SyncLoop (PLEG): event for pod" pod="openshift-marketplace/community-op…',
      ),
      OCP(
        '09.400000',
        'kubelet.go:2431',
        '"SyncLoop REMOVE" source="api" pods=["openshift-marketplace/redhat-operators-...',
      ),
    ].join('\n');
    const { events, summary } = importKubeletLog(text, { year: 2025 });
    expect(podsOf(events)).toEqual(['openshift-marketplace/certified-operators-x7k2p']);
    expect(podsOf(events).every((p) => NAME.test(p as string))).toBe(true);
    expect(summary.pods).toBe(1);
  });

  it('a probe whose multi-line output was cut off after `output=<` reports no output, not "<"', () => {
    const text = [
      OCP(
        '10.000000',
        'prober.go:107',
        `"Probe failed" probeType="Readiness" pod="openshift-etcd/etcd-master-0" podUID="${UID}" containerName="etcd" probeResult="failure" output=<`,
      ),
      OCP('11.000000', 'kubelet.go:2204', '"SyncLoop (housekeeping)"'),
    ].join('\n');
    const probe = importKubeletLog(text, { year: 2025 }).events.find((e) => e.type === 'probe.result');
    expect(probe).toMatchObject({
      type: 'probe.result',
      result: 'Failure',
      pod: 'openshift-etcd/etcd-master-0',
    });
    expect(probe).not.toHaveProperty('output');
  });

  it('the same ContainerDied printed twice by a grep, with its `container finished` line between: one death', () => {
    const died = OCP(
      '18.500000',
      'kubelet.go:2453',
      `"SyncLoop (PLEG): event for pod" pod="default/alloc-mem-leak" event={"ID":"${UID}","Type":"ContainerDied","Data":"d3f3b2f7f02b"}`,
    );
    const finished = OCP(
      '18.400000',
      'generic.go:334',
      `"Generic (PLEG): container finished" podID="${UID}" containerID="d3f3b2f7f02b" exitCode=0`,
    );
    const { events } = importKubeletLog([died, finished, died].join('\n'), { year: 2025 });
    const pleg = events.filter((e) => e.type === 'pleg.event');
    expect(pleg).toHaveLength(1);
    expect(pleg[0]).toMatchObject({ event: 'ContainerDied', exitCode: 0, pod: 'default/alloc-mem-leak' });
  });

  it('"Failed killing the pod" with a KillContainerError is the kill\'s failed result, filed under its pod', () => {
    const aks = (t: string, l: string, src: string, msg: string) =>
      `Jan 14 18:02:${t.slice(0, 2)} aks-agentpool-20086390-vmss00003c kubelet[3044]: ${l}0114 18:02:${t}    3044 ${src}] ${msg}`;
    const text = [
      aks(
        '18.900000',
        'I',
        'kuberuntime_container.go:709',
        `"Killing container with a grace period" pod="default/alloc-mem-leak" podUID=${UID} containerName="alloc-mem" containerID="containerd://d3f3b2f7f02b" gracePeriod=30`,
      ),
      aks(
        '19.001858',
        'E',
        'kubelet_pods.go:1288',
        '"Failed killing the pod" err="failed to \\"KillContainer\\" for \\"alloc-mem\\" with KillContainerError: \\"rpc error: code = NotFound desc = an error occurred when try to find container \\\\\\"d3f3b2f7f02b\\\\\\": not found\\"" podName="alloc-mem-leak"',
      ),
      // the glog form of the same failure (kubelets before v1.20)
      aks(
        '20.000000',
        'E',
        'kubelet_pods.go:1100',
        'Failed killing the pod "alloc-mem-leak": failed to "KillPodSandbox" for "6f1e2d3c" with KillPodSandboxError: "rpc error: code = Unknown desc = operation timeout"',
      ),
    ].join('\n');
    const { events, summary } = importKubeletLog(text, { year: 2025 });
    expect(summary.raw).toBe(0);
    const results = events.filter((e) => e.type === 'sync.result');
    expect(results).toMatchObject([
      {
        workType: 'TerminatingPod',
        pod: 'default/alloc-mem-leak',
        podUID: UID,
        actions: [{ action: 'KillContainer', target: 'alloc-mem', error: 'KillContainerError' }],
      },
      {
        workType: 'TerminatingPod',
        pod: 'default/alloc-mem-leak',
        actions: [{ action: 'KillPodSandbox', error: 'KillPodSandboxError' }],
      },
    ]);
    expect((results[0] as { actions: { message?: string }[] }).actions[0]?.message).toContain('NotFound');
  });
});
