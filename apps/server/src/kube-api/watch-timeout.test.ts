/**
 * A watch's timeoutSeconds, on a fake clock: any value is a watch that lasts that long, up to the longest
 * delay a Node timer takes (a longer timer would fire at once and end the watch as it starts).
 */
import { FakeClock, MAX_TIMEOUT_MS } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createHttpApp } from '../http.ts';
import { FakeEngine } from '../testing.ts';

let app: FastifyInstance;

beforeEach(async () => {
  const clock = new FakeClock();
  app = await createHttpApp({ engine: new FakeEngine(clock), trace: new TraceRecorder(clock, 100), clock });
  await app.ready();
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
});

afterEach(async () => {
  vi.useRealTimers();
  await app.close();
});

/** Starts a watch; `ended()` says whether its response has ended. */
function watch(query: string) {
  let done = false;
  const res = app.inject({ method: 'GET', url: `/api/v1/pods?watch=true&${query}` }).then((r) => {
    done = true;
    return r;
  });
  return { res, ended: () => done };
}

describe('watch timeoutSeconds', () => {
  it('a value past what a timer holds is a watch open until the longest timer, then ended', async () => {
    const w = watch('timeoutSeconds=99999999999');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(w.ended()).toBe(false);
    await vi.advanceTimersByTimeAsync(MAX_TIMEOUT_MS - 60_000 - 1);
    expect(w.ended()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(w.ended()).toBe(true);
    expect((await w.res).statusCode).toBe(200);
  });

  it('0 is the default watch length, as with no timeoutSeconds; a small value ends on time', async () => {
    const zero = watch('timeoutSeconds=0');
    const short = watch('timeoutSeconds=5');
    await vi.advanceTimersByTimeAsync(4_999);
    expect([zero.ended(), short.ended()]).toEqual([false, false]);
    await vi.advanceTimersByTimeAsync(1);
    expect([zero.ended(), short.ended()]).toEqual([false, true]);
    await vi.advanceTimersByTimeAsync(1800_000);
    expect(zero.ended()).toBe(true);
  });
});
