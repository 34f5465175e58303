/**
 * Observe mode on a real containerd (a private one, scripts/containerd/up.sh), differential: one Syncscope in
 * managed mode runs the scenario pods (crash loop, completing, missing image, init, graceful delete) and writes
 * its kubelet-format log; a second one observes the same containerd and follows that log. Per pod the observer
 * must show the manager's PLEG events (in order, each in the relists that could have seen it), restart
 * counts, back-off windows (inferred from the exits and confirmed by the log) and final states, and it must
 * leave the runtime as it found it: no mutating CRI call, the same sandboxes and containers listed before it
 * started and after it stopped. The observer's dashboard is then looked at in Chromium (observe-browser.ts).
 */
import { join } from 'node:path';
import type { ContainerStatus, Pod } from '@syncscope/core/api/v1';
import { factValue, type PodSnapshot, PodStateReducer } from '@syncscope/core/pod-state';
import { podUIDOf, type TraceEvent, type TraceOf } from '@syncscope/core/trace';
import { type PrivateContainerd, startPrivateContainerd } from '@syncscope/server/private-containerd';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenarios, type ScenarioOutcome } from '../scenarios/run.ts';
import { scenarios } from '../scenarios/scenarios.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { expectSamePlegStory } from '../support/pleg-agreement.ts';
import { until } from '../support/until.ts';
import { checkObserverDashboard } from './observe-browser.ts';
import { runtimeSnapshot, startObserver, type Watching, waitOn } from './observe-support.ts';

const PODS = ['sc-crash', 'sc-ok', 'sc-noimage', 'sc-init', 'sc-grace'];
const chosen = scenarios.filter((s) => PODS.includes(s.pod.metadata.name as string));
/** One relist period of the manager's (1 s) and the slack of a busy machine. */
const RELIST_SLACK_MS = 1_000 + 500;

let ctd: PrivateContainerd;
let managed: Harness;
let observer: Watching;
let outcomes: Map<string, ScenarioOutcome>;
const uids = new Map<string, string>();
let dashboard: Awaited<ReturnType<typeof checkObserverDashboard>> | undefined;
let dashboardError: unknown;

const of = <T extends TraceEvent['type']>(evs: readonly TraceEvent[], type: T) =>
  evs.filter((e): e is TraceOf<T> => e.type === type);
const observedTrace = (uid: string) => observer.app.trace.since(0, (e) => podUIDOf(e) === uid);
const relists = (trace: { since(after: number, f: (e: TraceEvent) => boolean): TraceEvent[] }) =>
  trace.since(0, (e) => e.type === 'pleg.relist');

