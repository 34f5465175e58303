/**
 * The round trip: the engine's own trace, written as a kubelet's klog file (../klog, as the server writes
 * <data-dir>/kubelet.log) and read back by the importer, explained beside the kubelet's rules. The engine
 * follows them, so every back-off step agrees; an engine started with another maxContainerBackOff writes a
 * log that differs at exactly the windows past the cap and the restarts after them. The engine runs on an
 * in-process simulated node and a FakeClock (jitter 0), in virtual minutes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TraceEvent, TraceOf } from '../events/trace.ts';
import { kubeletLogLines } from '../klog/index.ts';
import { scriptPod, simKubelet } from '../kubelet/testing/sim-kubelet.ts';
import { importKubeletLog } from '../kubelet-log/index.ts';
import { explainTrace } from './explainer.ts';
import { defaultExplainParams, paramsFromConfig } from './params.ts';
import type { ExplainedStep } from './types.ts';

let logDir: string;
beforeEach(() => {
  logDir = mkdtempSync(join(tmpdir(), 'explain-'));
});
afterEach(() => rmSync(logDir, { recursive: true, force: true }));

/** A crash-looping pod for `minutes` virtual minutes: the live trace and the log it writes, imported. */
async function crashLoop(minutes: number, maxContainerBackOffMs = 300_000) {
  const { clock, trace, kl } = simKubelet({ podLogsDirectory: logDir, maxContainerBackOffMs }, 200_000);
  kl.addPod(
    scriptPod(clock, { uid: 'uid-1', name: 'cl' }, 'exit 1', {
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 1,
    }),
  );
  kl.start();
  await clock.step(minutes * 60_000);
  await kl.stop();
  const live = trace.since(0);
  const lines = live.flatMap((e) => kubeletLogLines(e, { v: 2, pid: 4242 }));
  const year = new Date((live[0] as TraceEvent).time).getUTCFullYear();
  const { events } = importKubeletLog(`${lines.join('\n')}\n`, { year });
  // the engine's windows, one per (container, end), in order
  const windows = [
    ...new Map(
      live
        .filter((e): e is TraceOf<'backoff'> => e.type === 'backoff' && e.kind === 'container')
        .map((b) => [b.until, b.delayS] as const),
    ).values(),
  ];
  return { live, events, windows };
}

const isWindow = (s: ExplainedStep) =>
  s.source.startsWith('container back-off') && /^window \d+/.test(s.model[0] ?? '');
const isRestart = (s: ExplainedStep) => /restarted .* after its death/.test(s.model[0] ?? '');

describe('the engine explained beside the kubelet', () => {
  it('its kubelet-format log agrees at every back-off step, windows and restarts', async () => {
    const { live, events, windows } = await crashLoop(15);
    expect(windows).toEqual([10, 20, 40, 80, 160, 300, 300]);
    for (const source of [events, live]) {
      const x = explainTrace(source);
      const pod = x.pods.find((p) => p.pod === 'default/cl');
      const all = pod?.steps ?? [];
      expect(all.filter(isWindow).map((s) => [s.verdict, (s.backoffMs ?? 0) / 1000])).toEqual(
        windows.map((d) => ['agrees', d]),
      );
      const restarts = all.filter(isRestart);
      // the first death restarts at once, then one restart after each window that ended in the run
      expect(restarts.length).toBeGreaterThanOrEqual(windows.length);
      for (const s of restarts) expect(s.verdict, s.model[0]).toBe('agrees');
      expect(pod?.counts).toMatchObject({ backoffWindows: 7, backoffWindowsAgreeing: 7, differs: 0 });
    }
  }, 60_000);

  it('an engine with maxContainerBackOff 40s differs at the windows past 40s and the restarts after them', async () => {
    const { events, windows } = await crashLoop(8, 40_000);
    expect(windows.slice(0, 5)).toEqual([10, 20, 40, 40, 40]);
    const x = explainTrace(events, { params: defaultExplainParams() });
    const all = x.pods.find((p) => p.pod === 'default/cl')?.steps ?? [];
    const ws = all.filter(isWindow);
    expect(ws.map((s) => s.verdict)).toEqual(windows.map((_, i) => (i < 3 ? 'agrees' : 'differs')));
    // the rule's ladder beside the log's: 1m20s, then 2m40s, then the cap, each against 40s
    expect(ws.slice(3, 6).map((s) => s.difference)).toEqual(
      ['1m20s', '2m40s', '5m0s'].map((d) => ({
        kind: 'backoff-delay',
        expected: `back-off ${d}`,
        seen: 'back-off 40s',
      })),
    );
    // every restart after a shortened window comes before the rule's window ends; the others agree
    const windowSeqs = ws.map((s) => s.seq);
    for (const s of all.filter(isRestart)) {
      const after = windowSeqs.filter((q) => q < s.seq).length;
      expect([s.verdict, s.difference?.kind], s.model[0]).toEqual(
        after >= 4 ? ['differs', 'restart-early'] : ['agrees', undefined],
      );
    }
    const differing = all.filter((s) => s.verdict === 'differs');
    expect(differing.every((s) => isWindow(s) || isRestart(s))).toBe(true);
    // with the engine's own setting (the server's --config) the same log agrees throughout
    const cfg = paramsFromConfig({
      containerBackOffPeriodMs: 10_000,
      maxContainerBackOffMs: 40_000,
      containerBackOffResetMs: 600_000,
      imageBackOffPeriodMs: 10_000,
      maxImageBackOffMs: 300_000,
      backOffPeriodMs: 10_000,
      syncFrequencyMs: 60_000,
      genericPlegRelistPeriodMs: 1_000,
      syncTickerMs: 1_000,
    });
    expect(cfg.origins.maxBackOffMs).toMatch(/--config/);
    expect(explainTrace(events, { params: cfg }).counts.differs).toBe(0);
  }, 60_000);
});
