import type { TraceEvent } from '@syncscope/core/trace';
import { describe, expect, it } from 'vitest';
import { POD_REF, traceBuilder } from '../lib/fixtures.ts';
import { PodExplainFeed } from './context.ts';

function history(n: number): TraceEvent[] {
  const ev = traceBuilder(1);
  const out: TraceEvent[] = [ev(0, { type: 'config.update', op: 'ADD', source: 'api', ...POD_REF })];
  for (let i = 1; i < n; i++)
    out.push(ev(i, { type: 'worker.update', updateType: 'SyncPodSync', coalesced: false, ...POD_REF }));
  return out;
}

describe('the pod explanation, fed live', () => {
  it('reads only the new events of a growing history, and indexes them', () => {
    const feed = new PodExplainFeed();
    const all = history(2001);
    feed.update(all.slice(0, 2000), 'uid-web');
    expect(feed.read).toBe(2000);
    const next = feed.update(all, 'uid-web');
    expect(feed.read).toBe(2001);
    expect(next.bySeq.size).toBe(2001);
    expect(next.bySeq.get(2001)?.verdict).toBe('agrees');
    // the same pod and last event: the same value, nothing read
    expect(feed.update([...all], 'uid-web')).toBe(next);
    expect(feed.read).toBe(2001);
  });

  it('starts again for another pod or a history that changed in front', () => {
    const feed = new PodExplainFeed();
    const all = history(10);
    feed.update(all, 'uid-web');
    feed.update(all.slice(3), 'uid-web');
    expect(feed.read).toBe(17);
    const other = feed.update(all, 'uid-other');
    expect(feed.read).toBe(27);
    expect(other.bySeq.size).toBe(10);
  });
});
