/**
 * A log of several kubelets explained by node: the fleet sample (packages/core/src/pod-state/testdata) runs the
 * same static pod on master-0 and master-1 under one UID. Each node's pod is its own, read only from its own
 * kubelet's lines, with the counts an explainer of that node's lines alone gives; the log's counts are the
 * nodes' summed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importKubeletLog } from '../kubelet-log/index.ts';
import { NodeExplainers } from './by-node.ts';
import { explainTrace } from './explainer.ts';

const LOG = join(import.meta.dirname, '..', 'pod-state', 'testdata', 'fleet.log');
const CVO = 'openshift-cluster-version/bootstrap-cluster-version-operator-localhost.localdomain';

describe('NodeExplainers', () => {
  it("reads each kubelet's pods from its own lines, a static pod's UID on two masters as two pods", () => {
    const { events } = importKubeletLog(readFileSync(LOG, 'utf8'), { year: 2025 });
    const x = new NodeExplainers({ keep: 'none' });
    for (const ev of events) x.add(ev);
    const r = x.result();
    const cvo = r.nodes.flatMap((n) => n.pods.filter((p) => p.pod === CVO).map((p) => ({ node: n.node, p })));
    expect(cvo.map((c) => c.node).sort()).toEqual(['master-0', 'master-1']);
    expect(cvo[0]?.p.uid).toBe(cvo[1]?.p.uid);
    for (const { node, p } of cvo) {
      const alone = explainTrace(events.filter((e) => e.node === node)).pods.find((q) => q.uid === p.uid);
      expect(p.counts, node).toEqual(alone?.counts);
    }
    const steps = r.nodes.reduce((n, node) => n + node.counts.steps, 0);
    expect(r.counts.steps).toBe(steps);
    expect(r.counts.steps).toBeGreaterThan(0);
  });
});
