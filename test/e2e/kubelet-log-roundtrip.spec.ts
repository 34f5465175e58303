/**
 * The engine's kubelet.log, read back: the scenarios run on the simulated node, then the log the server wrote
 * (<data-dir>/kubelet.log at the default -v=2) and the same trace formatted at -v=4 are imported with the
 * kubelet-log importer, and each pod must tell the same story as the live trace (config ops, PLEG events,
 * sync errors, back-off windows), and the pod-state reducer must give each pod read from the log the state the
 * live engine reported last: kubectl's STATUS and RESTARTS, each container's last exit code, and the ladder of
 * back-off windows.
 */
import { printPod } from '@syncscope/core/api';
import type { Pod, PodStatus } from '@syncscope/core/api/v1';
import { factValue, PodStateReducer } from '@syncscope/core/pod-state';
import type { TraceEvent } from '@syncscope/core/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenarios, type ScenarioOutcome } from '../scenarios/run.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { compareStories, formatTrace, importLog, readKubeletLog } from '../support/klog-roundtrip.ts';

/** What the engine reported last for a pod: its last status as kubectl prints it, and its back-off ladder. */
interface Reported {
  status: string;
  restarts: number;
  /** per exited container instance (its runtime ID), the exit code the status shows for it */
  exits: Record<string, number>;
  /** per container, the delays of its back-off windows, in order */
  ladders: Record<string, number[]>;
  /** the time of the status (the engine's last) */
  at: number;
}

/** the generic PLEG's relist period */
const RELIST_MS = 1_000;

const bare = (id: string) => id.replace(/^[a-z-]+:\/\//, '');

function liveReport(events: readonly TraceEvent[], pod: string): Reported | undefined {
  let last: { status: PodStatus; time: number; uid: string } | undefined;
  const ladders: Record<string, number[]> = {};
  const seen = new Set<string>();
  for (const e of events) {
    if (!('pod' in e) || e.pod !== pod) continue;
    if (e.type === 'status.update') last = { status: e.status, time: e.time, uid: e.podUID };
    if (e.type === 'backoff' && e.kind === 'container' && !seen.has(`${e.container}/${e.until}`)) {
      seen.add(`${e.container}/${e.until}`);
      ladders[e.container] = [...(ladders[e.container] ?? []), e.delayS];
    }
  }
  if (!last) return undefined;
  const slash = pod.indexOf('/');
  const regular = last.status.containerStatuses ?? [];
  const p: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace: pod.slice(0, slash), name: pod.slice(slash + 1), uid: last.uid },
    spec: { containers: regular.map((c) => ({ name: c.name, image: c.image })) },
    status: last.status,
  };
  const exits: Record<string, number> = {};
  for (const c of [...(last.status.initContainerStatuses ?? []), ...regular]) {
    const t = c.state.terminated ?? c.lastState.terminated;
    const id = c.state.terminated ? c.containerID : c.lastState.terminated?.containerID;
    if (t && id) exits[bare(id)] = t.exitCode;
  }
  const row = printPod(p, last.time);
  return { status: row.status, restarts: Number.parseInt(row.restarts, 10), exits, ladders, at: last.time };
}

/** The same, as the reducer works it out from the log's events (the container names the log gives). */
function reducerReport(events: readonly TraceEvent[], pod: string, until: number): Reported | undefined {
  const r = new PodStateReducer();
  for (const e of events) if ('pod' in e && e.pod === pod && e.time <= until) r.add(e);
  const s = r.snapshots().find((x) => !x.removed) ?? r.snapshots()[0];
  if (!s) return undefined;
  const exits: Record<string, number> = {};
  for (const c of s.containers) {
    const st = factValue(c.state);
    const last = factValue(c.lastState);
    const t = st?.kind === 'terminated' ? st : (last ?? undefined);
    if (t?.containerID && t.exitCode !== undefined) exits[bare(t.containerID)] = t.exitCode;
  }
  const ladders: Record<string, number[]> = {};
  for (const b of s.backoffs)
    if (b.kind === 'container') ladders[b.container] = b.ladder.map((w) => w.delayS);
  return {
    status: factValue(s.statusWord) ?? '',
    restarts: factValue(s.restarts) ?? -1,
    exits,
    ladders,
    at: until,
  };
}

let h: Harness;
let outcomes: Map<string, ScenarioOutcome>;
let live: TraceEvent[];
let fileText: string;

beforeAll(async () => {
  h = await startHarness();
  outcomes = await runScenarios(h);
  // the server stops first (its close writes what is queued), so the log and the trace end at the same event
  await h.built.close();
  live = h.built.trace.since(0);
  fileText = await readKubeletLog(h.dataDir);
}, 150_000);

