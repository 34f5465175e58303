/**
 * The settings a log gives (its version line, its feature-gates flag) and the ladder they drive: the reset
 * after a quiet spell, v1.31's 2 × max expiry, v1.33's reduced decay gate, v1.35's requeue at the window's end.
 */
import { describe, expect, it } from 'vitest';
import { ContainerLadder } from './ladder.ts';
import { defaultExplainParams, type LogSettings, paramsFromLog, readLogSetting } from './params.ts';

function settings(...lines: string[]): LogSettings {
  const s: LogSettings = { gates: new Map() };
  for (const l of lines) readLogSetting(l, s);
  return s;
}

describe('the log sets the parameters', () => {
  it('reads the structured version line and the feature gates (v1.33 reduced decay: 1s to 1m0s)', () => {
    const s = settings(
      '"Kubelet version" kubeletVersion="v1.33.2"',
      'FLAG: --feature-gates="ReduceDefaultCrashLoopBackOffDecay=true,KubeletCrashLoopBackOffMax=false"',
    );
    const p = paramsFromLog(s);
    expect(p).toMatchObject({ version: 'v1.33.2', initialBackOffMs: 1_000, maxBackOffMs: 60_000 });
    expect(p.origins.maxBackOffMs).toMatch(/ReduceDefaultCrashLoopBackOffDecay/);
  });

  it('keeps the defaults for v1.33 without the gate, and reads the older `Version:` line', () => {
    expect(paramsFromLog(settings('"Kubelet version" kubeletVersion="v1.33.0"'))).toMatchObject({
      initialBackOffMs: 10_000,
      maxBackOffMs: 300_000,
      resetMs: 600_000,
    });
    const old = paramsFromLog(settings('Version: v1.18.6'), {
      ...defaultExplainParams(),
      maxBackOffMs: 120_000,
    });
    // before v1.32 the entry expired after flowcontrol's 2 × max
    expect(old).toMatchObject({ version: 'v1.18.6', resetMs: 240_000 });
  });

  it('v1.35+ requeues a back-off at its end', () => {
    expect(paramsFromLog(settings('"Kubelet version" kubeletVersion="v1.35.0"')).requeueAtBackOffEnd).toBe(
      true,
    );
    expect(defaultExplainParams().requeueAtBackOffEnd).toBe(false);
  });
});

describe('the ladder', () => {
  const s = 1000;
  it('restarts the first death at once, then 10s doubling to the cap, and starts over after a quiet 10 minutes', () => {
    const l = new ContainerLadder(defaultExplainParams());
    let t = 0;
    const delays: (number | string)[] = [];
    for (let i = 0; i < 8; i++) {
      const r = l.died(t, i);
      delays.push(r.kind === 'backoff' ? r.delayMs / s : r.why);
      t += r.kind === 'backoff' ? r.delayMs : 1 * s;
      l.started(t, true);
      t += 1 * s;
    }
    expect(delays).toEqual(['no-entry', 10, 20, 40, 80, 160, 300, 300]);
    // it ran 10 minutes and a second since the entry's last update: expired, restart at once, back to 10s
    const r = l.died(t + 600 * s, 9);
    expect(r).toMatchObject({ kind: 'immediate', why: 'expired' });
    l.started(t + 601 * s, true);
    expect(l.died(t + 602 * s, 10)).toMatchObject({ kind: 'backoff', delayMs: 10 * s });
  });

  it('a kill by the sync that restarts the container moves no rung', () => {
    const l = new ContainerLadder(defaultExplainParams());
    l.died(0, 1);
    l.started(1 * s, true);
    expect(l.died(5 * s, 2, true)).toMatchObject({ kind: 'immediate', why: 'killed' });
    l.started(5 * s, true);
    expect(l.died(8 * s, 3)).toMatchObject({ kind: 'backoff', delayMs: 10 * s });
  });
});
