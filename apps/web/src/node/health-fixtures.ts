/** Server answers for the health tests: a beat and the whole word, as the page receives them. */
import type { NodeHealth, ServerBeat } from '@syncscope/core/api/node-health';
import { T0 } from '../lib/fixtures.ts';
import type { ServerWord } from './server-word.ts';

export const beat = (over: Partial<ServerBeat> = {}): ServerBeat => ({
  last: T0,
  lastWall: T0,
  periodMs: 1000,
  silentMs: 300,
  stalled: false,
  thresholdMs: 2000,
  ...over,
});

/** The server's answer as it arrived at wall time `receivedAt`. */
export function serverWord(beats: Partial<NodeHealth['beats']>, receivedAt = T0): ServerWord {
  return {
    health: {
      at: T0,
      atWall: T0,
      beats: { loop: beat(), relist: beat({ thresholdMs: 180_000 }), housekeeping: beat(), ...beats },
      syncLoopHealthz: { thresholdMs: 300_000, ok: true, message: '' },
      eventLoop: { meanMs: 1, p99Ms: 3, maxMs: 5, windowMs: 5000 },
    },
    runtime: { name: 'r', version: '1', apiVersion: 'v1', endpoint: 'x', ready: true, errors: [] },
    pleg: { mode: 'generic', healthy: true, lastRelist: T0, message: '' },
    speed: 1,
    receivedAt,
  };
}
