/**
 * A kubelet log's pods in the replay get their state from core's pod-state reducer: the pods table's STATUS,
 * READY and RESTARTS (inferred facts marked, unknown ones "—", never 0), the search finds "CrashLoop", and the
 * pod page's containers and back-off come from the same facts.
 */
import type { Pod } from '@syncscope/core/api';
import { importKubeletLog } from '@syncscope/core/kubelet-log';
import { describe, expect, it } from 'vitest';
import { filterEntries, rowEntry } from '../node/pod-rows.ts';
import { replayRows } from './node-rows-cache.ts';
import { factsOf, rowCells } from './pod-facts.ts';
import { cellTitle, type PodRowSummary } from './pod-state-core.ts';
import { buildReplay } from './replay.ts';

const UID = '0f0f0f0f-1111-2222-3333-444444444444';
const POD = 'shop/web-0';
const line = (t: string, file: string, msg: string, level = 'I') =>
  `Jun 01 10:${t} n1 kubelet[77]: ${level}0601 10:${t}.000000      77 ${file}] ${msg}`;
const pleg = (t: string, type: string, id: string) =>
  line(
    t,
    'kubelet.go:2453',
    `"SyncLoop (PLEG): event for pod" pod="${POD}" event={"ID":"${UID}","Type":"${type}","Data":"${id}"}`,
  );
const died = (t: string, id: string, code: number) => [
  line(
    t,
    'generic.go:334',
    `"Generic (PLEG): container finished" podID="${UID}" containerID="${id}" exitCode=${code}`,
  ),
  pleg(t, 'ContainerDied', id),
];
const backoff = (t: string, d: string) =>
  line(
    t,
    'pod_workers.go:1301',
    `"Error syncing pod, skipping" err="failed to \\"StartContainer\\" for \\"app\\" with CrashLoopBackOff: \\"back-off ${d} restarting failed container=app pod=web-0_shop(${UID})\\"" pod="${POD}" podUID="${UID}"`,
    'E',
  );
/** ADD, start c1; c1 dies, restarted at once as c2; c2 dies, back-off 10s, c3; c3 dies, back-off 20s: the log ends */
const LOG = [
  line('00:01', 'kubelet.go:2421', `"SyncLoop ADD" source="api" pods=["${POD}"]`),
  pleg('00:02', 'ContainerStarted', 'c1'),
  ...died('00:05', 'c1', 1),
  pleg('00:06', 'ContainerStarted', 'c2'),
  ...died('00:09', 'c2', 1),
  backoff('00:10', '10s'),
  pleg('00:21', 'ContainerStarted', 'c3'),
  ...died('00:24', 'c3', 2),
  backoff('00:25', '20s'),
].join('\n');

function replayPod(): Pod {
  const { events } = importKubeletLog(LOG, { year: 2024 });
  const store = buildReplay(events, 'kubelet.log');
  return store.pods.items[0] as Pod;
}

describe("a kubelet log's pods table", () => {
  it('shows CrashLoopBackOff and the restarts as inferred, READY as unknown, and the search finds it', () => {
    const pod = replayPod();
    const e = rowEntry(replayRows([pod]).list[0] as PodRowSummary);
    expect(e.status).toBe('CrashLoopBackOff');
    expect(e.row.status).toMatchObject({ basis: 'inferred', text: 'CrashLoopBackOff' });
    expect(cellTitle(e.row.status)).toMatch(/^inferred: .*CrashLoopBackOff from a back-off line/);
    expect(e.row.restarts).toMatchObject({ basis: 'inferred', text: '2' });
    expect(e.row.ready).toMatchObject({ basis: 'unknown', text: '—' });
    expect(cellTitle(e.row.ready)).toMatch(/^unknown: /);
    expect(filterEntries([e], '', 'CrashLoop')).toHaveLength(1);
  });

  it("gives the pod page the container, its last exit and the back-off window, with the log's lines", () => {
    const facts = factsOf(replayPod());
    const app = facts?.containers.find((c) => c.name.basis !== 'unknown' && c.name.value === 'app');
    expect(app?.state).toMatchObject({ value: { kind: 'waiting', reason: 'CrashLoopBackOff' } });
    expect(app?.lastState).toMatchObject({ value: { kind: 'terminated', exitCode: 2, reason: 'Error' } });
    const b = facts?.backoffs[0];
    expect(b?.ladder.map((r) => r.delayS)).toEqual([10, 20]);
    // stated by line 10, c3's "container finished … exitCode=2"
    expect(b?.exitCode).toMatchObject({ basis: 'stated', value: 2, from: { line: 10 } });
    expect(b?.outcome.kind).toBe('ends-inside');
    // the status the views read is the reducer's too
    expect(replayPod().status?.containerStatuses?.[0]?.state.waiting?.reason).toBe('CrashLoopBackOff');
  });

  it('a pod the log shows only by its ADD: Pending as ContainerCreating, no restarts yet (inferred)', () => {
    const { events } = importKubeletLog(LOG.split('\n')[0] as string, { year: 2024 });
    const pod = buildReplay(events, 'kubelet.log').pods.items[0] as Pod;
    const cells = rowCells(factsOf(pod) as NonNullable<ReturnType<typeof factsOf>>);
    expect(cells.status).toMatchObject({ basis: 'inferred', text: 'ContainerCreating' });
    expect(cells.restarts).toMatchObject({ basis: 'inferred', text: '0' });
  });
});
