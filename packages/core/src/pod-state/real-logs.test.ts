/**
 * The reducer over real kubelet logs (../kubelet-log/testdata, copies with provenance), read by the importer
 * as the dashboard reads them. Expectations are counted from the log's text here, not from the reducer:
 * which container IDs started and died, the "back-off <d> restarting failed container" delays.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../events/trace.ts';
import { importKubeletLog } from '../kubelet-log/index.ts';
import { PodStateReducer } from './reducer.ts';
import type { Fact, PodSnapshot } from './types.ts';

const dir = new URL('../kubelet-log/testdata/', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, dir), 'utf8');
const LOGS = [
  '01-v1.17-windows-glog-v4-full-lifecycle.log',
  '03-v1.31-openshift-journald-v2-static-pods-probes-crashloop.log',
  '07-v1.3x-talos-json-v0-etcd-overload-volume-stuck.log',
  '09-v1.15-aks-journald-glog-v2-helm-burst.log',
  '10-v1.16-1.18-journald-glog-v2-sandbox-create-failure.log',
];
const CVO_UID = 'aba1776703037ea02e532541162536e2';
const value = <T>(f: Fact<T>) => (f.basis === 'unknown' ? undefined : f.value);

/** Folds the events one by one, calling `at` with the pod's snapshot after each of its events. */
function foldWatching(
  events: readonly TraceEvent[],
  uid: string,
  at: (ev: TraceEvent, s: PodSnapshot) => void,
) {
  const r = new PodStateReducer();
  for (const ev of events) {
    r.add(ev);
    if ('podUID' in ev && ev.podUID === uid) at(ev, r.snapshot(uid) as PodSnapshot);
  }
  return r;
}

/** Go durations as the log prints them (10s, 1m20s, 5m0s) in seconds. */
function seconds(d: string): number {
  const m = /^(?:(\d+)m)?(\d+)s$/.exec(d);
  return m ? Number(m[1] ?? 0) * 60 + Number(m[2]) : Number.NaN;
}

