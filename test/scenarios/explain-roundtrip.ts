/**
 * The model beside the engine, one definition for both runtimes: a crash-looping pod runs on an engine, its
 * kubelet.log is imported and explained (@syncscope/core/explain).
 *
 *   expectAgreesThroughout   under the engine's own settings every step a rule reads agrees: every back-off
 *                            window, every restart, every sync (the kubelet's two syncs a relist apart after
 *                            one exit included: see ./crash-window.ts)
 *   expectDiffersPastCap     under a ladder that doubles further than the engine's maxContainerBackOff, the
 *                            windows whose delay the cap shortened differ (backoff-delay, both values) and so
 *                            does every restart after the first of them (restart-early); the rest agrees
 *
 * One difference is allowed, and only where the engine's own trace shows the rule kept: a restart the model
 * finds late ("restart-late"). The model allows the requeue's jitter, the sync ticker, the relist and a start
 * allowance; a loaded machine can take longer than those allowances (the loop's hand-over, the CRI calls, the
 * relist), which the log does not show. It is accepted when the live trace shows the engine's sync that
 * restarted the container was the one the rule brings: after a window, the requeue of the failed sync before
 * it, requeued within backOffPeriod ×[1, 1.5) and started no sooner than due; after a first death, the sync
 * the death's relist woke, with no failed sync between.
 */
import type { Pod } from '@syncscope/core/api/v1';
import { type ExplainedStep, goMs, type SourceExplanation } from '@syncscope/core/explain';
import type { TraceEvent, TraceOf } from '@syncscope/core/trace';
import { expect } from 'vitest';

/** A container that exits 1 at once, every time. */
export function crashLoopPod(name: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'busybox',
          imagePullPolicy: 'IfNotPresent',
          command: ['sh', '-c', 'echo boom; exit 1'],
        },
      ],
    },
  };
}

/** The container back-off windows an engine's trace holds, in order: one delay (s) per window end. */
export function containerWindows(events: Iterable<TraceEvent>): number[] {
  const ends = new Map<number, number>();
  for (const e of events) {
    if (e.type !== 'backoff') continue;
    const b = e as TraceOf<'backoff'>;
    if (b.kind === 'container') ends.set(b.until, b.delayS);
  }
  return [...ends.values()];
}

const isWindow = (s: ExplainedStep): boolean =>
  s.source.startsWith('container back-off') && /^window \d+/.test(s.model[0] ?? '');
const isRestart = (s: ExplainedStep): boolean => /restarted .* after its death/.test(s.model[0] ?? '');

/** The steps of pod `namespace/name` in an explanation. */
function podSteps(x: SourceExplanation, pod: string): ExplainedStep[] {
  return x.pods.find((p) => p.pod === pod)?.steps ?? [];
}

const BACKOFF_PERIOD_MS = 10_000;
const SAME_MOMENT_MS = 50;

/** A restart agrees, or is late where the engine's trace shows the rule kept (see the file comment); never early. */
function expectOnTimeOrLate(s: ExplainedStep, live: readonly TraceEvent[], pod: string): void {
  if (s.verdict === 'agrees') return;
  expect([s.verdict, s.difference?.kind], s.model[0]).toEqual(['differs', 'restart-late']);
  expectRuleKept(s, live, pod);
}

