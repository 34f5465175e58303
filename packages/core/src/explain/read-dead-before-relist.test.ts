/**
 * A restart the relist never saw start. testdata/containerd-read-dead-before-relist.log is the engine's
 * kubelet.log from a private containerd on a loaded machine (maxContainerBackOff 20s): the first relist lists
 * the first instance running; the status it then reads shows it dead, so the sync it wakes restarts it at
 * once; the second instance dies before the next relist, which lists both deaths in the same millisecond.
 * The second instance is the first one's restart (the entry its window reads), not a container of its own.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importKubeletLog } from '../kubelet-log/index.ts';
import { explainTrace } from './explainer.ts';
import { defaultExplainParams, type ExplainParams } from './params.ts';
import type { ExplainedStep } from './types.ts';

const TEXT = readFileSync(
  join(import.meta.dirname, 'testdata', 'containerd-read-dead-before-relist.log'),
  'utf8',
);
const POD = '517d1e39-6892-4c45-a1c7-9df72fca6acd';
const SECOND = 'c391e607d78a';
const capped: ExplainParams = { ...defaultExplainParams(), maxBackOffMs: 20_000 };

function steps(params: ExplainParams): ExplainedStep[] {
  const x = explainTrace(importKubeletLog(TEXT, { year: 2026 }).events, { params });
  return x.pods.find((p) => p.uid === POD)?.steps ?? [];
}

const isWindow = (s: ExplainedStep) =>
  s.source.startsWith('container back-off') && /^window \d/.test(s.model[0] ?? '');

describe('a restart read from the status before the relist listed its death', () => {
  it('the log lists the first death and the second instance dead in one relist', () => {
    const died = TEXT.split('\n').filter((l) => l.includes('"ContainerDied"'));
    expect(died[0]?.slice(0, 21)).toBe(died[1]?.slice(0, 21).replace('53.453', '53.452'));
    expect(died[1]).toContain(SECOND);
  });

  it('the second instance is the restart of the first, at once', () => {
    const s = steps(capped).find((s) => s.source === `PLEG ContainerStarted ${SECOND}`);
    expect(s?.verdict).toBe('agrees');
    expect(s?.model[0]).toMatch(
      /restarted 1ms after its death; the rule restarts it at the sync its death wakes/,
    );
    expect(s?.model[1]).toMatch(/before a relist listed it/);
  });

  it("every window agrees under the log's cap: 10s, 20s, 20s, 20s", () => {
    const ws = steps(capped).filter(isWindow);
    expect(ws.map((s) => [s.verdict, (s.backoffMs ?? 0) / 1000])).toEqual([
      ['agrees', 10],
      ['agrees', 20],
      ['agrees', 20],
      ['agrees', 20],
    ]);
    expect(
      steps(capped)
        .filter((s) => s.verdict === 'differs')
        .map((s) => s.difference?.kind),
    ).toEqual([]);
  });

  it("under the kubelet's defaults exactly the windows past 20s differ", () => {
    const ws = steps(defaultExplainParams()).filter(isWindow);
    expect(ws.map((s) => s.difference?.expected)).toEqual([
      undefined,
      undefined,
      'back-off 40s',
      'back-off 1m20s',
    ]);
  });
});
