/**
 * The reducer against the engine: our kubelet runs a crash-looping pod on the simulated node and a FakeClock
 * (as ../kubelet/crashloop.test.ts does), and at every status the engine reports (each `status.update`), the
 * reducer's state must say the same: kubectl's STATUS word, the restarts and the last exit code.
 *
 * Twice: once over the whole trace (the status is then stated, and must be copied right), and once with
 * every `status.update` taken out, so that the reducer works it all out from PLEG events, sync results and
 * back-off windows by the kubelet's rules, as it must for a kubelet's log, and still agrees.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { printPod } from '../api/kubectl.ts';
import type { Pod, PodStatus } from '../api/v1.ts';
import type { TraceEvent, TraceOf } from '../events/trace.ts';
import { scriptPod, simKubelet } from '../kubelet/testing/sim-kubelet.ts';
import { PodStateReducer } from './reducer.ts';
import type { PodSnapshot } from './types.ts';

let logDir: string;
beforeEach(() => {
  logDir = mkdtempSync(join(tmpdir(), 'pod-state-'));
});
afterEach(() => rmSync(logDir, { recursive: true, force: true }));

/** The engine's trace of a pod whose container `app` runs `script` under restartPolicy Always. */
async function engineTrace(script: string, forMs: number) {
  const { clock, trace, kl } = simKubelet({ podLogsDirectory: logDir }, 200_000);
  const pod = scriptPod(clock, { uid: 'uid-1', name: 'cl' }, script, {
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 1,
  });
  kl.addPod(pod);
  kl.start();
  await clock.step(forMs);
  const events = trace.since(0, () => true);
  const final = kl.getPod('default', 'cl');
  await kl.stop();
  return { pod, events, final };
}

/** What kubectl and the status say at one step: STATUS, RESTARTS, the last exit code of app. */
function reported(pod: Pod, status: PodStatus, now: number) {
  const app = status.containerStatuses?.find((c) => c.name === 'app');
  const term = app?.state.terminated ?? app?.lastState.terminated;
  return {
    word: printPod({ ...pod, status }, now).status,
    restarts: app?.restartCount,
    lastExit: term?.exitCode,
  };
}

function derived(s: PodSnapshot | undefined) {
  const app = s?.containers.find((c) => c.name.basis !== 'unknown' && c.name.value === 'app');
  const state = app?.state.basis === 'unknown' ? undefined : app?.state.value;
  const last = app?.lastState.basis === 'unknown' ? undefined : app?.lastState.value;
  const term = state?.kind === 'terminated' ? state : (last ?? undefined);
  return {
    word: s?.statusWord.basis === 'unknown' ? undefined : s?.statusWord.value,
    restarts: s?.restarts.basis === 'unknown' ? undefined : s?.restarts.value,
    lastExit: term?.exitCode,
  };
}

/** Folds the events one by one; at each status.update of the pod compares with what it reports. */
function compareAtEachStatus(pod: Pod, events: readonly TraceEvent[], withStatus: boolean) {
  const r = new PodStateReducer();
  let compared = 0;
  const words = new Set<string>();
  for (const ev of events) {
    if (ev.type === 'status.update' && ev.podUID === 'uid-1') {
      if (withStatus) r.add(ev);
      const want = reported(pod, ev.status, ev.time);
      const got = derived(r.snapshot('uid-1'));
      expect(got, `at seq ${ev.seq} (${want.word})`).toEqual(want);
      if (withStatus) expect(r.snapshot('uid-1')?.statusWord.basis).toBe('stated');
      words.add(want.word);
      compared++;
      continue;
    }
    r.add(ev);
  }
  return { compared, words, reducer: r };
}

describe('the reducer agrees with the engine', () => {
  it('at every status of a crash-looping pod, with the statuses in the trace (stated)', async () => {
    const { pod, events } = await engineTrace('sleep 2; exit 1', 6 * 60_000);
    const { compared, words } = compareAtEachStatus(pod, events, true);
    expect(compared).toBeGreaterThan(10);
    expect([...words]).toEqual(expect.arrayContaining(['CrashLoopBackOff', 'Error', 'Running']));
  }, 60_000);

  it('at every status, working it out without the statuses (inferred), and names its rules', async () => {
    const { pod, events, final } = await engineTrace('sleep 2; exit 1', 6 * 60_000);
    const { compared, reducer } = compareAtEachStatus(pod, events, false);
    expect(compared).toBeGreaterThan(10);
    const s = reducer.snapshot('uid-1') as PodSnapshot;
    expect(derived(s)).toEqual(reported(pod, final?.status as PodStatus, reducer.now));
    expect(s.statusWord.basis).toBe('inferred');
    const app = s.containers.find((c) => c.name.basis !== 'unknown' && c.name.value === 'app');
    expect(app?.restartCount).toMatchObject({ basis: 'inferred' });
    // the back-off in force and the ladder so far are the engine's windows
    const windows = new Map<number, number>();
    for (const e of events) if (e.type === 'backoff') windows.set(e.until, (e as TraceOf<'backoff'>).delayS);
    expect(s.backoffs[0]?.ladder.map((w) => w.delayS)).toEqual([...windows.values()]);
    expect(s.backoffs[0]?.ladder.map((w) => w.delayS).slice(0, 4)).toEqual([10, 20, 40, 80]);
    expect(s.backoffs[0]?.exitCode).toMatchObject({ basis: 'stated', value: 1 });
  }, 60_000);

  it('a container that completes and is restarted: Completed between runs, as the engine says', async () => {
    const { pod, events } = await engineTrace('sleep 3; exit 0', 3 * 60_000);
    const { compared, words } = compareAtEachStatus(pod, events, false);
    expect(compared).toBeGreaterThan(5);
    expect(words.has('Completed')).toBe(true);
  }, 60_000);
});
