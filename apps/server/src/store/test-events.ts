/** Journal test events: a pod's config ADD and a server start, stamped 1,000 ms past the epoch plus their seq. */
import type { TraceEvent } from '@syncscope/core/trace';

export function podEvent(seq: number, podUID = 'uid-a'): TraceEvent {
  return {
    seq,
    time: 1_000 + seq,
    type: 'config.update',
    op: 'ADD',
    source: 'api',
    podUID,
    pod: `default/${podUID}`,
  };
}

export function startEvent(seq: number): TraceEvent {
  return {
    seq,
    time: 1_000 + seq,
    type: 'server.start',
    version: 'test',
    runtime: 'sim',
    endpoint: 'sim.sock',
  };
}
