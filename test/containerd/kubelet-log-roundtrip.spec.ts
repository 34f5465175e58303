/**
 * The engine's kubelet.log read back on a real containerd (a private one, scripts/containerd/up.sh): the
 * scenarios run, then the log the server wrote (-v=2) and the trace formatted at -v=4 are imported, and each
 * pod must tell the same story as the live trace (config ops, PLEG events, sync errors, back-off windows).
 */

import type { TraceEvent } from '@syncscope/core/trace';
import { type PrivateContainerd, startPrivateContainerd } from '@syncscope/server/private-containerd';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenarios, type ScenarioOutcome } from '../scenarios/run.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { compareStories, formatTrace, importLog, readKubeletLog } from '../support/klog-roundtrip.ts';

let ctd: PrivateContainerd;
let h: Harness;
let outcomes: Map<string, ScenarioOutcome>;
let live: TraceEvent[];
let fileText: string;

beforeAll(async () => {
  ctd = await startPrivateContainerd(`/tmp/syncscope-ctd-klog-${process.pid}`);
  h = await startHarness({ runtimeEndpoint: ctd.endpoint });
  outcomes = await runScenarios(h);
  // the server stops first (its close writes what is queued), so the log and the trace end at the same event
  await h.built.close();
  live = h.built.trace.since(0);
  fileText = await readKubeletLog(h.dataDir);
}, 240_000);

afterAll(async () => {
  await h?.close();
  await ctd?.stop();
});

describe('kubelet.log round trip on containerd', () => {
  it('the scenarios ran and no line was dropped', () => {
    for (const [name, o] of outcomes) expect(o.error, name).toBeUndefined();
    expect(h.built.kubeletLog.dropped).toBe(0);
  });

  for (const v of [2, 4]) {
    it(`each pod tells the same story after the log at -v=${v} is imported`, () => {
      const text = v === 2 ? fileText : formatTrace(live, v);
      const { pods, live: want, imported: got, late } = compareStories(live, importLog(text, live), v);
      expect(pods).toEqual(
        expect.arrayContaining(['default/sc-crash', 'default/sc-noimage', 'default/sc-grace']),
      );
      for (const p of pods) expect(got[p], p).toEqual(want[p]);
      expect(want['default/sc-crash']?.backoffs.length).toBeGreaterThan(0);
      expect(want['default/sc-crash']?.pleg.length).toBeGreaterThan(0);
      // each container window ends when the engine's did, or a little later (the death as the log shows it),
      // never a whole run sooner
      expect(late['default/sc-crash']?.length).toBeGreaterThan(0);
      for (const p of pods)
        for (const ms of late[p] ?? []) {
          expect(ms, p).toBeGreaterThanOrEqual(0);
          expect(ms, p).toBeLessThan(5_000);
        }
    });
  }
});
