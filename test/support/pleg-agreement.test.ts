import type { TraceEvent } from '@syncscope/core/trace';
import { describe, expect, it } from 'vitest';
import { expectSamePlegStory, settledEvents } from './pleg-agreement.ts';

// Relists of 5 ms every second: the manager's end at x005, the observer's half a second later.
const relist = (time: number): TraceEvent =>
  ({ seq: 0, time, type: 'pleg.relist', durationMs: 5, pods: 1, containers: 1, events: 1 }) as TraceEvent;
const pleg = (time: number, event: string, containerID: string): TraceEvent =>
  ({ seq: 0, time, type: 'pleg.event', event, containerID, podUID: 'u', pod: 'default/p' }) as TraceEvent;
const every = (first: number, n: number) => Array.from({ length: n }, (_, i) => relist(first + i * 1000));
const manager = {
  events: [
    pleg(1003, 'ContainerStarted', 'a'),
    pleg(3003, 'ContainerDied', 'a'),
    pleg(3004, 'ContainerStarted', 'b'),
  ],
  relists: every(1005, 6),
};
const observer = (events: TraceEvent[], relists = every(505, 7)) => ({ events, relists });

describe('expectSamePlegStory: two relists judged by their own listings, not by the clock', () => {
  it('agrees when the observer reports each change at its first relist after it', () => {
    const seen = [
      pleg(1503, 'ContainerStarted', 'a'),
      pleg(3503, 'ContainerDied', 'a'),
      pleg(3503, 'ContainerStarted', 'b'),
    ];
    expect(() => expectSamePlegStory(manager, observer(seen), { atLeast: 3 })).not.toThrow();
  });

  it('agrees however late both relists ran on a busy machine, when each listed what it could', () => {
    // the observer's relists 4 s apart: it reports both changes of its late relist together
    const late = [relist(505), relist(1505), relist(5505)];
    const seen = [
      pleg(1503, 'ContainerStarted', 'a'),
      pleg(5503, 'ContainerDied', 'a'),
      pleg(5503, 'ContainerStarted', 'b'),
    ];
    expect(() => expectSamePlegStory(manager, observer(seen, late), { atLeast: 3 })).not.toThrow();
  });

  it('differs when a relist that began after the other side had listed a death missed it', () => {
    const seen = [
      pleg(1503, 'ContainerStarted', 'a'),
      pleg(5503, 'ContainerDied', 'a'),
      pleg(3503, 'ContainerStarted', 'b'),
    ];
    expect(() => expectSamePlegStory(manager, observer(seen), { atLeast: 3 })).toThrow(/ContainerDied a/);
  });

  it('differs when one side never reports what the other listed long before', () => {
    const seen = [pleg(1503, 'ContainerStarted', 'a'), pleg(3503, 'ContainerStarted', 'b')];
    expect(() => expectSamePlegStory(manager, observer(seen), { atLeast: 2 })).toThrow(/ContainerDied a/);
  });

  it('differs when two containers are told in opposite relist order', () => {
    const m = {
      events: [pleg(2003, 'ContainerDied', 'a'), pleg(4003, 'ContainerDied', 'b')],
      relists: every(1005, 6),
    };
    const seen = [pleg(1503, 'ContainerDied', 'b'), pleg(4503, 'ContainerDied', 'a')];
    expect(() => expectSamePlegStory(m, observer(seen), { atLeast: 2 })).toThrow();
  });

  it('counts as settled only what the other side has listed since', () => {
    const seen = [pleg(1503, 'ContainerStarted', 'a'), pleg(3503, 'ContainerDied', 'a')];
    expect(settledEvents(observer(seen), manager)).toBe(2);
    expect(settledEvents(observer(seen), { events: [], relists: every(1005, 3) })).toBe(1);
  });
});