afterAll(async () => {
  await h?.close();
});

describe('kubelet.log round trip on the simulated node', () => {
  it('the scenarios ran', () => {
    for (const [name, o] of outcomes) expect(o.error, name).toBeUndefined();
    expect(h.built.kubeletLog.dropped).toBe(0);
  });

  it('the server wrote a klog file at -v=2 whose lines the importer reads', () => {
    // a multi-line value (a probe's output) continues in lines that start with a tab and end with " >"
    const lines = fileText.split('\n').filter((l) => l !== '' && !l.startsWith('\t') && l !== ' >');
    expect(lines.length).toBeGreaterThan(50);
    for (const l of lines) expect(l).toMatch(/^[IE]\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ [\w.]+\.go:\d+\] "/);
    // -v=4 lines stay out at -v=2
    expect(fileText).not.toContain('"SyncLoop (SYNC) pods"');
    expect(fileText).not.toContain('"Processing pod event"');
    const imported = importLog(fileText, live);
    // the one line it keeps raw is one it has no event for
    const raw = imported.filter((e) => e.type === 'log.raw').map((e) => (e.type === 'log.raw' ? e.text : ''));
    expect(raw).toEqual(['"Starting kubelet main sync loop"']);
    // a SyncResult's message is quoted inside the error, and read back whole
    const err = imported.find((e) => e.type === 'sync.result' && e.pod === 'default/sc-noimage' && e.error);
    expect(err?.type === 'sync.result' && err.actions[0]?.message).toMatch(/doesnotexist:1/);
  });

  for (const v of [2, 4]) {
    it(`each pod tells the same story after the log at -v=${v} is imported`, () => {
      const text = v === 2 ? fileText : formatTrace(live, v);
      const { pods, live: want, imported: got, late } = compareStories(live, importLog(text, live), v);
      expect(pods).toEqual(
        expect.arrayContaining(['default/sc-crash', 'default/sc-noimage', 'default/sc-grace']),
      );
      for (const p of pods) expect(got[p], p).toEqual(want[p]);
      // the scenarios do reach each part of the story
      expect(want['default/sc-crash']?.backoffs.length).toBeGreaterThan(0);
      expect(want['default/sc-crash']?.errors.length).toBeGreaterThan(0);
      // each container window ends when the engine's did, or a little later (the death as the log shows it),
      // never a whole run sooner
      expect(late['default/sc-crash']?.length).toBeGreaterThan(0);
      for (const p of pods)
        for (const ms of late[p] ?? []) {
          expect(ms, p).toBeGreaterThanOrEqual(0);
          expect(ms, p).toBeLessThan(5_000);
        }
      expect(want['default/sc-noimage']?.backoffs.some((b) => b.startsWith('image:'))).toBe(true);
      expect(want['default/sc-grace']?.config).toEqual(expect.arrayContaining(['ADD', 'DELETE', 'REMOVE']));
    });
  }

  /**
   * The example pods (examples/*.yaml as the scenarios run them) at both verbosities, and every scenario's
   * pod at -v=4, where the log names each container. A -v=2 log names none (only IDs): there an init
   * container that completed cannot be told from a regular one the next start restarts, so sc-init is read
   * at -v=4 only.
   */
  const EXAMPLES = ['sc-run', 'sc-crash', 'sc-noimage', 'sc-ok'];
  const ALL = [...EXAMPLES, 'sc-init', 'sc-fail', 'sc-live', 'sc-ready', 'sc-oom', 'sc-nocmd', 'sc-grace'];
  for (const v of [2, 4]) {
    describe(`each pod read from the log at -v=${v} has the state the engine reported`, () => {
      for (const name of v === 2 ? EXAMPLES : ALL) {
        it(name, () => {
          const text = v === 2 ? fileText : formatTrace(live, v);
          const pod = `default/${name}`;
          const want = liveReport(live, pod) as Reported;
          expect(want, pod).toBeDefined();
          const events = importLog(text, live);
          // the state as the log had told it when the engine wrote its last status, or within the relist
          // after it (the kubelet writes a terminated pod's status from its own read of the runtime, before
          // the relist reports the death)
          const at = reducerReport(events, pod, want.at);
          const later = reducerReport(events, pod, want.at + RELIST_MS);
          expect(at, `${pod} read from the log`).toBeDefined();
          const { at: _, ...got } = [at, later].find((r) => r?.status === want.status) ?? (at as Reported);
          const { at: __, ...reported } = want;
          expect(got, pod).toEqual(reported);
        });
      }
    });
  }
});
