/**
 * A crash loop's first two back-off windows as the kubelet's log shows them: `"Error syncing pod, skipping" …
 * back-off <delay>` once per sync that meets the window, and only the syncs the kubelet runs (pod_workers.go):
 *
 *   - a sync needs a wake: an update (a relist's events, the sync loop's requeue) that reached the worker after
 *     the sync before it started. One that arrives while a sync runs is kept pending and runs after it
 *     (UpdatePod, completeWork), so two syncs may meet a window a moment apart, each with its own update; a
 *     sync with no update of its own is the duplicate the kubelet never runs;
 *   - with no sync-worthy relist event between them (ContainerRemoved is not one), a failed sync's next sync is
 *     its requeue, after workerBackOffPeriod (10 s) with jitter ×[1, 1.5), never sooner;
 *   - the requeue meets the window when its back-off check (between its start and its result) comes before the
 *     window ends: one that ran whole inside the window met it, one that started after it did not.
 *
 * How many syncs meet a window depends on when the relists and requeues fall, so each sync is checked against
 * these causes rather than the windows against a count.
 */
import type { Pod } from '@syncscope/core/api/v1';
import { kubeletLogLines } from '@syncscope/core/klog';
import type { TraceEvent, TraceOf } from '@syncscope/core/trace';
import { expect } from 'vitest';
import type { Harness } from '../support/harness.ts';

const NAME = 'sc-crash-window';
const message = (delay: string, uid: string) =>
  `back-off ${delay} restarting failed container=app pod=${NAME}_default(${uid})`;

const pod: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: NAME, namespace: 'default' },
  spec: {
    containers: [
      { name: 'app', image: 'busybox', imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', 'exit 1'] },
    ],
  },
};

/** One entry of scenarios.ts's list. */
export const crashWindowScenario = {
  name: 'crash loop: one back-off error per sync that meets the 10s and the 20s window',
  pod,
  async run(h: Harness, uid: string) {
    // the 20 s window is over once the container was started again and its exit opened the 40 s one
    const p = await h.waitForPod(
      'default',
      NAME,
      'CrashLoopBackOff back-off 40s',
      (p) => p.status?.containerStatuses?.[0]?.state.waiting?.message === message('40s', uid),
      150_000,
    );
    expect(p.status?.containerStatuses?.[0]?.restartCount).toBe(3);
    const events = h.podTrace(uid);
    const lines = events
      .flatMap((e) => kubeletLogLines(e, { v: 2, pid: 1 }))
      .filter((l) => l.includes('"Error syncing pod, skipping"'));
    for (const delay of ['10s', '20s']) {
      const failed = events.filter(
        (e): e is TraceOf<'sync.result'> =>
          e.type === 'sync.result' && !!e.error?.includes(`back-off ${delay}`),
      );
      expect(failed.length, `a sync met the ${delay} window`).toBeGreaterThan(0);
      const logged = lines.filter((l) => l.includes(message(delay, uid))).length;
      expect(logged, `one back-off ${delay} error logged per sync that met the window`).toBe(failed.length);
      expectKubeletSyncs(events, delay, failed);
    }
  },
};

const SAME_MOMENT_MS = 50;
const BACKOFF_PERIOD_MS = 10_000;

/** The syncs that met the window of `delay` (`failed`, their results) are the kubelet's (see the file comment). */
function expectKubeletSyncs(events: TraceEvent[], delay: string, failed: TraceOf<'sync.result'>[]): void {
  const at = (seq: number) => events.findIndex((e) => e.seq === seq);
  const startBefore = (i: number) => {
    for (let j = i - 1; j >= 0; j--) if ((events[j] as TraceEvent).type === 'sync.start') return j;
    return -1;
  };
  const story = (from: number, to: number) =>
    events
      .slice(Math.max(0, from), to + 1)
      .filter((e) => e.type !== 'runtime.call' && e.type !== 'pleg.relist' && e.type !== 'k8s.event')
      .map((e) => `${e.time} ${e.type}${e.type === 'pleg.event' ? ` ${e.event}` : ''}`)
      .join('\n');
  for (const r of failed) {
    const result = at(r.seq);
    const start = startBefore(result);
    const prevStart = startBefore(start);
    const woken = events.some(
      (e, i) => i > prevStart && i < start && e.type === 'worker.update' && !e.coalesced && !e.dropped,
    );
    expect(woken, `a back-off ${delay} sync without an update of its own:\n${story(prevStart, result)}`).toBe(
      true,
    );
    // its requeue: none sooner than due, and one that ran whole inside the window met it
    const requeue = r.requeueAfterMs ?? Number.NaN;
    expect(requeue, `back-off ${delay} requeue`).toBeGreaterThanOrEqual(BACKOFF_PERIOD_MS);
    expect(requeue, `back-off ${delay} requeue`).toBeLessThan(BACKOFF_PERIOD_MS * 1.5);
    const nextStart = events.findIndex((e, i) => i > result && e.type === 'sync.start');
    if (nextStart < 0) continue;
    // the work queue's clock read comes a moment before the result's (completeWork, then the trace)
    const due = r.time + requeue - SAME_MOMENT_MS;
    const early = events.some(
      (e, i) =>
        i > start &&
        i < nextStart &&
        e.type === 'worker.update' &&
        !e.coalesced &&
        !e.dropped &&
        e.time < due,
    );
    const next = events[nextStart] as TraceEvent;
    if (!early)
      expect(
        next.time,
        `back-off ${delay} requeue too soon:\n${story(start, nextStart)}`,
      ).toBeGreaterThanOrEqual(due);
    const window = events.find(
      (e): e is TraceOf<'backoff'> =>
        e.type === 'backoff' && e.kind === 'container' && e.delayS === Number.parseInt(delay, 10),
    ) as TraceOf<'backoff'>;
    const nextResult = events.findIndex((e, i) => i > nextStart && e.type === 'sync.result');
    const whole = nextResult > 0 && (events[nextResult] as TraceEvent).time < window.until;
    if (whole)
      expect(
        (events[nextResult] as TraceOf<'sync.result'>).error,
        `a requeue inside the ${delay} window:\n${story(start, nextResult)}`,
      ).toContain(`back-off ${delay}`);
  }
}
