import { describe, expect, it } from 'vitest';
import { parseRoute, routeHref } from './route.ts';
import { estimateEngineNow, reconnectDelayMs, resumeSince, streamUrl } from './stream.ts';
import { parseStreamMessage } from './stream-message.ts';

describe('streamUrl', () => {
  it('resumes from the last seq on the page host', () => {
    expect(streamUrl({ protocol: 'http:', host: '127.0.0.1:8080' }, 42)).toBe(
      'ws://127.0.0.1:8080/api/v1/trace/stream?since=42',
    );
    expect(streamUrl({ protocol: 'https:', host: 'x' }, -1)).toBe('wss://x/api/v1/trace/stream?since=0');
  });

  it('asks for one pod’s events when given its UID', () => {
    expect(streamUrl({ protocol: 'http:', host: 'h' }, 7, 'a1-b2')).toBe(
      'ws://h/api/v1/trace/stream?since=7&podUID=a1-b2',
    );
  });
});

describe('parseStreamMessage', () => {
  it('keeps valid events and reports the rejected ones', () => {
    const good = { seq: 1, time: 5, type: 'loop.iteration', source: 'sync', pods: 0, durationMs: 0 };
    const msg = parseStreamMessage(JSON.stringify({ kind: 'events', events: [good, { seq: -1 }] }));
    expect(msg.kind).toBe('events');
    if (msg.kind !== 'events') return;
    expect(msg.events).toEqual([good]);
    expect(msg.rejected).toEqual(['seq must be a non-negative integer']);
  });

  it('reads resync and rejects what it does not know', () => {
    expect(parseStreamMessage('{"kind":"resync","reason":"too slow"}')).toEqual({
      kind: 'resync',
      reason: 'too slow',
    });
    expect(parseStreamMessage('nope').kind).toBe('invalid');
    expect(parseStreamMessage('{"kind":"hello"}').kind).toBe('invalid');
  });
});

describe('reconnectDelayMs', () => {
  it('doubles from 0.5 s up to 10 s', () => {
    expect([0, 1, 2, 3, 4, 5, 9].map(reconnectDelayMs)).toEqual([
      500, 1000, 2000, 4000, 8000, 10_000, 10_000,
    ]);
  });
});

describe('resumeSince', () => {
  it('resumes after the last seq while the server still holds the next one', () => {
    expect(resumeSince(120, 50)).toEqual({ since: 120, gap: false });
    expect(resumeSince(120, 121)).toEqual({ since: 120, gap: false });
    expect(resumeSince(0, 500)).toEqual({ since: 0, gap: false });
  });

  it('skips to what the server holds and reports the gap when events were dropped', () => {
    expect(resumeSince(120, 400)).toEqual({ since: 399, gap: true });
  });
});

describe('estimateEngineNow', () => {
  it('advances the sampled engine time at the engine speed', () => {
    expect(estimateEngineNow({ now: 1_000_000, speed: 10 }, 500, 1500)).toBe(1_010_000);
    expect(estimateEngineNow(undefined, 500, 1500)).toBe(1500);
  });
});

describe('routes', () => {
  it('parses and prints pod routes', () => {
    expect(parseRoute('#/pods/default/web-1')).toEqual({ view: 'pod', namespace: 'default', name: 'web-1' });
    expect(parseRoute('')).toEqual({ view: 'node' });
    expect(parseRoute('#/nothing')).toEqual({ view: 'node' });
    expect(routeHref({ view: 'pod', namespace: 'a b', name: 'c' })).toBe('#/pods/a%20b/c');
    expect(parseRoute(routeHref({ view: 'pod', namespace: 'a b', name: 'c' }))).toMatchObject({
      namespace: 'a b',
    });
  });
});
