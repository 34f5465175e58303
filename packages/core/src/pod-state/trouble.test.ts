/**
 * Pods in trouble over a log of several kubelets (./testdata/fleet.log: the importer's real sample logs under
 * their own hosts, two of them as a second node too, see ./testdata/README.md). What each node's log leaves
 * wrong at its end is counted from the text here, then read back through the importer and the reducer.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../events/trace.ts';
import { importKubeletLog } from '../kubelet-log/index.ts';
import { PodStateReducer } from './reducer.ts';
import { podTrouble, type Trouble } from './trouble.ts';

const text = readFileSync(new URL('./testdata/fleet.log', import.meta.url), 'utf8');
const lines = text.split('\n');
const { events, summary } = importKubeletLog(text, { year: 2026 });

/** Each node's pods in trouble at the end of its own lines: pod → the kinds of trouble. */
function troubleByNode(all: readonly TraceEvent[]): Map<string, Map<string, Trouble[]>> {
  const reducers = new Map<string, PodStateReducer>();
  for (const ev of all) {
    const key = ev.node ?? '';
    let r = reducers.get(key);
    if (!r) {
      r = new PodStateReducer();
      reducers.set(key, r);
    }
    r.add(ev);
  }
  const out = new Map<string, Map<string, Trouble[]>>();
  for (const [node, r] of reducers) {
    const m = new Map<string, Trouble[]>();
    for (const s of r.snapshots()) {
      const t = podTrouble(s);
      if (t.length > 0) m.set(s.pod, t);
    }
    out.set(node, m);
  }
  return out;
}

const kinds = (t: Trouble[] | undefined) => [...new Set((t ?? []).map((x) => x.kind))].sort();

describe('pods in trouble across the kubelets of one log', () => {
  const byNode = troubleByNode(events);
  const CVO = 'openshift-cluster-version/bootstrap-cluster-version-operator-localhost.localdomain';

  it('the log is seven kubelets: five by their hosts, two bare klog processes', () => {
    expect(summary.nodes).toEqual([
      'sanji',
      'aks-agentpool-57418505-vmss000000',
      'master-0',
      'master-1',
      'prod-k8s-node',
      'pid 3312',
      'pid 4601',
    ]);
  });

  it('a log ending inside a back-off window: CrashLoopBackOff with the delay of its last back-off line', () => {
    const m1 = lines.filter((l) => l.includes(' master-1 kubelet.sh[2519]: '));
    const backoffAt = m1.map((l, i) =>
      /back-off \d+s restarting failed container=cluster-version-operator/.test(l) ? i : -1,
    );
    const startAt = m1.map((l, i) =>
      l.includes('"Type":"ContainerStarted"') && l.includes('aba17767') ? i : -1,
    );
    const lastBackoff = Math.max(...backoffAt);
    expect(lastBackoff).toBeGreaterThan(Math.max(...startAt));
    const last = m1[lastBackoff];
    const delay = /back-off (\d+)s/.exec(last as string)?.[1];
    const t = byNode.get('master-1')?.get(CVO);
    expect(kinds(t)).toContain('back-off');
    expect(t?.find((x) => x.kind === 'back-off')?.words).toBe(
      `CrashLoopBackOff: cluster-version-operator, back-off ${delay}s`,
    );
    // the same pod on master-0, whose log goes on to its restart, is not in back-off
    expect(kinds(byNode.get('master-0')?.get(CVO))).not.toContain('back-off');
  });

  it('a pod deleted and never removed, past its kill grace: stuck terminating', () => {
    const p = lines.filter((l) => /^I\d{4} [\d:.]+ +4601 /.test(l));
    const kill = p.find((l) => /Killing container .* with 30 second grace period/.test(l));
    expect(kill).toBeDefined();
    expect(p.some((l) => l.includes('SyncLoop (REMOVE'))).toBe(false);
    const t = byNode.get('pid 4601')?.get('gcp-filestore-csi-driver/gcp-filestore-csi-node-m4wq7');
    expect(kinds(t)).toEqual(['terminating']);
    expect(t?.[0]?.words).toMatch(/^Terminating 41s, 11s past its grace deadline$/);
    // the same pod on the node whose log has its REMOVE is gone, not in trouble
    expect(byNode.get('pid 3312')?.size).toBe(0);
  });

  it('a sync that keeps failing on volumes, and probes whose last result is a failure', () => {
    const sanji = byNode.get('sanji');
    const plex = sanji?.get('media/volsync-src-plex-ksn6d');
    expect(kinds(plex)).toEqual(['sync']);
    expect(plex?.[0]?.words).toContain('unmounted volumes=[cache data kube-api-access-cg4h9 tempdir]');
    const keepalived = byNode
      .get('master-0')
      ?.get('openshift-vsphere-infra/keepalived-localhost.localdomain');
    expect(kinds(keepalived)).toEqual(['probe']);
    expect(keepalived?.map((x) => x.words)).toContain('Liveness probe failing: keepalived ×3');
  });

  it('nodes whose logs leave nothing wrong have no pod in trouble', () => {
    expect(byNode.get('aks-agentpool-57418505-vmss000000')?.size).toBe(0);
    expect(byNode.get('prod-k8s-node')?.size).toBe(0);
  });
});
