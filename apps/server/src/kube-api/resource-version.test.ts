import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import { describe, expect, it } from 'vitest';
import { eventKey, ResourceVersions } from './resource-version.ts';

const ref = (uid: string) => ({ podUID: uid, pod: `default/${uid}` });

describe('ResourceVersions', () => {
  it('gives a pod the seq of its last config or status change, kept across a restart of the tracker', () => {
    const trace = new TraceRecorder(new FakeClock(), 1000);
    trace.record({ type: 'config.update', op: 'ADD', source: 'api', ...ref('a') });
    const statusA = trace.record({ type: 'status.update', status: { phase: 'Running' }, ...ref('a') });
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
    // a tracker made after the fact (a restart) reads the history still in memory
    const versions = new ResourceVersions(trace);
    expect(versions.pod('a')).toBe(String(statusA.seq));
    expect(versions.event(eventKey('a', 'spec.containers{app}', 'Warning', 'BackOff', 'Back-off'))).toBe(
      String(ev.seq),
    );
    expect(versions.listVersion()).toBe(ev.seq);
    // a change after it is seen live; an unknown pod keeps the version it was first given
    const unknown = versions.pod('b');
    const later = trace.record({ type: 'config.update', op: 'UPDATE', source: 'api', ...ref('a') });
    expect(versions.pod('a')).toBe(String(later.seq));
    expect(versions.pod('b')).toBe(unknown);
    versions.close();
    trace.record({ type: 'status.update', status: { phase: 'Failed' }, ...ref('a') });
    expect(versions.pod('a')).toBe(String(later.seq));
  });
});
