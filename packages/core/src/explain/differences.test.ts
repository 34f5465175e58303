/**
 * The differences the model marks, each made by one edit of sample 03 (../kubelet-log/testdata): a restart
 * well after the window and the requeue that should have brought it, a second failed sync within the
 * requeue with nothing between to wake the worker, and a kill no deletion, probe or spec change asked for.
 * Each edited copy differs at exactly the edited step, with its kind; the log as written differs nowhere.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importKubeletLog } from '../kubelet-log/index.ts';
import { explainTrace } from './explainer.ts';

const TEXT = readFileSync(
  new URL(
    '../kubelet-log/testdata/03-v1.31-openshift-journald-v2-static-pods-probes-crashloop.log',
    import.meta.url,
  ),
  'utf8',
);
const LINES = TEXT.split('\n');
/** 1-based line numbers, read from the text */
const lineOf = (re: RegExp) => LINES.findIndex((l) => re.test(l)) + 1;
const BACKOFF = lineOf(/back-off 10s restarting failed container=cluster-version-operator/);
const RESTART = lineOf(/"Type":"ContainerStarted","Data":"94f8b012/);
const KILL = lineOf(/Killing container with a grace period" pod="openshift-cluster-version\//);

/** The line `n` (1-based) with its journald and klog times moved to hh:mm:ss. */
function at(n: number, hms: string): string {
  return (LINES[n - 1] as string)
    .replace(/^(\w{3} \d\d) \d\d:\d\d:\d\d/, `$1 ${hms}`)
    .replace(/([IEW]\d{4}) \d\d:\d\d:\d\d\./, `$1 ${hms}.`);
}

function differing(lines: string[]) {
  const x = explainTrace(importKubeletLog(`${lines.join('\n')}`, { year: 2024 }).events);
  return x.pods.flatMap((p) => p.steps).filter((s) => s.verdict === 'differs');
}

describe('an edited copy of sample 03 differs at exactly the edited step', () => {
  it('reads the lines it edits', () => {
    expect([BACKOFF, RESTART, KILL]).toEqual([637, 663, 665]);
    expect(differing(LINES)).toEqual([]);
  });

  it('a restart a minute after the window: restart-late, with the latest time the rule allows', () => {
    const lines = [...LINES];
    lines[RESTART - 1] = at(RESTART, '05:01:30');
    const d = differing(lines);
    expect(d.map((s) => [s.line, s.difference?.kind])).toEqual([[RESTART, 'restart-late']]);
    expect(d[0]?.difference?.expected).toMatch(/^by 05:00:\d\d \(the first sync after the window/);
    expect(d[0]?.difference?.seen).toMatch(/^at 05:01:30/);
  });

  it('the failed sync again 2 s later with no event between: duplicate-sync', () => {
    const lines = [...LINES];
    lines.splice(BACKOFF, 0, at(BACKOFF, '05:00:16'));
    const d = differing(lines);
    expect(d.map((s) => [s.line, s.difference?.kind])).toEqual([[BACKOFF + 1, 'duplicate-sync']]);
    expect(d[0]?.difference?.seen).toMatch(/^a sync 2s after it, with no event between/);
  });

  it('a kill of the running container that nothing asked for: unrequested-kill', () => {
    const lines = [...LINES];
    // ten minutes after the restart: no DELETE, no probe failure, no UPDATE before it
    lines.splice(RESTART, 0, at(KILL, '05:10:30'));
    const d = differing(lines);
    expect(d.map((s) => [s.line, s.difference?.kind])).toEqual([[RESTART + 1, 'unrequested-kill']]);
  });
});
