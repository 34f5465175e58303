/**
 * Runs every scenario against one harness, all pods at once (as a node would), and collects each pod's
 * runtime-independent summary at the moment its scenario's expectation was met.
 */
import type { Harness } from '../support/harness.ts';
import { plegSummary, type Scenario, scenarios, summarize } from './scenarios.ts';

export interface ScenarioOutcome {
  scenario: Scenario;
  error?: unknown;
  summary?: Record<string, unknown>;
}

export async function runScenarios(
  h: Harness,
  only: Scenario[] = scenarios,
): Promise<Map<string, ScenarioOutcome>> {
  const out = new Map<string, ScenarioOutcome>();
  await Promise.all(
    only.map(async (scenario) => {
      try {
        const pod = await h.apply(scenario.pod);
        const uid = pod.metadata.uid as string;
        await scenario.run(h, uid);
        const summary = summarize(h.podTrace(uid), h.built.engine.getPodByUID(uid)?.status);
        let relists = 0;
        const stop = h.built.trace.subscribe((e) => {
          if (e.type === 'pleg.relist') relists++;
        });
        await h.waitFor('two more relists', () => relists >= 2, 30_000).finally(stop);
        summary.pleg = plegSummary(h.podTrace(uid));
        out.set(scenario.name, { scenario, summary });
      } catch (error) {
        out.set(scenario.name, { scenario, error });
      }
    }),
  );
  return out;
}
