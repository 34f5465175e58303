/**
 * The differences the model marks, each made by one edit of sample 03 (../kubelet-log/testdata): a restart
 * well after the window and the requeue that should have brought it, a sync after that time that still did
 * not restart the container, a second failed sync within the requeue with nothing between to wake the
 * worker (beyond the one sync an update queues while the sync before runs), and a kill no deletion, probe or
 * spec change asked for. Each edited copy differs at exactly the edited step, with its kind; the log as
 * written differs nowhere.
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

  it('no restart, and a sync 16 s after the window still refuses it: restart-missing, with when it was due', () => {
    const lines = [...LINES];
    // the restart's line becomes the window's sync error again, at 05:00:40
    lines[RESTART - 1] = at(BACKOFF, '05:00:40');
    const d = differing(lines);
    expect(d.map((s) => [s.line, s.difference?.kind])).toEqual([[RESTART, 'restart-missing']]);
    // the requeue after the failed sync at 05:00:14 comes by 05:00:29; + ticker, relist and start: 05:00:36
    expect(d[0]?.difference).toEqual({
      kind: 'restart-missing',
      expected:
        'a restart of cluster-version-operator by 05:00:36 (the first sync after the window, + ticker, relist and start)',
      seen: 'SyncPod failed: StartContainer✗CrashLoopBackOff at 05:00:40, cluster-version-operator still not restarted',
    });
    expect(d[0]?.model[0]).toMatch(/^cluster-version-operator not restarted: back-off 10s ended 05:00:24/);
  });

  it('the failed sync again at the next relist: the sync the exit queued while the first ran agrees', () => {
    const lines = [...LINES];
    lines.splice(BACKOFF, 0, at(BACKOFF, '05:00:15'));
    expect(differing(lines)).toEqual([]);
    const x = explainTrace(importKubeletLog(lines.join('\n'), { year: 2024 }).events);
    const again = x.pods.flatMap((p) => p.steps).find((s) => s.line === BACKOFF + 1);
    expect(again?.model).toContain(
      'the sync an update queued while the one before ran: it waited for the next relist (GetNewerThan)',
    );
  });

  it('a third failed sync with no event since: duplicate-sync', () => {
    const lines = [...LINES];
    lines.splice(BACKOFF, 0, at(BACKOFF, '05:00:15'), at(BACKOFF, '05:00:16'));
    const d = differing(lines);
    expect(d.map((s) => [s.line, s.difference?.kind])).toEqual([[BACKOFF + 2, 'duplicate-sync']]);
    expect(d[0]?.difference?.seen).toMatch(/^a sync 1s after it, with no event between/);
  });

  it('the failed sync again 5 s later with no event between: duplicate-sync', () => {
    const lines = [...LINES];
    lines.splice(BACKOFF, 0, at(BACKOFF, '05:00:19'));
    const d = differing(lines);
    expect(d.map((s) => [s.line, s.difference?.kind])).toEqual([[BACKOFF + 1, 'duplicate-sync']]);
    expect(d[0]?.difference?.seen).toMatch(/^a sync 5s after it, with no event between/);
  });

  it('a kill of the running container that nothing asked for: unrequested-kill', () => {
    const lines = [...LINES];
    // ten minutes after the restart: no DELETE, no probe failure, no UPDATE before it
    lines.splice(RESTART, 0, at(KILL, '05:10:30'));
    const d = differing(lines);
    expect(d.map((s) => [s.line, s.difference?.kind])).toEqual([[RESTART + 1, 'unrequested-kill']]);
  });
});