/** The engine's sync that made the restart `s` of `pod` was the one the rule brings (see the file comment). */
function expectRuleKept(s: ExplainedStep, live: readonly TraceEvent[], pod: string): void {
  const at = live.findIndex((e) => e.type === 'pleg.event' && e.pod === pod && Math.abs(e.time - s.time) < 1);
  expect(at, `the live relist of ${s.source}`).toBeGreaterThan(0);
  const before = live.slice(0, at);
  const results = before.filter(
    (e): e is TraceOf<'sync.result'> => e.type === 'sync.result' && e.pod === pod,
  );
  const restarting = results
    .filter((r) => r.actions.some((a) => a.action === 'StartContainer' && !a.error))
    .at(-1) as TraceOf<'sync.result'>;
  const started = before
    .filter((e): e is TraceOf<'sync.start'> => e.type === 'sync.start' && e.pod === pod)
    .filter((e) => e.seq < restarting.seq)
    .at(-1) as TraceOf<'sync.start'>;
  const failed = results.filter((r) => r.seq < restarting.seq && r.error !== undefined).at(-1);
  if (/after its death; back-off/.test(s.model[0] ?? '')) {
    // after a window: the requeue of the failed sync before, within the rule, and no sooner than due
    const requeue = failed?.requeueAfterMs ?? Number.NaN;
    expect(requeue, s.source).toBeGreaterThanOrEqual(BACKOFF_PERIOD_MS);
    expect(requeue, s.source).toBeLessThan(BACKOFF_PERIOD_MS * 1.5);
    // the work queue's clock read comes a moment before the result's (completeWork, then the trace)
    const due = (failed as TraceOf<'sync.result'>).time + requeue - SAME_MOMENT_MS;
    expect(started.time, s.source).toBeGreaterThanOrEqual(due);
  } else {
    // after a first death: the sync its relist woke, with no failed sync since the death
    const death = before
      .filter((e) => e.type === 'pleg.event' && e.pod === pod && e.event === 'ContainerDied')
      .at(-1);
    expect(failed === undefined || failed.seq < (death?.seq ?? 0), s.source).toBe(true);
  }
}

/** The log of the engine that ran `windows` (`live`, its trace), explained under its own settings. */
export function expectAgreesThroughout(
  x: SourceExplanation,
  pod: string,
  windows: number[],
  live: readonly TraceEvent[],
): void {
  const steps = podSteps(x, pod);
  expect(steps.filter(isWindow).map((s) => [s.verdict, (s.backoffMs ?? 0) / 1000])).toEqual(
    windows.map((d) => ['agrees', d]),
  );
  const restarts = steps.filter(isRestart);
  // the first death restarts at once, then one restart after each window that ended in the run
  expect(restarts.length).toBeGreaterThanOrEqual(windows.length);
  for (const s of restarts) expectOnTimeOrLate(s, live, pod);
  expect(steps.filter((s) => s.verdict === 'differs' && !isRestart(s))).toEqual([]);
}

/**
 * The log of the engine that ran `windows` (capped at its maxContainerBackOff; `live`, its trace), explained
 * under a ladder of `initialS` doubling to `maxS`.
 */
export function expectDiffersPastCap(
  x: SourceExplanation,
  pod: string,
  windows: number[],
  ladder: { initialS: number; maxS: number },
  live: readonly TraceEvent[],
): void {
  const rule = windows.map((_, i) => Math.min(ladder.initialS * 2 ** i, ladder.maxS));
  const first = windows.findIndex((d, i) => d !== rule[i]);
  expect(first, 'the cap shortened a window').toBeGreaterThan(0);
  const steps = podSteps(x, pod);
  const ws = steps.filter(isWindow);
  expect(ws.length).toBe(windows.length);
  expect(ws.map((s) => s.verdict)).toEqual(windows.map((d, i) => (d === rule[i] ? 'agrees' : 'differs')));
  expect(ws.map((s) => s.difference)).toEqual(
    windows.map((d, i) =>
      d === rule[i]
        ? undefined
        : {
            kind: 'backoff-delay',
            expected: `back-off ${goMs((rule[i] as number) * 1000)}`,
            seen: `back-off ${goMs(d * 1000)}`,
          },
    ),
  );
  // every restart after a shortened window comes before the rule's window ends; the ones before agree
  const windowSeqs = ws.map((s) => s.seq);
  const restarts = steps.filter(isRestart);
  expect(restarts.filter((s) => s.seq > (windowSeqs[first] as number)).length).toBeGreaterThan(0);
  for (const s of restarts) {
    const after = windowSeqs.filter((q) => q < s.seq).length;
    if (after > first)
      expect([s.verdict, s.difference?.kind], s.model[0]).toEqual(['differs', 'restart-early']);
    else expectOnTimeOrLate(s, live, pod);
  }
  expect(steps.filter((s) => s.verdict === 'differs' && !isWindow(s) && !isRestart(s))).toEqual([]);
}
