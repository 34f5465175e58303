/**
 * The kubelet scenarios on a real containerd (a private one, started by scripts/containerd/up.sh), and the
 * differential test: the same scenarios on the simulated node must leave the same trace summary (worker states,
 * PLEG events, sync actions and error tokens, final reasons; ids and times aside).
 */

import { type PrivateContainerd, startPrivateContainerd } from '@syncscope/server/private-containerd';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenarios, type ScenarioOutcome } from '../scenarios/run.ts';
import { scenarios } from '../scenarios/scenarios.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let ctd: PrivateContainerd;
let onContainerd: Harness;
let onSim: Harness;
let real: Map<string, ScenarioOutcome>;
let sim: Map<string, ScenarioOutcome>;

beforeAll(async () => {
  ctd = await startPrivateContainerd(`/tmp/syncscope-ctd-${process.pid}`);
  onContainerd = await startHarness({ runtimeEndpoint: ctd.endpoint });
  onSim = await startHarness();
  [real, sim] = await Promise.all([runScenarios(onContainerd), runScenarios(onSim)]);
}, 180_000);

afterAll(async () => {
  await onContainerd?.close();
  await onSim?.close();
  await ctd?.stop();
});

describe('scenarios on containerd', () => {
  for (const s of scenarios) {
    it(s.name, () => {
      const o = real.get(s.name);
      if (o?.error) throw o.error;
      expect(o?.summary).toBeDefined();
    });
  }
});

describe('differential: simulated node vs containerd', () => {
  for (const s of scenarios) {
    it(s.name, () => {
      const a = real.get(s.name);
      const b = sim.get(s.name);
      if (a?.error || b?.error)
        throw new Error(`scenario failed on ${a?.error ? 'containerd' : 'the simulated node'}`);
      expect(b?.summary).toEqual(a?.summary);
    });
  }
});
