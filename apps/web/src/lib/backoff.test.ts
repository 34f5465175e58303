import { defaultKubeletConfiguration } from '@syncscope/core/kubelet/configuration';
import type { TraceEvent } from '@syncscope/core/trace';
import { describe, expect, it } from 'vitest';
import { backoffConstants, backoffLadder, formatCountdown, inspectBackoffs, nextDelayS } from './backoff.ts';
import { containerStatus, POD_REF, T0, traceBuilder } from './fixtures.ts';

const at = (s: number) => T0 + s * 1000;

/** Windows of 10s, 20s, 40s, each recorded on several syncs (as the engine does), then a reset to 10s. */
function windows(delays: number[]): TraceEvent[] {
  const ev = traceBuilder();
  const out: TraceEvent[] = [];
  let t = 0;
  delays.forEach((d, i) => {
    const until = at(t + d);
    for (const dt of [0, 3]) {
      out.push(
        ev(t + dt, {
          type: 'backoff',
          kind: 'container',
          container: 'app',
          key: 'k',
          delayS: d,
          until,
          exitCode: 1,
          restartCount: i + 1,
          ...POD_REF,
        }),
      );
    }
    t += d + 5;
  });
  return out;
}

describe('backoffLadder', () => {
  it('says whether an observed window was inferred or confirmed by the log; the confirmation replaces it', () => {
    const ev = traceBuilder();
    const base = {
      type: 'backoff',
      kind: 'container',
      container: 'app',
      key: 'k',
      exitCode: 1,
      ...POD_REF,
    } as const;
    const inferred = [ev(0, { ...base, delayS: 10, until: at(10), inferred: true })];
    expect(backoffLadder(inferred, 'app').rungs.map((r) => r.basis)).toEqual(['inferred']);
    const confirmed = [...inferred, ev(1, { ...base, delayS: 10, until: at(10), confirmed: true })];
    const { rungs } = backoffLadder(confirmed, 'app');
    expect(rungs.map((r) => [r.label, r.basis])).toEqual([['10s', 'confirmed']]);
    // a managed engine's windows say neither
    expect(backoffLadder(windows([10]), 'app').rungs[0]?.basis).toBeUndefined();
  });

  it('keeps one rung per window, with Go-style labels', () => {
    const { rungs, resets } = backoffLadder(windows([10, 20, 40, 80]), 'app');
    expect(rungs.map((r) => [r.n, r.label])).toEqual([
      [1, '10s'],
      [2, '20s'],
      [3, '40s'],
      [4, '1m20s'],
    ]);
    expect(resets).toBe(0);
    expect(rungs[1]).toMatchObject({ start: at(15), until: at(35), restartCount: 2, exitCode: 1 });
  });

  it('starts the ladder over after a reset to 10s', () => {
    const { rungs, resets } = backoffLadder(windows([10, 20, 40, 10, 20]), 'app');
    expect(rungs.map((r) => r.label)).toEqual(['10s', '20s']);
    expect(resets).toBe(3);
  });

  it('ignores other containers and kinds', () => {
    expect(backoffLadder(windows([10]), 'sidecar').rungs).toEqual([]);
    expect(backoffLadder(windows([10]), 'app', 'image').rungs).toEqual([]);
  });
});

