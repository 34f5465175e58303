/**
 * The kubelet scenarios on the simulated node, black-box through the API and the trace (the same scenarios run
 * on containerd in test/containerd).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenarios, type ScenarioOutcome } from '../scenarios/run.ts';
import { scenarios } from '../scenarios/scenarios.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
let outcomes: Map<string, ScenarioOutcome>;

beforeAll(async () => {
  h = await startHarness();
  outcomes = await runScenarios(h);
}, 120_000);

afterAll(async () => {
  await h?.close();
});

describe('scenarios on the simulated node', () => {
  for (const s of scenarios) {
    it(s.name, () => {
      const o = outcomes.get(s.name);
      if (o?.error) throw o.error;
      expect(o?.summary).toBeDefined();
    });
  }
});
