import type { NodeHealth } from '@syncscope/core/api/node-health';
import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import { defaultKubeletConfiguration as config, type NodeInfo } from '@syncscope/core/kubelet/configuration';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from './http.ts';
import { BeatTracker, judgeBeat, judgeNodeHealth } from './node-health.ts';
import { FakeEngine } from './testing.ts';

const LAG = { meanMs: 0, p99Ms: 0, maxMs: 0, windowMs: 5000 };

describe('judgeBeat', () => {
  it('is stalled only past its threshold, and never before a first beat', () => {
    const last = { engine: 10_000, wall: 50_000 };
    expect(judgeBeat(last, 1000, 2000, 12_000, 0)).toMatchObject({ stalled: false, silentMs: 2000 });
    expect(judgeBeat(last, 1000, 2000, 12_001, 0)).toMatchObject({
      last: 10_000,
      lastWall: 50_000,
      stalled: true,
      silentMs: 2001,
    });
    expect(judgeBeat(null, 1000, 2000, 60_000, 0)).toMatchObject({
      last: null,
      stalled: false,
      silentMs: 60_000,
    });
  });
});

describe('judgeNodeHealth', () => {
  const info = (over: Partial<NodeInfo> = {}): NodeInfo => ({
    nodeName: 'n',
    runtime: { name: 'r', version: '1', apiVersion: 'v1', endpoint: 'x', ready: true, errors: [] },
    simulated: true,
    pleg: { mode: 'generic', healthy: true, lastRelist: 100_000, message: '' },
    sync: { lastIteration: 100_000 },
    configuration: config,
    clock: { now: 130_000, speed: 1 },
    ...over,
  });
  const beats = { loop: null, loopBackoffMs: 0, relist: null, housekeeping: { engine: 129_000, wall: 1 } };

  it('calls the PLEG stalled by Healthy(), not by its period: 30 s without a relist is not a stall', () => {
    const h = judgeNodeHealth(info(), beats, LAG, 1_000_000, 0);
    expect(h.beats.relist).toMatchObject({ stalled: false, silentMs: 30_000, thresholdMs: 180_000 });
    // the loop, silent for 30 s on a 1 s ticker, is
    expect(h.beats.loop).toMatchObject({ stalled: true, silentMs: 30_000, thresholdMs: 2000 });
    expect(h.beats.loop?.lastWall).toBe(1_000_000 - 30_000);
    expect(h.beats.housekeeping?.stalled).toBe(false);
    expect(h.syncLoopHealthz).toEqual({ thresholdMs: 300_000, ok: true, message: '' });
    const unhealthy = judgeNodeHealth(
      info({
        pleg: { mode: 'generic', healthy: false, lastRelist: 100_000, message: 'pleg was last seen active' },
        clock: { now: 401_000, speed: 1 },
      }),
      beats,
      LAG,
      1_000_000,
      0,
    );
    expect(unhealthy.beats.relist?.stalled).toBe(true);
    expect(unhealthy.syncLoopHealthz).toMatchObject({
      ok: false,
      message: 'sync Loop took longer than expected',
    });
  });

  it('gives a skipped turn its back-off as the period', () => {
    const h = judgeNodeHealth(
      info({ sync: { lastIteration: null } }),
      { ...beats, loop: { engine: 126_000, wall: 2 }, loopBackoffMs: 5000 },
      LAG,
      0,
      0,
    );
    expect(h.beats.loop).toMatchObject({ stalled: false, periodMs: 5000, thresholdMs: 10_000 });
  });

  it('judges only the PLEG of an observed kubelet', () => {
    const h = judgeNodeHealth(info({ observing: 'unix:///run/containerd.sock' }), beats, LAG, 0, 0);
    expect(h.beats.loop).toBeNull();
    expect(h.beats.housekeeping).toBeNull();
    expect(h.syncLoopHealthz).toBeNull();
    expect(h.beats.relist).not.toBeNull();
  });
});

describe('GET /api/v1/node health', () => {
  let app: FastifyInstance;
  let clock: FakeClock;
  let trace: TraceRecorder;

  beforeEach(async () => {
    clock = new FakeClock();
    trace = new TraceRecorder(clock, 1000);
    // a beat recorded before the server started is found in the trace it holds
    trace.record({ type: 'housekeeping', durationMs: 1, forgotten: 0, orphansKilled: 0, restarted: 0 });
    app = await createHttpApp({ engine: new FakeEngine(clock), trace, clock });
  });
  afterEach(() => app.close());

  const health = async () => (await app.inject('/api/v1/node')).json().health as NodeHealth;

  it('says when each beat last ran and stalls the loop once it is silent past twice its period', async () => {
    const t0 = clock.now();
    await clock.step(500);
    trace.record({ type: 'loop.iteration', source: 'sync', pods: 0, durationMs: 0 });
    trace.record({ type: 'pleg.relist', durationMs: 1, pods: 0, containers: 0, events: 0 });
    let h = await health();
    expect(h.at).toBe(t0 + 500);
    expect(h.beats.housekeeping).toMatchObject({ last: t0, stalled: false, periodMs: 2000 });
    expect(h.beats.loop).toMatchObject({ last: t0 + 500, silentMs: 0, stalled: false });
    expect(h.eventLoop.windowMs).toBe(5000);
    await clock.step(2001);
    h = await health();
    expect(h.beats.loop).toMatchObject({ silentMs: 2001, stalled: true });
    expect(h.beats.housekeeping).toMatchObject({ silentMs: 2501, stalled: false });
    await clock.step(1500);
    h = await health();
    expect(h.beats.housekeeping).toMatchObject({ silentMs: 4001, stalled: true });
    expect(h.beats.relist?.stalled).toBe(false); // the fake engine's PLEG says healthy
  });

  it('stops following the trace when the server closes', async () => {
    const tracker = new BeatTracker(trace, () => clock.now());
    tracker.stop();
    trace.record({ type: 'loop.iteration', source: 'sync', pods: 0, durationMs: 0 });
    expect(tracker.beats.loop).toBeNull();
  });
});
