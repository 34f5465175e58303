/**
 * Whether an observer saw the same PLEG story as the kubelet it watched (the manager), as far as two
 * independent relists can agree. Judged by the relists themselves, not by the clock, so that a busy machine
 * (where either side's relist may start seconds late) cannot fail it and a real disagreement cannot pass:
 * - a change both reported happened before both listings that reported it and after both listings before
 *   those: no relist of one side that began after the other side's reporting relist ended may have missed it;
 * - per container, the same events in the same order;
 * - across containers, an order may differ only between events one side reported in the same relist;
 * - what one side reported in a relist that ended before the other's last relist began, the other reported
 *   too — except a short run: a container that started and exited between two relists of one side shows
 *   there as ContainerDied alone (the kubelet has the same race), but both must have seen it die.
 * Events of a relist still in flight (its `pleg.relist` not recorded yet) are not judged.
 */
import type { TraceEvent, TraceOf } from '@syncscope/core/trace';
import { expect } from 'vitest';

type Pleg = TraceOf<'pleg.event'>;
type Relist = TraceOf<'pleg.relist'>;
/** One side's PLEG record: its events (of the pods compared) and its relists (node-wide, in order). */
export interface PlegRecord {
  events: readonly TraceEvent[];
  relists: readonly TraceEvent[];
}
/**
 * A reported event with the relist that reported it: its index, when it began and ended (its listing took
 * place between the two), and when the relist before it began.
 */
interface Placed {
  key: string;
  containerID: string;
  relist: number;
  listedAt: number;
  endedAt: number;
  previousListedAt: number;
}

const key = (e: Pleg) => `${e.event} ${e.containerID}`;

/** Each pleg.event placed in its relist: the first `pleg.relist` recorded at or after it (relists never overlap). */
function place(side: PlegRecord): { placed: Placed[]; lastListedAt: number } {
  const relists = side.relists.filter((e): e is Relist => e.type === 'pleg.relist');
  const listedAt = relists.map((r) => r.time - r.durationMs);
  const placed: Placed[] = [];
  let i = 0;
  for (const e of side.events) {
    if (e.type !== 'pleg.event') continue;
    while (i < relists.length && (relists[i] as Relist).time < e.time) i++;
    if (i === relists.length) break;
    placed.push({
      key: key(e),
      containerID: e.containerID,
      relist: i,
      listedAt: listedAt[i] as number,
      endedAt: (relists[i] as Relist).time,
      previousListedAt: i > 0 ? (listedAt[i - 1] as number) : Number.NEGATIVE_INFINITY,
    });
  }
  return { placed, lastListedAt: listedAt.at(-1) ?? Number.NEGATIVE_INFINITY };
}

/** How many of one side's PLEG events the other has had its chance to list (a relist of its began after). */
export function settledEvents(side: PlegRecord, other: PlegRecord): number {
  const { lastListedAt } = place(other);
  return place(side).placed.filter((p) => p.endedAt < lastListedAt).length;
}

export function expectSamePlegStory(
  manager: PlegRecord,
  observer: PlegRecord,
  opts: { atLeast: number },
): void {
  const theirs = place(manager);
  const ours = place(observer);
  const a = new Map(theirs.placed.map((p) => [p.key, p]));
  const b = new Map(ours.placed.map((p) => [p.key, p]));

  // settled: listed by one side before the other's last listing began, so the other has had its chance
  const onlyOne = theirs.placed
    .filter((p) => !b.has(p.key) && p.endedAt < ours.lastListedAt)
    .concat(ours.placed.filter((p) => !a.has(p.key) && p.endedAt < theirs.lastListedAt))
    .map((p) => p.key);
  for (const k of onlyOne)
    expect(k.startsWith('ContainerStarted ') && (a.has(k.replace('Started', 'Died')) || b.has(k)), k).toBe(
      true,
    );

  const mine = theirs.placed.filter((p) => b.has(p.key));
  const seen = ours.placed.filter((p) => a.has(p.key));
  expect(seen.length, 'events both saw').toBeGreaterThanOrEqual(opts.atLeast);

  for (const id of new Set(seen.map((p) => p.containerID))) {
    const forId = (ps: Placed[]) => ps.filter((p) => p.containerID === id).map((p) => p.key);
    expect(forId(seen), `container ${id}`).toEqual(forId(mine).slice(0, forId(seen).length));
  }

  for (const o of seen) {
    const m = a.get(o.key) as Placed;
    const late = (side: string) =>
      `${o.key}: the ${side}'s relist before it began after the other had listed it`;
    expect(o.previousListedAt, late('observer')).toBeLessThanOrEqual(m.endedAt);
    expect(m.previousListedAt, late('manager')).toBeLessThanOrEqual(o.endedAt);
  }

  for (let i = 0; i < seen.length; i++)
    for (let j = i + 1; j < seen.length; j++) {
      const x = a.get((seen[i] as Placed).key) as Placed;
      const y = a.get((seen[j] as Placed).key) as Placed;
      const ox = seen[i] as Placed;
      const oy = seen[j] as Placed;
      // the manager reported y in an earlier relist than x, the observer x in an earlier one than y
      expect(y.relist < x.relist && ox.relist < oy.relist, `${ox.key} before ${oy.key}`).toBe(false);
    }
}
