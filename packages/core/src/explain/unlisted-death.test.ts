/**
 * A window whose death no relist has reported yet. The generic PLEG lists the containers, then fetches the
 * pod's status into the cache the sync reads: an instance listed running can be read dead, and the sync opens
 * its back-off window before the next relist says ContainerDied. testdata/containerd-max-backoff-20s.log is
 * the engine's kubelet.log from a private containerd (maxContainerBackOff 20s: windows 10s, 20s, 20s, 20s); its
 * variant ends as such a run does: the last instance listed started, then the window. Either way the window
 * is read by the container's ladder: under the log's own cap every window agrees, under the kubelet's
 * defaults the last one differs (the rule's 1m20s against the log's 20s), as the one before it does.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importKubeletLog } from '../kubelet-log/index.ts';
import { explainTrace } from './explainer.ts';
import { defaultExplainParams, type ExplainParams } from './params.ts';
import type { ExplainedStep } from './types.ts';

const TEXT = readFileSync(join(import.meta.dirname, 'testdata', 'containerd-max-backoff-20s.log'), 'utf8');
const LAST = 'df937510809232b08436e638870bd77ed89856014d95e35194d82d5687d5a669';
const POD = '6c80f282-5904-4bde-b97b-7e03b30e699d';

/** The log with its last death listed as a start: the relist saw the instance running. */
const UNLISTED = TEXT.split('\n')
  .filter((l) => !(l.includes(LAST) && l.includes('container finished')))
  .map((l) => (l.includes(LAST) ? l.replace('"ContainerDied"', '"ContainerStarted"') : l))
  .join('\n');

const capped: ExplainParams = { ...defaultExplainParams(), maxBackOffMs: 20_000 };

function windows(text: string, params: ExplainParams): ExplainedStep[] {
  const x = explainTrace(importKubeletLog(text, { year: 2026 }).events, { params });
  const steps = x.pods.find((p) => p.uid === POD)?.steps ?? [];
  return steps.filter(
    (s) => s.source.startsWith('container back-off') && /^window \d/.test(s.model[0] ?? ''),
  );
}

describe('a back-off window before the relist that reports its death', () => {
  it('the variant lists the last instance started and never dead', () => {
    expect(UNLISTED).not.toBe(TEXT);
    expect(UNLISTED).toContain(`"Type":"ContainerStarted","Data":"${LAST}"`);
    expect(UNLISTED).not.toContain(`"Type":"ContainerDied","Data":"${LAST}"`);
  });

  for (const [name, text] of [
    ['as written', TEXT],
    ['its death not relisted', UNLISTED],
  ] as const) {
    it(`${name}: every window agrees under the log's cap`, () => {
      const ws = windows(text, capped);
      expect(ws.map((s) => [s.verdict, (s.backoffMs ?? 0) / 1000])).toEqual([
        ['agrees', 10],
        ['agrees', 20],
        ['agrees', 20],
        ['agrees', 20],
      ]);
      for (const s of ws) expect(s.assumed).toBeUndefined();
    });

    it(`${name}: the windows past 20s differ under the kubelet's defaults`, () => {
      const ws = windows(text, defaultExplainParams());
      expect(ws.map((s) => s.verdict)).toEqual(['agrees', 'agrees', 'differs', 'differs']);
      expect(ws.map((s) => s.difference?.expected)).toEqual([
        undefined,
        undefined,
        'back-off 40s',
        'back-off 1m20s',
      ]);
    });
  }

  it('says where the unlisted death came from', () => {
    const last = windows(UNLISTED, capped).at(-1);
    expect(last?.model[1]).toMatch(
      /^its death came from the status the sync read, before a relist reported it/,
    );
  });
});
