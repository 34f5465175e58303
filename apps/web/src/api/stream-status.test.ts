import { describe, expect, it } from 'vitest';
import { nextConnection } from '../node/connection.ts';
import { streamsState, trackStream } from './stream-status.ts';

describe('the page’s streams together', () => {
  it('is live only while every open stream is, reconnecting while any is lost, and forgets ended ones', () => {
    const rows = trackStream('rows');
    const aggregates = trackStream('aggregates');
    expect(streamsState()).toBe('connecting');
    rows.live();
    expect(streamsState()).toBe('connecting');
    aggregates.live();
    expect(streamsState()).toBe('live');
    rows.lost();
    expect(streamsState()).toBe('reconnecting');
    rows.end();
    expect(streamsState()).toBe('live');
    aggregates.end();
    expect(streamsState()).toBe('connecting');
  });
});

describe('nextConnection', () => {
  const T = 1_000;
  it('goes stale when a stream that was live is lost, and live again clears it', () => {
    const live = nextConnection({ state: 'connecting', staleSince: null }, 'live', true, T);
    expect(live).toEqual({ state: 'live', staleSince: null });
    const lost = nextConnection(live, 'reconnecting', true, T + 5);
    expect(lost).toEqual({ state: 'reconnecting', staleSince: T + 5 });
    expect(nextConnection(lost, 'reconnecting', true, T + 9).staleSince).toBe(T + 5);
    expect(nextConnection(lost, 'live', true, T + 20)).toEqual({ state: 'live', staleSince: null });
  });

  it('is not stale while a new page’s streams connect, nor when it never was live', () => {
    const live = { state: 'live' as const, staleSince: null };
    expect(nextConnection(live, 'connecting', true, T)).toEqual({ state: 'connecting', staleSince: null });
    expect(
      nextConnection({ state: 'connecting', staleSince: null }, 'reconnecting', false, T).staleSince,
    ).toBe(null);
  });
});
