import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import { describe, expect, it } from 'vitest';
import { eventKey, ResourceVersions } from './resource-version.ts';

const ref = (uid: string) => ({ podUID: uid, pod: `default/${uid}` });

describe('ResourceVersions', () => {
  it('gives an Event the seq of its last count, kept across a restart of the tracker; pods from the watch index', () => {
    const trace = new TraceRecorder(new FakeClock(), 1000);
    const add = trace.record({ type: 'config.update', op: 'ADD', source: 'api', ...ref('a') });
    trace.record({ type: 'housekeeping', durationMs: 1, forgotten: 0, orphansKilled: 0, restarted: 0 });
    const ev = trace.record({
      type: 'k8s.event',
      eventType: 'Warning',
      reason: 'BackOff',
      message: 'Back-off',
      count: 2,
      fieldPath: 'spec.containers{app}',
      ...ref('a'),
    });
    const index = new Map([['a', add.seq]]);
    // a tracker made after the fact (a restart) reads the history still in memory
    const versions = new ResourceVersions(trace, { version: (uid) => index.get(uid) });
    expect(versions.pod('a')).toBe(String(add.seq));
    expect(versions.event(eventKey('a', 'spec.containers{app}', 'Warning', 'BackOff', 'Back-off'))).toBe(
      String(ev.seq),
    );
    expect(versions.listVersion()).toBe(ev.seq);
    // a pod the index does not know keeps the version it was first given
    const unknown = versions.pod('b');
    trace.record({ type: 'config.update', op: 'UPDATE', source: 'api', ...ref('a') });
    expect(versions.pod('b')).toBe(unknown);
    // an Event counted again moves; after close nothing is followed
    const again = trace.record({
      type: 'k8s.event',
      eventType: 'Warning',
      reason: 'BackOff',
      message: 'Back-off',
      count: 3,
      fieldPath: 'spec.containers{app}',
      ...ref('a'),
    });
    const key = eventKey('a', 'spec.containers{app}', 'Warning', 'BackOff', 'Back-off');
    expect(versions.event(key)).toBe(String(again.seq));
    versions.close();
    trace.record({ ...again, count: 4 } as never);
    expect(versions.event(key)).toBe(String(again.seq));
  });
});