describe('inspectBackoffs', () => {
  const events = windows([10, 20]); // the 20s window runs from 15s to 35s
  const status = (state: object, extra = {}) => ({
    phase: 'Running' as const,
    containerStatuses: [
      containerStatus('app', {
        restartCount: 2,
        state,
        lastState: {
          terminated: { exitCode: 1, reason: 'Error', finishedAt: '2025-01-10T12:00:15Z', containerID: 'c2' },
        },
        ...extra,
      }),
    ],
  });

  it('inspects a container waiting in CrashLoopBackOff with a countdown on the engine clock', () => {
    const [b, ...rest] = inspectBackoffs(
      status({
        waiting: { reason: 'CrashLoopBackOff', message: 'back-off 20s restarting failed container=app' },
      }),
      events,
      at(22.5),
    );
    expect(rest).toEqual([]);
    expect(b).toMatchObject({
      container: 'app',
      kind: 'container',
      reason: 'CrashLoopBackOff',
      lastExit: { exitCode: 1, reason: 'Error', finishedAt: '2025-01-10T12:00:15Z' },
      restartCount: 2,
      remainingMs: 12_500,
      nextDelayS: 40,
    });
    expect(b?.current?.label).toBe('20s');
    expect(formatCountdown(b?.remainingMs ?? 0)).toBe('0:13');
  });

  it('keeps inspecting between two tries, but not a ready container or one never backed off', () => {
    expect(inspectBackoffs(status({ running: { startedAt: '' } }), events, at(40))).toHaveLength(1);
    expect(inspectBackoffs(status({ running: { startedAt: '' } }, { ready: true }), events, at(40))).toEqual(
      [],
    );
    expect(inspectBackoffs(status({ running: { startedAt: '' } }), [], at(40))).toEqual([]);
  });

  it('inspects an image pull back-off from the image events', () => {
    const ev = traceBuilder();
    const pulls = [10, 20].map((d, i) =>
      ev(i * 30, {
        type: 'backoff',
        kind: 'image',
        container: 'app',
        key: 'uid_nope:1',
        delayS: d,
        until: at(i * 30 + d),
        image: 'nope:1',
        ...POD_REF,
      }),
    );
    const [b] = inspectBackoffs(
      {
        phase: 'Pending',
        containerStatuses: [containerStatus('app', { state: { waiting: { reason: 'ImagePullBackOff' } } })],
      },
      pulls,
      at(45),
    );
    expect(b).toMatchObject({
      kind: 'image',
      reason: 'ImagePullBackOff',
      remainingMs: 5_000,
      lastExit: null,
    });
    expect(b?.ladder.map((r) => r.label)).toEqual(['10s', '20s']);
  });

  it("reads the ladder's constants from the node's configuration", () => {
    // a node started with --config maxContainerBackOffMs: 40000, containerBackOffResetMs: 120000
    const cfg = {
      ...defaultKubeletConfiguration,
      maxContainerBackOffMs: 40_000,
      containerBackOffResetMs: 120_000,
    };
    const crashing = status({ waiting: { reason: 'CrashLoopBackOff' } });
    const [b] = inspectBackoffs(crashing, windows([10, 20, 40]), at(60), cfg);
    expect(b?.constants).toEqual({ initialS: 10, maxS: 40, resetS: 120 });
    // after 40s the next delay stays at the node's maximum, not the default 5m0s
    expect(b?.nextDelayS).toBe(40);
    // the default configuration doubles on
    expect(inspectBackoffs(crashing, windows([10, 20, 40]), at(60))[0]?.nextDelayS).toBe(80);
    // between tries, inspected as long as the node's entry lives (2m here), not 10 minutes
    const between = status({ running: { startedAt: '' } });
    expect(inspectBackoffs(between, events, at(35 + 119), cfg)).toHaveLength(1);
    expect(inspectBackoffs(between, events, at(35 + 121), cfg)).toEqual([]);
    expect(inspectBackoffs(between, events, at(35 + 121))).toHaveLength(1);
  });

  it("an image pull's entry lives twice its maximum", () => {
    const cfg = { ...defaultKubeletConfiguration, imageBackOffPeriodMs: 1_000, maxImageBackOffMs: 8_000 };
    expect(backoffConstants('image', cfg)).toEqual({ initialS: 1, maxS: 8, resetS: 16 });
    expect(backoffConstants('image')).toEqual({ initialS: 10, maxS: 300, resetS: 600 });
  });

  it('doubles up to 5m0s', () => {
    expect([10, 20, 160, 300].map((d) => nextDelayS(d))).toEqual([20, 40, 300, 300]);
    expect(formatCountdown(0)).toBe('now');
    expect(formatCountdown(61_000)).toBe('1:01');
  });
});
