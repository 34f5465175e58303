/**
 * testdata/containerd-max-backoff-20s.log is the engine's kubelet.log from a private containerd
 * (maxContainerBackOff 20s). Its first window shows the kubelet's two syncs a relist apart after one exit: the
 * sync the sandbox's event queued while the pod's first sync ran waited for the next relist, was woken by that
 * relist's status read (the first exit) and restarted the container; the exit's own event came while it ran
 * and queued the next, which met the 10 s window after the second exit's relist, and the second exit's event
 * queued one more, a relist later. Both are the kubelet's syncs, not duplicates. Its variant has the first
 * exit first reported by the second exit's relist: the sync the sandbox's relist woke read it dead from that
 * relist's status before any relist listed it, and the next relist reports both instances dead, the second a
 * restart of the first. Under the log's own cap every step agrees.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importKubeletLog } from '../kubelet-log/index.ts';
import { explainTrace } from './explainer.ts';
import { defaultExplainParams } from './params.ts';

const TEXT = readFileSync(join(import.meta.dirname, 'testdata', 'containerd-max-backoff-20s.log'), 'utf8');
const POD = '6c80f282-5904-4bde-b97b-7e03b30e699d';
/** the first exit, reported by the relist that reports the second */
const ONE_RELIST = TEXT.replaceAll('22:25:55.747000', '22:25:57.014000');

function explained(text: string) {
  const x = explainTrace(importKubeletLog(text, { year: 2026 }).events, {
    params: { ...defaultExplainParams(), maxBackOffMs: 20_000 },
  });
  return x.pods.find((p) => p.uid === POD);
}

describe("the kubelet's syncs after one exit, and two exits in one relist", () => {
  it('the variant moves the first exit into the second exit’s relist', () => {
    expect(ONE_RELIST).not.toBe(TEXT);
    expect(ONE_RELIST.split('\n').filter((l) => l.includes('22:25:57.014000'))).toHaveLength(4);
  });

  it('as written: the second back-off 10s error is the sync the exit queued, and agrees', () => {
    const pod = explained(TEXT);
    const errors = (pod?.steps ?? []).filter((s) => s.source.startsWith('SyncPod failed'));
    expect(errors.slice(0, 2).map((s) => [s.line, s.verdict])).toEqual([
      [12, 'agrees'],
      [13, 'agrees'],
    ]);
    expect(errors[1]?.model).toContain(
      'the sync an update queued while the one before ran: it waited for the next relist (GetNewerThan)',
    );
    expect(pod?.counts).toMatchObject({ differs: 0, backoffWindows: 4, backoffWindowsAgreeing: 4 });
  });

  it('both exits in one relist: the second instance restarted the first at once, then 10s, 20s, 20s, 20s', () => {
    const pod = explained(ONE_RELIST);
    const steps = pod?.steps ?? [];
    const first = steps.find((s) => /restarted .* after its death/.test(s.model[0] ?? ''));
    expect(first).toMatchObject({ line: 10, verdict: 'agrees' });
    expect(first?.model[0]).toMatch(/the rule restarts it at the sync its death wakes/);
    const windows = steps.filter((s) => /^window \d/.test(s.model[0] ?? ''));
    expect(windows.map((s) => [s.verdict, (s.backoffMs ?? 0) / 1000])).toEqual([
      ['agrees', 10],
      ['agrees', 20],
      ['agrees', 20],
      ['agrees', 20],
    ]);
    expect(pod?.counts.differs).toBe(0);
  });
});
