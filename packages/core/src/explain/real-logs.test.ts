/**
 * The explanation of the real kubelet logs in ../kubelet-log/testdata. What is asserted was read from the
 * logs' text here: the one "back-off" line of sample 03 (line 637, `back-off 10s` for
 * cluster-version-operator), the death that opened it (line 629) and the restart after it (line 663), and
 * the kills (`Killing container with a grace period`) the log holds. Copies with edited delays and times
 * must differ at exactly the edited steps.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importKubeletLog } from '../kubelet-log/index.ts';
import { explainTrace } from './explainer.ts';
import type { ExplainedStep, SourceExplanation } from './types.ts';

const dir = new URL('../kubelet-log/testdata/', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, dir), 'utf8');
const LOGS = [
  '01-v1.17-windows-glog-v4-full-lifecycle.log',
  '03-v1.31-openshift-journald-v2-static-pods-probes-crashloop.log',
  '07-v1.3x-talos-json-v0-etcd-overload-volume-stuck.log',
  '09-v1.15-aks-journald-glog-v2-helm-burst.log',
  '10-v1.16-1.18-journald-glog-v2-sandbox-create-failure.log',
];
const S03 = LOGS[1] as string;
const CVO = 'openshift-cluster-version/bootstrap-cluster-version-operator-localhost.localdomain';

function explain(text: string): SourceExplanation {
  return explainTrace(importKubeletLog(text, { year: 2024 }).events);
}
const steps = (x: SourceExplanation): ExplainedStep[] => x.pods.flatMap((p) => p.steps);
const atLine = (x: SourceExplanation, line: number, source: RegExp) =>
  steps(x).find((s) => s.line === line && source.test(s.source));

describe('every real log', () => {
  for (const name of LOGS) {
    it(`${name}: a summary per log and per pod; every back-off line is a window read by its rule`, () => {
      const text = read(name);
      const { events } = importKubeletLog(text, { year: 2024 });
      const x = explainTrace(events);
      const podEvents = events.filter((e) => 'podUID' in e && e.podUID && 'pod' in e && e.pod);
      // every step of every pod is counted once, and the source's counts are the pods' sums
      expect(x.counts.steps).toBe(podEvents.length);
      expect(x.counts.explained + x.counts.unexplained).toBe(x.counts.steps);
      expect(x.counts.agrees + x.counts.differs).toBe(x.counts.explained);
      expect(x.pods.reduce((n, p) => n + p.counts.steps, 0)).toBe(x.counts.steps);
      expect(x.pods.length).toBe(new Set(podEvents.map((e) => ('podUID' in e ? e.podUID : ''))).size);
      // the log's back-off lines, counted in its text, are its windows; each is explained by the rule
      const backoffLines = text.split('\n').filter((l) => /back-off \d/.test(l)).length;
      expect(x.counts.backoffWindows).toBe(backoffLines);
      expect(x.counts.backoffWindowsAgreeing).toBe(backoffLines);
      for (const s of steps(x).filter((s) => /back-off/.test(s.source))) {
        expect(s.rule).toMatch(/doBackOff/);
        expect(s.backoffMs).toBeGreaterThan(0);
      }
      // the kubelet's own logs: the model agrees with every step a rule reads
      expect(x.counts.differs).toBe(0);
    });
  }
});

describe('sample 03: the crash-looping cluster-version-operator', () => {
  const x = explain(read(S03));
  const cvo = x.pods.find((p) => p.pod === CVO);

  it('sums up the pod: one back-off window, agreeing', () => {
    expect(cvo?.counts).toMatchObject({ backoffWindows: 1, backoffWindowsAgreeing: 1, differs: 0 });
    expect(x.params).toMatchObject({ initialBackOffS: 10, maxBackOffS: 300, resetS: 600 });
  });

  it('reads the death at line 629 as the second: back-off 10s, as the log then says', () => {
    const death = atLine(x, 629, /ContainerDied/);
    expect(death).toMatchObject({ verdict: 'agrees', backoffMs: 10_000 });
    expect(death?.model).toContain('in back-off 10s until 05:00:24 → CrashLoopBackOff');
    // the first death (line 617) had no entry yet: restarted at once
    expect(atLine(x, 617, /ContainerDied/)?.model.at(-1)).toMatch(/no back-off entry yet/);
    // a log has no spec: said, with what was assumed
    expect(death?.assumed?.join('\n')).toMatch(/no pod spec in the source.*restartPolicy Always/);
  });

  it('explains the back-off line (637) by the ladder and the restart (663) by the window and the requeue', () => {
    const window = atLine(x, 637, /back-off 10s/);
    expect(window).toMatchObject({ verdict: 'agrees', backoffMs: 10_000 });
    expect(window?.model[0]).toMatch(/^window 1: in back-off 10s until 05:00:24/);
    const restart = atLine(x, 663, /ContainerStarted/);
    expect(restart?.verdict).toBe('agrees');
    expect(restart?.model[0]).toMatch(/restarted 16.025s after its death; back-off 10s ended 05:00:24/);
    // the sync error requeues the worker after 10 s to 15 s
    const sync = atLine(x, 637, /SyncPod failed/);
    expect(sync?.nextSync).toMatchObject({ why: 'error requeue' });
    expect((sync?.nextSync?.to ?? 0) - (sync?.nextSync?.from ?? 0)).toBe(5_000);
  });

  it('gives every kill in the log its cause: a deletion or a failed probe', () => {
    const kills = read(S03)
      .split('\n')
      .filter((l) => l.includes('Killing container with a grace period'));
    const stops = steps(x).filter((s) => s.source.startsWith('CRI StopContainer'));
    expect(stops.length).toBe(kills.length);
    for (const s of stops) expect(s.verdict).toBe('agrees');
    expect(stops.some((s) => /failed liveness probe/.test(s.model[0] ?? ''))).toBe(true);
  });
});

describe('an edited copy of sample 03 differs at exactly the edited steps', () => {
  const text = read(S03);

  it('a window that does not start at 10s: the back-off line differs, with both values', () => {
    const edited = text.replace('back-off 10s restarting', 'back-off 20s restarting');
    const x = explain(edited);
    const differs = steps(x).filter((s) => s.verdict === 'differs');
    expect(differs.map((s) => s.line)).toEqual([637]);
    expect(differs[0]?.difference).toEqual({
      kind: 'backoff-delay',
      expected: 'back-off 10s',
      seen: 'back-off 20s',
    });
    expect(x.counts).toMatchObject({ differs: 1, backoffWindows: 1, backoffWindowsAgreeing: 0 });
  });

  it('a restart before the window ends: the restart differs, earlier than the back-off allows', () => {
    const lines = text.split('\n');
    lines[662] = (lines[662] as string)
      .replace('05:00:30.373901', '05:00:18.373901')
      .replace('May 12 05:00:30', 'May 12 05:00:18');
    const x = explain(lines.join('\n'));
    const differs = steps(x).filter((s) => s.verdict === 'differs');
    expect(differs.map((s) => [s.line, s.difference?.kind])).toEqual([[663, 'restart-early']]);
    expect(differs[0]?.difference?.expected).toMatch(/^not before 05:00:23/);
  });
});
