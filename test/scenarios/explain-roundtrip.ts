/**
 * The model beside the engine, one definition for both runtimes: a crash-looping pod runs on an engine, its
 * kubelet.log is imported and explained (@syncscope/core/explain).
 *
 *   expectAgreesThroughout   under the engine's own settings every back-off window and every restart agrees
 *   expectDiffersPastCap     under a ladder that doubles further than the engine's maxContainerBackOff, the
 *                            windows whose delay the cap shortened differ (backoff-delay, both values) and so
 *                            does every restart after the first of them (restart-early); the rest agrees
 *
 * Besides these, the only difference either may see is a second failed sync within a window's requeue
 * ("duplicate-sync"), which the engine can make where the kubelet does not.
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

/**
 * A restart the rule allows agrees, or comes late on a busy machine (the engine's own sync was late, which the
 * model rightly marks "restart late"); never early.
 */
function expectOnTimeOrLate(s: ExplainedStep): void {
  expect(
    [
      ['agrees', undefined],
      ['differs', 'restart-late'],
    ],
    s.model[0],
  ).toContainEqual([s.verdict, s.difference?.kind]);
}

function onlyDuplicateSyncsBesides(steps: ExplainedStep[], counted: (s: ExplainedStep) => boolean): void {
  for (const s of steps.filter((s) => s.verdict === 'differs' && !counted(s)))
    expect(s.difference?.kind, s.source).toBe('duplicate-sync');
}

/** The log of the engine that ran `windows`, explained under its own settings. */
export function expectAgreesThroughout(x: SourceExplanation, pod: string, windows: number[]): void {
  const steps = podSteps(x, pod);
  expect(steps.filter(isWindow).map((s) => [s.verdict, (s.backoffMs ?? 0) / 1000])).toEqual(
    windows.map((d) => ['agrees', d]),
  );
  const restarts = steps.filter(isRestart);
  // the first death restarts at once, then one restart after each window that ended in the run
  expect(restarts.length).toBeGreaterThanOrEqual(windows.length);
  for (const s of restarts) expectOnTimeOrLate(s);
  onlyDuplicateSyncsBesides(steps, isRestart);
}

/**
 * The log of the engine that ran `windows` (capped at its maxContainerBackOff), explained under a ladder of
 * `initialS` doubling to `maxS`.
 */
export function expectDiffersPastCap(
  x: SourceExplanation,
  pod: string,
  windows: number[],
  ladder: { initialS: number; maxS: number },
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
    else expectOnTimeOrLate(s);
  }
  onlyDuplicateSyncsBesides(steps, (s) => isWindow(s) || isRestart(s));
}
