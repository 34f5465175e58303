import { describe, expect, it } from 'vitest';
import { T0 } from '../lib/fixtures.ts';
import { serverWord } from './health-fixtures.ts';
import { healthVerdict } from './health-verdict.ts';

const live = { state: 'live', staleSince: null };

describe('healthVerdict', () => {
  const running = serverWord({}, T0);

  it('says the loops run while the server says so, however long the page took to show it', () => {
    const v = healthVerdict(live, running, T0 + 1_500);
    expect(v.state).toBe('live');
    if (v.state === 'live')
      expect(v.text).toMatch(/^sync loop, PLEG and housekeeping running, as the server/);
  });

  it('says the page is behind, not that the kubelet stalled, when the answer is late', () => {
    const v = healthVerdict(live, running, T0 + 57_000);
    expect(v).toEqual({
      state: 'behind',
      text: expect.stringMatching(
        /^the page is behind: no word from the server for 57s \(last at \d\d:\d\d:\d\d\)/,
      ),
    });
  });

  it('is stale once the stream is gone, whatever the last word said', () => {
    const stalled = serverWord({
      loop: { last: T0, lastWall: T0, periodMs: 1000, silentMs: 9000, stalled: true, thresholdMs: 2000 },
    });
    const v = healthVerdict({ state: 'reconnecting', staleSince: T0 + 100 }, stalled, T0 + 200);
    expect(v.state).toBe('stale');
    if (v.state === 'stale') expect(v.text).toMatch(/^stale since \d\d:\d\d:\d\d · reconnecting…/);
    expect(healthVerdict({ state: 'connecting', staleSince: null }, null, T0)).toEqual({
      state: 'connecting',
      text: 'connecting…',
    });
  });

  it("lists each stall the server reports, the PLEG's by its threshold, and a failing /healthz", () => {
    const word = serverWord({
      loop: { last: T0, lastWall: T0, periodMs: 1000, silentMs: 400_000, stalled: true, thresholdMs: 2000 },
      relist: {
        last: T0,
        lastWall: T0,
        periodMs: 1000,
        silentMs: 181_000,
        stalled: true,
        thresholdMs: 180_000,
      },
    });
    word.health.syncLoopHealthz = {
      thresholdMs: 300_000,
      ok: false,
      message: 'sync Loop took longer than expected',
    };
    const v = healthVerdict(live, word, T0 + 1000);
    expect(v.state).toBe('stalled');
    if (v.state !== 'stalled') return;
    expect(v.lines.map((l) => l.name)).toEqual(['loop', 'relist', 'healthz']);
    expect(v.lines[0]?.text).toMatch(
      /^sync loop stalled: no sync loop iteration for 401s \(last at \d\d:\d\d:\d\d\)$/,
    );
    expect(v.lines[1]?.text).toMatch(
      /^PLEG stalled: no PLEG relist for 182s .*; the PLEG's threshold is 3m0s$/,
    );
    expect(v.lines[2]?.text).toBe(
      "the kubelet's /healthz: syncloop failed: sync Loop took longer than expected",
    );
  });
});
