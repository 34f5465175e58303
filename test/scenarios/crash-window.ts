/**
 * A crash loop's first back-off window as the kubelet's log shows it. Each sync that meets the 10 s window logs
 * `"Error syncing pod, skipping" … back-off 10s` once, and the syncs that meet it are the kubelet's:
 *
 *   - the one the relist that saw the exit brings (its ContainerDied event; the PLEG events of one relist reach
 *     the pod worker as one update, so a relist never makes two syncs of an idle worker);
 *   - one more only when a sync was already queued for the pod at that relist, i.e. an update had arrived
 *     while the sync before it was running (the worker runs it after, waiting for that same relist's status),
 *     so the exit's event arrives during that sync and is run after it too.
 *
 * The error requeues the worker 10–15 s later (workerBackOffPeriod with jitter), when the window is over.
 */
import type { Pod } from '@syncscope/core/api/v1';
import { kubeletLogLines } from '@syncscope/core/klog';
import type { TraceEvent } from '@syncscope/core/trace';
import { expect } from 'vitest';
import type { Harness } from '../support/harness.ts';

const message = (delay: string, pod: string, uid: string) =>
  `back-off ${delay} restarting failed container=app pod=${pod}_default(${uid})`;

const pod: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'sc-crash-window', namespace: 'default' },
  spec: {
    containers: [
      { name: 'app', image: 'busybox', imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', 'exit 1'] },
    ],
  },
};

/** One entry of scenarios.ts's list. */
export const crashWindowScenario = {
  name: 'crash loop: one back-off 10s error per sync that meets the first window',
  pod,
  async run(h: Harness, uid: string) {
    // the 10 s window is over once the container was started again and its exit opened the 20 s one
    const p = await h.waitForPod(
      'default',
      'sc-crash-window',
      'CrashLoopBackOff back-off 20s',
      (p) =>
        p.status?.containerStatuses?.[0]?.state.waiting?.message === message('20s', 'sc-crash-window', uid),
      90_000,
    );
    expect(p.status?.containerStatuses?.[0]?.restartCount).toBe(2);
    const events = h.podTrace(uid);
    const logged = events
      .flatMap((e) => kubeletLogLines(e, { v: 2, pid: 1 }))
      .filter((l) => l.includes('"Error syncing pod, skipping"'))
      .filter((l) => l.includes(message('10s', 'sc-crash-window', uid)));
    expect(logged.length).toBe(syncsMeetingFirstWindow(events));
  },
};

/** The syncs the kubelet runs in the first 10 s window, read from the pod's trace (see the file comment). */
function syncsMeetingFirstWindow(events: TraceEvent[]): number {
  const first = events.findIndex((e) => e.type === 'sync.result' && e.error?.includes('back-off 10s'));
  expect(first, 'a sync met the 10 s window').toBeGreaterThan(0);
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
  return waiting && queuedWhileRunning ? 2 : 1;
}