/** The manager's distinct back-off windows of a pod (it records one at every sync that meets a window). */
function managerWindows(uid: string): TraceOf<'backoff'>[] {
  const seen = new Set<string>();
  return of(managed.podTrace(uid), 'backoff').filter((b) => {
    const key = `${b.kind}/${b.container}/${b.until}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** What a user reads of a container's state, times and ids aside. */
const shape = (c: ContainerStatus | undefined) =>
  c && {
    name: c.name,
    restartCount: c.restartCount,
    running: c.state.running !== undefined,
    terminated: c.state.terminated && {
      exitCode: c.state.terminated.exitCode,
      reason: c.state.terminated.reason,
    },
    lastExit: c.lastState.terminated?.exitCode ?? null,
  };
// by name, init containers and regular ones together
const shapes = (p: Pod | undefined) =>
  [...(p?.status?.initContainerStatuses ?? []), ...(p?.status?.containerStatuses ?? [])]
    .map(shape)
    .sort((a, b) => (a?.name ?? '').localeCompare(b?.name ?? ''));

/**
 * What core's pod-state reducer reads of a pod, as the pods table and the back-off inspector show it:
 * kubectl's STATUS word and RESTARTS, and the container window in force (its container, delay and the exit
 * code of the death that opened it).
 */
function readingOf(s: PodSnapshot | undefined) {
  const w = s?.backoffs.find((b) => b.kind === 'container');
  return {
    status: s && factValue(s.statusWord),
    restarts: s && factValue(s.restarts),
    window: w && { container: w.container, delayS: w.delayS, exitCode: factValue(w.exitCode) },
  };
}
type Reading = ReturnType<typeof readingOf>;

/** Each reading one side's trace of the pod went through, with the time of the event that brought it. */
function readings(events: readonly TraceEvent[], uid: string) {
  const r = new PodStateReducer();
  const out: { at: number; key: string }[] = [];
  for (const e of events) {
    r.add(e);
    const key = JSON.stringify(readingOf(r.snapshot(uid)));
    if (out.at(-1)?.key !== key) out.push({ at: e.time, key });
  }
  return out;
}

/** When one side's relists began, of those that began at or after `at`. */
const relistStarts = (trace: Parameters<typeof relists>[0], at: number) =>
  (relists(trace) as TraceOf<'pleg.relist'>[]).map((r) => r.time - r.durationMs).filter((t) => t >= at);

beforeAll(async () => {
  ctd = await startPrivateContainerd(`/tmp/syncscope-ctd-observe-${process.pid}`);
  managed = await startHarness({ runtimeEndpoint: ctd.endpoint });
  observer = await startObserver(ctd.endpoint, join(managed.dataDir, 'kubelet.log'));
  outcomes = await runScenarios(managed, chosen);
  for (const name of PODS) {
    const uid = managed.built.trace
      .since(0, (e) => e.type === 'config.update' && 'pod' in e && e.pod === `default/${name}`)
      .map(podUIDOf)[0];
    if (uid) uids.set(name, uid);
  }
  // the crash loop climbs to a second window (10s, then 20s), so that a doubling is compared too
  const crash = uids.get('sc-crash') as string;
  await managed.waitFor(
    'a 20s window for sc-crash',
    () => managerWindows(crash).some((b) => b.delayS === 20),
    90_000,
  );
  try {
    dashboard = await checkObserverDashboard(observer.base, ctd.endpoint);
  } catch (error) {
    dashboardError = error;
  }
}, 240_000);

afterAll(async () => {
  await observer?.close();
  await managed?.close();
  await ctd?.stop();
});

describe('observe mode beside a managed instance on containerd', () => {
  it('the scenarios ran on the manager', () => {
    for (const [name, o] of outcomes) expect(o.error, name).toBeUndefined();
    expect([...uids.keys()].sort()).toEqual([...PODS].sort());
  });

  for (const name of PODS) {
    it(`${name}: the same PLEG events, in order, each in the relists that could have seen it`, () => {
      const uid = uids.get(name) as string;
      expectSamePlegStory(
        { events: managed.podTrace(uid), relists: relists(managed.built.trace) },
        { events: observedTrace(uid), relists: relists(observer.app.trace) },
        { atLeast: name === 'sc-noimage' ? 1 : 2 },
      );
    });
  }

  it('sc-crash: the inferred windows are the manager’s, with their delays; the log confirms each delay', async () => {
    const uid = uids.get('sc-crash') as string;
    const actual = managerWindows(uid).filter((b) => b.kind !== 'image');
    expect(actual.map((b) => b.delayS)).toEqual(expect.arrayContaining([10, 20]));
    const inferredFor = (a: TraceOf<'backoff'>) =>
      of(observedTrace(uid), 'backoff').find(
        (b) => b.inferred && b.container === a.container && Math.abs(b.until - a.until) <= RELIST_SLACK_MS,
      );
    const confirmedFor = (a: TraceOf<'backoff'>) =>
      of(observedTrace(uid), 'backoff').find(
        (b) => b.confirmed === true && b.container === a.container && b.delayS === a.delayS,
      );
    await waitOn(observer.app.trace, 'inferred and confirmed windows for each of the manager’s', () =>
      actual.every((a) => inferredFor(a) !== undefined && confirmedFor(a) !== undefined),
    ).catch(() => {});
    const show = (b: TraceOf<'backoff'> | undefined) => b && `${b.container} ${b.delayS}s`;
    const want = actual.map((a) => `${a.container} ${a.delayS}s`);
    const windows = of(observedTrace(uid), 'backoff').map(
      (b) => `${b.delayS}s until ${b.until} ${b.inferred ? 'inferred' : ''}${b.confirmed ? 'confirmed' : ''}`,
    );
    const context = `manager's windows end ${actual.map((a) => a.until).join(', ')}; observer's: ${windows.join('; ')}`;
    expect(
      actual.map((a) => show(inferredFor(a))),
      context,
    ).toEqual(want);
    expect(
      actual.map((a) => show(confirmedFor(a))),
      context,
    ).toEqual(want);
  });

  it('sc-noimage: no container on the runtime; the pull errors reach the observer from the log', async () => {
    const uid = uids.get('sc-noimage') as string;
    const pullErrors = () =>
      of(observedTrace(uid), 'sync.result').filter((r) =>
        /ErrImagePull|ImagePullBackOff/.test(r.error ?? ''),
      );
    await waitOn(observer.app.trace, 'the pull errors from the log', () => pullErrors().length > 0);
    const seen = observer.app.observer.getPod('default', 'sc-noimage');
    expect(seen?.metadata.uid).toBe(uid);
    expect(shapes(seen)).toEqual([]);
  });

  it('the same restart counts and final states for every pod', async () => {
    const agree = () =>
      PODS.every((name) => {
        const mine = managed.built.engine.getPod('default', name);
        const seen = observer.app.observer.getPod('default', name);
        if (mine === undefined) return seen === undefined || shapes(seen).every((c) => c?.terminated);
        if (name === 'sc-noimage') return true;
        return JSON.stringify(shapes(seen)) === JSON.stringify(shapes(mine));
      });
    // a relist or two after the manager's last status change
    await waitOn(observer.app.trace, 'the observer agreeing with the manager', agree, 15_000).catch(() => {});
    for (const name of PODS) {
      const mine = managed.built.engine.getPod('default', name);
      const seen = observer.app.observer.getPod('default', name);
      if (mine === undefined) {
        expect(name).toBe('sc-grace');
        for (const c of shapes(seen)) expect(c?.terminated, name).toBeDefined();
        continue;
      }
      expect(seen?.metadata.annotations?.['syncscope.io/observed'], name).toBe('true');
      // the image was never pulled, so no container exists for the observer to show (see above)
      if (name === 'sc-noimage') continue;
      expect(shapes(seen), name).toEqual(shapes(mine));
    }
    expect(
      shapes(observer.app.observer.getPod('default', 'sc-crash'))[0]?.restartCount,
    ).toBeGreaterThanOrEqual(2);
  });

  // the image was never pulled, so no container exists for the observer to read a state from (see above);
  // the deleted pod is gone from the manager's node
  for (const name of ['sc-crash', 'sc-ok', 'sc-init']) {
    it(`${name}: the reducer reads the same STATUS, RESTARTS and back-off window from both sides, within a relist`, async () => {
      const uid = uids.get(name) as string;
      // sc-init: the runtime does not say which container was the init container; the observer infers it
      // from the order they ran in (pod-roles.ts)
      const mine = () => readings(managed.podTrace(uid), uid);
      const seen = (upTo = Number.POSITIVE_INFINITY) =>
        readings(
          observedTrace(uid).filter((e) => e.time <= upTo),
          uid,
        ).at(-1)?.key;
      await waitOn(
        observer.app.trace,
        `the observer's reading of ${name} agreeing with the manager's`,
        () => seen() === mine().at(-1)?.key,
        15_000,
      ).catch(() => {});
      const history = mine();
      const last = history.at(-1) as { at: number; key: string };
      expect(seen(), name).toBe(last.key);
      // Within a relist: the first relist of the observer's that began after the manager's last change could
      // see it, and its results are recorded before the next one begins. By then the observer reads as the
      // manager did at some moment from that change until the manager's own relist after it (a death the
      // observer's relist saw first may reach the manager's reading one relist later).
      await waitOn(observer.app.trace, 'two relists of the observer after the change', () => {
        return relistStarts(observer.app.trace, last.at).length >= 2;
      });
      const deadline = relistStarts(observer.app.trace, last.at)[1] as number;
      await waitOn(managed.built.trace, "two relists of the manager's after that", () => {
        return relistStarts(managed.built.trace, deadline).length >= 2;
      });
      const horizon = relistStarts(managed.built.trace, deadline)[1] as number;
      const then = mine().filter((h) => h.at >= last.at && h.at <= horizon);
      expect(
        then.map((h) => h.key),
        `${name}: the observer when its next relist began`,
      ).toContain(seen(deadline));

      const want = JSON.parse(last.key) as Reading;
      expect(want.status, name).toBeDefined();
      if (name === 'sc-init') expect(want.status).toBe('Running');
      expect(want.restarts, name).toBeDefined();
      if (name === 'sc-crash') {
        expect(want.status).toMatch(/^(CrashLoopBackOff|Error)$/);
        expect(want.restarts).toBeGreaterThanOrEqual(2);
        expect(want.window).toMatchObject({ container: 'app' });
        expect(want.window?.delayS).toBeGreaterThanOrEqual(20);
      } else expect(want.window, name).toBeUndefined();
    });
  }

  it('made no mutating CRI call, and the runtime lists the same with and without an observer', async () => {
    expect(observer.app.cri.refused.size).toBe(0);
    const made = [...observer.app.cri.calls.keys()];
    expect(made.length).toBeGreaterThan(0);
    for (const m of made)
      expect(m).toMatch(/^(Version|Status|List\w+|\w+Status|\w*Stats|ImageFsInfo|GetContainerEvents)$/);
    await observer.close();
    // the manager stops (and with it every change), then a fresh observer comes and goes between two listings
    await managed.built.close();
    // a start the manager sent before it closed may still land (sc-crash's container then exits at once):
    // the listing counts once the runtime holds no container being created and lists the same twice running
    let last = '';
    const before = await until(
      'the runtime settled after the manager closed',
      async () => {
        const now = await runtimeSnapshot(ctd.endpoint);
        const same = JSON.stringify(now) === last;
        last = JSON.stringify(now);
        return same && !now.containers.some((c) => c.endsWith(' CONTAINER_CREATED')) ? now : undefined;
      },
      30_000,
      500,
    );
    expect(before.containers.length).toBeGreaterThan(0);
    const second = await startObserver(ctd.endpoint, join(managed.dataDir, 'kubelet.log'));
    let relists = 0;
    const off = second.app.trace.subscribe((e) => {
      if (e.type === 'pleg.relist') relists++;
    });
    await waitOn(second.app.trace, 'two relists of the second observer', () => relists >= 2, 15_000).finally(
      off,
    );
    expect(second.app.observer.getPod('default', 'sc-crash')).toBeDefined();
    expect(second.app.cri.refused.size).toBe(0);
    await second.close();
    expect(await runtimeSnapshot(ctd.endpoint)).toEqual(before);
  });

  it('the dashboard shows the observed pods live, read-only, with the back-off basis', () => {
    if (dashboardError) throw dashboardError;
    expect(dashboard?.observing).toContain(`observing the kubelet on ${ctd.endpoint}`);
    expect(dashboard?.pods).toEqual(expect.arrayContaining(['sc-crash', 'sc-init']));
    expect(dashboard?.controls).toEqual({ apply: 0, faults: 0, deletes: 0 });
    expect(dashboard?.whyEmpty.loop).toContain('not visible from the container runtime');
    expect(dashboard?.whyEmpty.cadence).toContain('leaves no trace in the container runtime');
    expect(dashboard?.timeline).toBe(true);
    expect(['inferred', 'confirmed']).toContain(dashboard?.basis);
    expect(dashboard?.basisText).toMatch(/^(inferred|confirmed)/);
    expect(dashboard?.screenshots).toHaveLength(4);
    expect(dashboard?.pageErrors).toEqual([]);
  });
});
