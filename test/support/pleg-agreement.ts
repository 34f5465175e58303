/**
 * Whether an observer saw the same PLEG story as the kubelet it watched (the manager), as far as two
 * independent relists can agree: the same events per container in the same order, each within one relist
 * period (plus slack) of the manager's; across containers an order may differ only between events the
 * manager had within two such periods of each other (one observer relist reports them together, and on a busy
 * machine the observer's relists can be that far apart: each waits a period after the previous one ended). One side may miss a
 * short run: a container that started and exited between two of its relists shows as ContainerDied alone
 * (the kubelet has the same race), but both must have seen it die.
 *
 * `before` limits the comparison to what both have had time to see: events after it on one side may still
 * be on their way to the other (default: everything, for runs that have ended).
 */
import type { TraceEvent, TraceOf } from '@syncscope/core/trace';
import { expect } from 'vitest';

type Pleg = TraceOf<'pleg.event'>;
const key = (e: Pleg) => `${e.event} ${e.containerID}`;

export function expectSamePlegStory(
  managerEvents: readonly TraceEvent[],
  observerEvents: readonly TraceEvent[],
  opts: { slackMs: number; atLeast: number; before?: number },
): void {
  const plegOf = (evs: readonly TraceEvent[]) => evs.filter((e): e is Pleg => e.type === 'pleg.event');
  const before = opts.before ?? Number.POSITIVE_INFINITY;
  const theirsAll = plegOf(managerEvents);
  const oursAll = plegOf(observerEvents);
  const theirs = theirsAll.filter((e) => e.time <= before);
  const ours = oursAll.filter((e) => e.time <= before);
  const a = new Set(theirsAll.map(key));
  const b = new Set(oursAll.map(key));
  const onlyOne = theirs
    .map(key)
    .filter((k) => !b.has(k))
    .concat(ours.map(key).filter((k) => !a.has(k)));
  for (const k of onlyOne)
    expect(k.startsWith('ContainerStarted ') && (a.has(k.replace('Started', 'Died')) || b.has(k)), k).toBe(
      true,
    );
  const both = (evs: Pleg[]) => evs.filter((e) => a.has(key(e)) && b.has(key(e)));
  const mine = both(theirsAll);
  const seen = both(ours);
  expect(seen.length, 'events both saw').toBeGreaterThanOrEqual(opts.atLeast);
  for (const id of new Set(seen.map((e) => e.containerID))) {
    const forId = (evs: Pleg[]) => evs.filter((e) => e.containerID === id).map(key);
    const expected = forId(mine);
    expect(forId(seen), `container ${id}`).toEqual(expected.slice(0, forId(seen).length));
  }
  const at = new Map(mine.map((e, i) => [key(e), i]));
  for (let i = 0; i < seen.length; i++)
    for (let j = i + 1; j < seen.length; j++) {
      const x = at.get(key(seen[i] as Pleg)) as number;
      const y = at.get(key(seen[j] as Pleg)) as number;
      if (x < y) continue;
      const gap = Math.abs((mine[x] as Pleg).time - (mine[y] as Pleg).time);
      expect(gap, `${key(seen[i] as Pleg)} before ${key(seen[j] as Pleg)}`).toBeLessThanOrEqual(
        2 * opts.slackMs,
      );
    }
  const theirTime = new Map(mine.map((e) => [key(e), e.time]));
  for (const e of seen)
    expect(Math.abs(e.time - (theirTime.get(key(e)) as number)), key(e)).toBeLessThanOrEqual(opts.slackMs);
}
