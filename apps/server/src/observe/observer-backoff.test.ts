/**
 * The observer's back-off windows against the kubelet's own, on one simulated node and a FakeClock: our engine
 * crash-loops a pod as the kubelet does, each of its "back-off Ns" lines joins the observer as the followed log
 * would, at once, and the observer's relists are driven by hand, so that a line can reach it before or after
 * the relist that shows the exit it is about.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TraceRecorder } from '@syncscope/core';
import type { Pod } from '@syncscope/core/api/v1';
import type { TraceEvent, TraceOf } from '@syncscope/core/events/trace';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { observedNode } from './observer-testing.ts';

let logDir: string;
beforeEach(() => {
  logDir = mkdtempSync(join(tmpdir(), 'observer-backoff-'));
});
afterEach(() => rmSync(logDir, { recursive: true, force: true }));

const POD: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { uid: 'uid-crash', name: 'crash', namespace: 'default' },
  spec: {
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 1,
    containers: [
      { name: 'app', image: 'busybox', imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', 'exit 1'] },
    ],
  },
};

/** One window per exit, as "delay until basis" (the kubelet records one at every refused start). */
function windows(trace: TraceRecorder): string[] {
  const all = trace.since(0, (e: TraceEvent) => e.type === 'backoff') as TraceOf<'backoff'>[];
  const basis = (b: TraceOf<'backoff'>) => (b.confirmed ? 'confirmed' : b.inferred ? 'inferred' : 'kubelet');
  return [...new Set(all.map((b) => `${b.delayS}s until ${b.until} ${basis(b)}`))];
}

/**
 * Runs the crash loop until the kubelet's 20 s window, relisting the observer every 100 ms; with `lag`, the
 * observer does not relist from the third start of the container until the kubelet said "back-off 20s".
 */
async function crashLoop(lag: boolean) {
  const { clock, kl, kubelet, observer, observed } = observedNode(logDir);
  let starts = 0;
  let lagging = false;
  kubelet.subscribe((e) => {
    if (e.type === 'runtime.call' && e.method === 'StartContainer' && e.code === undefined) {
      starts++;
      if (lag && starts === 3) lagging = true;
    }
    if (e.type !== 'backoff' || e.kind !== 'container') return;
    const { podUID, pod, container, key, delayS, time } = e;
    observer.joinLog({
      type: 'backoff',
      kind: 'container',
      podUID,
      pod,
      container,
      key,
      delayS,
      until: 0,
      time,
    });
    if (delayS === 20) lagging = false;
  });
  kl.addPod(POD);
  kl.start();
  const step = async () => {
    await clock.step(100);
    if (!lagging) await observer.pleg.relist();
  };
  while (!windows(kubelet).some((w) => w.startsWith('20s'))) await step();
  for (let i = 0; i < 30; i++) await step();
  await kl.stop();
  await observer.stop();
  const truth = windows(kubelet).map((w) => w.replace(' kubelet', ''));
  return { truth, seen: windows(observed) };
}

describe('observed back-off windows, whichever comes first: the log line or the relist', () => {
  it('the relist first: each of the kubelet’s windows inferred, then confirmed', async () => {
    const { truth, seen } = await crashLoop(false);
    expect(truth).toHaveLength(2);
    expect(seen).toEqual(truth.flatMap((w) => [`${w} inferred`, `${w} confirmed`]));
  });

  it('the log line first (the relist lags): the same windows, none doubled', async () => {
    const { truth, seen } = await crashLoop(true);
    expect(truth).toHaveLength(2);
    expect(seen).toEqual(truth.flatMap((w) => [`${w} inferred`, `${w} confirmed`]));
  });
});
