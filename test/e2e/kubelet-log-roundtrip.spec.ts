/**
 * The engine's kubelet.log, read back: the scenarios run on the simulated node, then the log the server wrote
 * (<data-dir>/kubelet.log at the default -v=2) and the same trace formatted at -v=4 are imported with the
 * kubelet-log importer, and each pod must tell the same story as the live trace (config ops, PLEG events,
 * sync errors, back-off windows).
 */
import type { TraceEvent } from '@syncscope/core/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenarios, type ScenarioOutcome } from '../scenarios/run.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { compareStories, formatTrace, importLog, readKubeletLog } from '../support/klog-roundtrip.ts';

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
      // each container window ends when the engine's did, or later by less than the shortest window (the
      // death as the log shows it: at the relist that saw it, seconds late on a busy machine), never sooner
      expect(late['default/sc-crash']?.length).toBeGreaterThan(0);
      for (const p of pods)
        for (const ms of late[p] ?? []) {
          expect(ms, p).toBeGreaterThanOrEqual(0);
          expect(ms, p).toBeLessThan(10_000);
        }
      expect(want['default/sc-noimage']?.backoffs.some((b) => b.startsWith('image:'))).toBe(true);
      expect(want['default/sc-grace']?.config).toEqual(expect.arrayContaining(['ADD', 'DELETE', 'REMOVE']));
    });
  }
});
