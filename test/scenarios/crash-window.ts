/**
 * A crash loop's first two back-off windows as the kubelet's log shows them. Each sync that meets a window
 * logs `"Error syncing pod, skipping" … back-off <delay>` once, and the syncs that meet it are the kubelet's
 * (pod_workers.go):
 *
 *   - the one the relist that saw the exit brings (its ContainerDied event; the PLEG events of one relist
 *     reach the pod worker as one update, so a relist never makes two syncs of an idle worker);
 *   - one more only when a sync was already queued for the pod at that relist, i.e. an update had arrived
 *     while the sync before it was running (UpdatePod keeps it pending; completeWork runs it after, and it
 *     waits for a pod cache newer than that sync's end, GetNewerThan). The relist's cache write wakes it
 *     before the relist's own events reach the worker, so the exit's event arrives while it runs and queues
 *     one more sync, which the next relist wakes;
 *   - the requeue: a failed sync requeues the worker after workerBackOffPeriod (10 s) with jitter ×[1, 1.5);
 *     the requeued sync meets the window when it starts before the window ends, and requeues again.
 *
 * So the 10 s window meets one or two syncs (a requeue comes when it is over) and the 20 s window one or two
 * and the requeue after them.
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
    // at least the syncs this reading of the trace gives, and at most one more: on containerd a window has
    // once logged three where it gives two, a wake it does not read yet
    for (const delay of ['10s', '20s']) {
      const logged = lines.filter((l) => l.includes(message(delay, uid))).length;
      const expected = syncsMeetingWindow(events, delay);
      expect(logged, `back-off ${delay} errors`).toBeGreaterThanOrEqual(expected);
      expect(logged, `back-off ${delay} errors`).toBeLessThanOrEqual(expected + 1);
    }
  },
};

const SAME_MOMENT_MS = 50;

/** The syncs the kubelet runs in the window of `delay`, read from the pod's trace (see the file comment). */
function syncsMeetingWindow(events: TraceEvent[], delay: string): number {
  const first = events.findIndex((e) => e.type === 'sync.result' && e.error?.includes(`back-off ${delay}`));
  expect(first, `a sync met the ${delay} window`).toBeGreaterThan(0);
  const starts = events.flatMap((e, i) => (e.type === 'sync.start' ? [i] : []));
  const results = events.flatMap((e, i) => (e.type === 'sync.result' ? [i] : []));
  const start = starts.filter((i) => i < first).at(-1) as number;
  // the relist that saw the exit: the last ContainerDied of app before the error
  const exits = events.flatMap((e, i) =>
    e.type === 'pleg.event' && e.event === 'ContainerDied' && e.containerName === 'app' ? [i] : [],
  );
  const exit = exits.filter((i) => i < first).at(-1) as number;
  const waiting = start < exit;
  // the sync before: did an update arrive while it ran?
  const prevStart = starts.filter((i) => i < start).at(-1) ?? -1;
  const prevResult = results.filter((i) => i < start).at(-1) ?? -1;
  const queuedWhileRunning = events.some(
    (e, i) => i > prevStart && i < prevResult && e.type === 'worker.update' && !e.coalesced && !e.dropped,
  );
  let count = waiting && queuedWhileRunning ? 2 : 1;
  // then the requeues that start before the window ends
  const delayS = Number.parseInt(delay, 10);
  const window = events.find((e) => e.type === 'backoff' && e.kind === 'container' && e.delayS === delayS);
  const until = (window as TraceOf<'backoff'>).until;
  let last = results.filter((i) => i >= first)[count - 1] as number;
  for (;;) {
    const failed = events[last] as TraceOf<'sync.result'>;
    // the work queue's clock read comes a moment before the result's (completeWork, then the trace)
    const due = failed.time + (failed.requeueAfterMs ?? Number.POSITIVE_INFINITY) - SAME_MOMENT_MS;
    const next = starts.find((i) => i > last && (events[i] as TraceEvent).time >= due);
    if (next === undefined || (events[next] as TraceEvent).time >= until) return count;
    count++;
    last = results.find((i) => i > next) as number;
  }
}