describe('sample 03: the crash-looping cluster-version-operator', () => {
  const text = read(LOGS[1] as string);
  const { events } = importKubeletLog(text, { year: 2024 });
  const lines = text.split('\n');
  const lineOf = (needle: RegExp) => lines.findIndex((l) => needle.test(l)) + 1;
  const backoffLine = lineOf(/back-off 10s restarting failed container=cluster-version-operator/);
  const lastDeathLine = lineOf(/container finished" podID="aba17767\S+ containerID="d0f6c0cc/);
  const restartLine = lineOf(/"Type":"ContainerStarted","Data":"94f8b012/);

  it('is Completed between its death (exit 0) and the back-off line, then CrashLoopBackOff, then restarted', () => {
    const seen: { line: number; word?: string; restarts?: number; basis: string }[] = [];
    foldWatching(events, CVO_UID, (ev, s) => {
      if (!ev.origin) return;
      const w = value(s.statusWord);
      seen.push({
        line: ev.origin.line,
        basis: s.statusWord.basis,
        ...(w ? { word: w } : {}),
        ...(value(s.restarts) !== undefined ? { restarts: value(s.restarts) as number } : {}),
      });
    });
    const at = (line: number) => seen.filter((x) => x.line === line).at(-1);
    // the container exited 0: the runtime's reason is Completed until the sync refuses to start it
    expect(at(lastDeathLine)).toMatchObject({ word: 'Completed', basis: 'inferred', restarts: 1 });
    expect(at(backoffLine)).toMatchObject({ word: 'CrashLoopBackOff', basis: 'inferred', restarts: 1 });
    expect(at(restartLine)).toMatchObject({ word: 'Running', restarts: 2 });
  });

  it('says where CrashLoopBackOff came from: the back-off line, by the reason-cache rule', () => {
    let crash: PodSnapshot | undefined;
    foldWatching(events, CVO_UID, (ev, s) => {
      if (ev.origin?.line === backoffLine && ev.type === 'backoff') crash = s;
    });
    const s = crash as PodSnapshot;
    expect(s.statusWord).toMatchObject({ basis: 'inferred', from: { line: backoffLine } });
    expect((s.statusWord as { rule: string }).rule).toMatch(/CrashLoopBackOff from a back-off line/);
    const cvo = s.containers.find((c) => value(c.name) === 'cluster-version-operator');
    expect(cvo?.name.basis).toBe('inferred'); // the log's PLEG lines give only IDs
    expect(cvo?.state).toMatchObject({
      basis: 'inferred',
      value: { kind: 'waiting', reason: 'CrashLoopBackOff' },
    });
    expect(cvo?.lastState).toMatchObject({ value: { kind: 'terminated', exitCode: 0, reason: 'Completed' } });
    expect(cvo?.restartCount).toMatchObject({ basis: 'inferred', value: 1 });
    expect(cvo?.containerID).toBe('d0f6c0ccbbdca3e41ad781111e3f5bb835434c78a1536a242c73989788f3f1fc');
  });

  it("keeps the log's back-off ladder and what happened after the window", () => {
    const delays = [
      ...text.matchAll(/back-off (\S+) restarting failed container=cluster-version-operator/g),
    ].map((m) => seconds(m[1] as string));
    let before: PodSnapshot | undefined;
    foldWatching(events, CVO_UID, (ev, s) => {
      if (ev.origin && ev.origin.line <= restartLine) before = s;
    });
    const b = (before as PodSnapshot).backoffs[0];
    expect(b?.ladder.map((r) => r.delayS)).toEqual(delays);
    expect(b).toMatchObject({
      container: 'cluster-version-operator',
      delayS: 10,
      exitCode: { basis: 'stated', value: 0, from: { line: lastDeathLine } },
    });
    expect(b?.outcome).toMatchObject({ kind: 'restarted', from: { line: restartLine } });
    expect(b?.death?.from.line).toBe(lastDeathLine);
  });
});

describe('sample 03: keepalived killed for failing its liveness probe', () => {
  it('names the container whose death follows the kill, and counts its restart', () => {
    const text = read(LOGS[1] as string);
    const lines = text.split('\n');
    const kill =
      lines.findIndex((l) =>
        /Killing container with a grace period" pod="openshift-vsphere-infra\/keepalived/.test(l),
      ) + 1;
    const { events } = importKubeletLog(text, { year: 2024 });
    const r = new PodStateReducer().addAll(events);
    const s = r.snapshot('f0ae693b55fb9a30b6948915ffb89696') as PodSnapshot;
    const k = s.containers.find((c) => value(c.name) === 'keepalived');
    expect(k?.name).toMatchObject({ basis: 'inferred', from: { line: kill } });
    expect(k?.lastState).toMatchObject({ value: { kind: 'terminated', exitCode: 143, reason: 'Error' } });
    expect(k?.restartCount).toMatchObject({ basis: 'inferred', value: 1 });
    expect(k?.state).toMatchObject({ value: { kind: 'running' } });
  });
});

describe('every sample log', () => {
  for (const name of LOGS) {
    it(`${name.slice(0, 2)}: no fact is a default: each is stated with its line, inferred by a rule, or unknown`, () => {
      const { events } = importKubeletLog(read(name), { year: 2024 });
      const r = new PodStateReducer().addAll(events);
      const facts: Fact<unknown>[] = [];
      for (const s of r.snapshots()) {
        facts.push(s.phase, s.statusWord, s.ready, s.restarts);
        for (const c of s.containers) facts.push(c.name, c.state, c.lastState, c.restartCount, c.ready);
        // a log has no spec: READY is never made up
        expect(s.ready.basis).toBe('unknown');
      }
      for (const f of facts) {
        if (f.basis === 'stated') expect(f.from.line).toBeGreaterThan(0);
        else if (f.basis === 'inferred') expect(f.rule.length).toBeGreaterThan(10);
        else expect(f.why.length).toBeGreaterThan(10);
      }
    });
  }
});

describe("a graceful delete in sample 01: the worker's states its lines imply", () => {
  const UID = '0ac7a38c-74bc-4d23-ae50-2576492537e0';
  it('DELETE, the kill (TerminatingPod, the grace deadline), every container dead (TerminatedPod), REMOVE (Finished)', () => {
    const { events } = importKubeletLog(read('01-v1.17-windows-glog-v4-full-lifecycle.log'));
    const seen: { state: string; basis: string; line: number | undefined }[] = [];
    let grace: PodSnapshot['grace'];
    foldWatching(events, UID, (ev, s) => {
      const w = s.worker;
      const last = seen[seen.length - 1];
      if (w.basis !== 'unknown' && w.value !== last?.state)
        seen.push({ state: w.value, basis: w.basis, line: ev.origin?.line });
      grace ??= s.grace;
    });
    // counted from the log: the kill at line 200 ("with 30 second grace period") after the DELETE at 197, the
    // REMOVE at 373, then the kubelet's own word that the worker is gone
    expect(seen.map((s) => s.state)).toEqual([
      'SyncPod',
      'TerminatingPod',
      'TerminatedPod',
      'Finished',
      'Forgotten',
    ]);
    expect(seen.slice(0, 4).every((s) => s.basis === 'inferred')).toBe(true);
    expect(seen[4]?.basis).toBe('stated');
    expect(seen[1]?.line).toBe(200);
    expect(seen[3]?.line).toBe(373);
    expect(grace?.gracePeriodS).toBe(30);
    expect(grace?.from.line).toBe(200);
    expect((grace?.deadline ?? 0) - (grace?.start ?? 0)).toBe(30_000);
  });
});

describe('sample 01: each container the PLEG lines show', () => {
  it('is listed with its own ID: an ID seen running again after it exited is the same container, not a restart', () => {
    const text = read('01-v1.17-windows-glog-v4-full-lifecycle.log');
    // counted from the text: the IDs of the pod's "GenericPLEG: <uid>/<id>: <old> -> <new>" lines
    const ids = new Set(
      [...text.matchAll(/GenericPLEG: 0ac7a38c-[0-9a-f-]+\/([0-9a-f]{64}):/g)].map((m) => m[1]),
    );
    expect(ids.size).toBe(2);
    const { events } = importKubeletLog(text);
    const s = new PodStateReducer().addAll(events).snapshot('0ac7a38c-74bc-4d23-ae50-2576492537e0');
    expect(new Set(s?.containers.map((c) => c.containerID))).toEqual(ids);
    // neither was restarted: the one that ran again under its ID had not died
    for (const c of s?.containers ?? []) expect(value(c.restartCount)).toBe(0);
  });
});

describe('sample 03: the static pod removed and added again under its UID', () => {
  it('keeps its back-off window across the new life, as the kubelet keys back-off by pod and container', () => {
    const text = read(LOGS[1] as string);
    const { events } = importKubeletLog(text, { year: 2024 });
    const lines = text.split('\n');
    const delays = [
      ...text.matchAll(/back-off (\S+) restarting failed container=cluster-version-operator/g),
    ].map((m) => seconds(m[1] as string));
    const readded = lines.findIndex(
      (l) => /SyncLoop ADD/.test(l) && /bootstrap-cluster-version-operator/.test(l),
    );
    expect(readded, 'the log adds the pod').toBeGreaterThan(0);
    const s = new PodStateReducer().addAll(events).snapshot(CVO_UID) as PodSnapshot;
    const window = s.backoffs.find((b) => b.container === 'cluster-version-operator');
    expect(window?.ladder.map((r) => r.delayS)).toEqual(delays);
  });
});
