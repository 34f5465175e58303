/**
 * Kubelet lines in the shapes people paste them into bug reports: a syslog tag without host or pid, a journal
 * entry's field listing, minikube quoting a node's line, minikube's sections, a paste indented as a whole, a line a
 * pager cut. Each shape was seen in a real report; the lines here are written for the test.
 */
import { describe, expect, it } from 'vitest';
import { of, run } from './test-lines.ts';

const UID = '3f361099-180f-11e8-bc4f-0a58ac1f05db';
const SYNC_ERROR = `Error syncing pod ${UID} ("web-0_shop(${UID})"), skipping: failed to "StartContainer" for "app" with CrashLoopBackOff: "back-off 1m20s restarting failed container=app pod=web-0_shop(${UID})"`;

describe('pasted kubelet lines', () => {
  it("a syslog tag without a pid, or a journal field's name, before the header is no node's name", () => {
    const { events, summary } = run([
      `kubelet: I0812 13:17:00.017310    9852 kubelet.go:1816] SyncLoop (ADD, "api"): "web-0_shop(${UID})"`,
      `MESSAGE: E0812 13:17:01.000000    9852 pod_workers.go:186] ${SYNC_ERROR}`,
      // a host's name stays one
      `node-a: I0812 13:17:02.000000    4711 kubelet.go:1816] SyncLoop (REMOVE, "api"): "web-0_shop(${UID})"`,
    ]);
    expect(summary.nodes).toEqual(['pid 9852', 'node-a']);
    expect(of(events, 'sync.result').map((e) => [e.node, e.pod])).toEqual([['pid 9852', 'shop/web-0']]);
  });

  it("minikube quoting a node's kubelet line after its own header: the quoted line is read, its node and time", () => {
    const { events, summary } = run([
      `W0415 09:05:56.906342   23012 logs.go:135] Found kubelet problem: Apr 15 09:00:41 host-a kubelet[23794]: E0415 09:00:41.701455   23794 pod_workers.go:191] ${SYNC_ERROR}`,
    ]);
    expect(summary.nodes).toEqual(['host-a']);
    expect(of(events, 'backoff').map((e) => [e.node, e.delayS, new Date(e.time).toISOString()])).toEqual([
      ['host-a', 80, '2024-04-15T09:00:41.701Z'],
    ]);
  });

  it("minikube's `* ==> name <==` sections: only the kubelet's is read", () => {
    const { summary } = run([
      '* ==> kube-scheduler <==',
      '* E0701 14:50:18.257739       1 factory.go:503] pod: kube-system/storage-provisioner is already present',
      '* ==> kubelet <==',
      '* Jul 01 14:50:16 minikube kubelet[1868]: I0701 14:50:16.357781    1868 remote_runtime.go:59] parsed scheme: ""',
    ]);
    expect(summary).toMatchObject({ nodes: ['minikube'], other: 2, understood: 1, raw: 1 });
  });

  it("a paste indented as a whole: `    host: {klog JSON}` lines are the host's", () => {
    const { summary } = run([
      '    10.0.0.8: {"ts":1702043013676.898,"caller":"config/apiserver.go:52","msg":"Watching apiserver","v":0}',
      '    10.0.0.8: {"ts":1702043013682.9958,"caller":"kubelet/kubelet.go:1872","msg":"Trying to delete pod","v":0}',
    ]);
    expect(summary).toMatchObject({ nodes: ['10.0.0.8'], raw: 2, other: 0 });
  });

  it("a line a pager cut (`>` at the edge) before the back-off's delay opens no back-off window", () => {
    const { events } = run([
      `Jul 06 08:26:09 node-a kubelet[2288]: E0706 08:26:09.403543    2288 pod_workers.go:962] "Error syncing pod, skipping" err="failed to \\"StartContainer\\" for \\"app\\" with CrashLoopBackOff: \\"back-off>`,
    ]);
    expect(of(events, 'sync.result')).toHaveLength(1);
    expect(of(events, 'backoff')).toEqual([]);
  });
});
