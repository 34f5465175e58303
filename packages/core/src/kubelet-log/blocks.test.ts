/**
 * A whole log pasted out of order is read in time order: the real journald sample (03) cut into blocks where the
 * kubelet paused, pasted shuffled, gives the events the log as written gives; two masters' logs pasted one after
 * the other come out merged by time; and the merge is stable and near linear on a large log.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../events/trace.ts';
import { blockOrder, StampScanner } from './blocks.ts';
import { importKubeletLog } from './index.ts';

const SAMPLE = join(
  import.meta.dirname,
  'testdata',
  '03-v1.31-openshift-journald-v2-static-pods-probes-crashloop.log',
);
const lines = readFileSync(SAMPLE, 'utf8')
  .split('\n')
  .filter((l) => l !== '');

/** an event without what depends on where its line stood in the input */
const bare = (e: TraceEvent) => {
  const { seq: _s, origin: _o, ...rest } = e as TraceEvent & { origin?: unknown };
  return rest;
};

const inOrder = (events: TraceEvent[]) =>
  events.every((e, i) => i === 0 || e.time >= (events[i - 1] as TraceEvent).time);

/** the lines where the kubelet paused for a second or more (a header line after a gap): where a paste may cut */
function pauses(): number[] {
  const scan = new StampScanner(2025);
  for (const l of lines) scan.line(l);
  const t = scan.all;
  const out: number[] = [];
  let last = Number.NaN;
  for (let i = 0; i < t.length; i++) {
    const v = t[i] as number;
    if (!Number.isFinite(v)) continue;
    if (v - last >= 1000) out.push(i);
    last = v;
  }
  return out;
}

describe('blocks pasted out of order', () => {
  it('a log pasted in four shuffled blocks gives the events of the log as written, in time order', () => {
    const written = importKubeletLog(lines.join('\n'), { year: 2025 });
    const p = pauses();
    const cuts = [
      p[Math.floor(p.length / 4)],
      p[Math.floor(p.length / 2)],
      p[Math.floor((3 * p.length) / 4)],
    ];
    const [a, b, c] = cuts as [number, number, number];
    const blocks = [lines.slice(0, a), lines.slice(a, b), lines.slice(b, c), lines.slice(c)];
    const pasted = [blocks[2], blocks[0], blocks[3], blocks[1]].flat().join('\n');
    const { events, summary } = importKubeletLog(pasted, { year: 2025 });
    expect(summary.blocks).toBe(3);
    expect(inOrder(events)).toBe(true);
    expect(events.map(bare)).toEqual(written.events.map(bare));
    // each event still points at its own line of the paste
    const back = events.find((e) => e.type === 'backoff') as TraceEvent & { origin: { line: number } };
    expect(pasted.split('\n')[back.origin.line - 1]).toMatch(/back-off/i);
  });

  it('newest first (an export sorted newest first): turned round, the same events', () => {
    const written = importKubeletLog(lines.join('\n'), { year: 2025 });
    const { events, summary } = importKubeletLog([...lines].reverse().join('\n'), { year: 2025 });
    expect(summary.reversed).toBe(true);
    expect(inOrder(events)).toBe(true);
    expect(events.map(bare)).toEqual(written.events.map(bare));
  });

  it("two masters' logs pasted one after the other: merged by time, each node's events in its order", () => {
    const node = (host: string, first: number, pid: number) =>
      [0, 2, 4, 6].map(
        (s) =>
          `May 12 05:00:0${first + s} ${host} kubenswrapper[${pid}]: I0512 05:00:0${first + s}.000000    ${pid} kubelet.go:2453] "SyncLoop (housekeeping)"`,
      );
    const { events, summary } = importKubeletLog(
      [...node('master-0', 0, 2473), ...node('master-1', 1, 3140)].join('\n'),
      {
        year: 2025,
      },
    );
    expect(summary.nodes).toEqual(['master-0', 'master-1']);
    expect(events.map((e) => `${e.node}@${new Date(e.time).getUTCSeconds()}`)).toEqual([
      'master-0@0',
      'master-1@1',
      'master-0@2',
      'master-1@3',
      'master-0@4',
      'master-1@5',
      'master-0@6',
      'master-1@7',
    ]);
  });

  it('a minute of blocks apart: stable for equal stamps, and lines without a time stay with their line', () => {
    const t = Float64Array.from([60_000, Number.NaN, 61_000, 0, Number.NaN, 60_000, 60_000]);
    const { order, blocks } = blockOrder(t);
    expect(blocks).toBe(2);
    expect([...(order as Uint32Array)]).toEqual([3, 4, 0, 1, 5, 6, 2]);
  });

  it('a million lines in a thousand shuffled blocks: merged in near-linear time', () => {
    const n = 1_000_000;
    const per = 1000;
    const blockOf = (b: number) => (b * 7919) % 1000;
    const t = new Float64Array(n);
    for (let i = 0; i < n; i++) t[i] = blockOf(Math.floor(i / per)) * per * 1000 + (i % per) * 1000;
    const sorted = new Float64Array(n);
    for (let i = 0; i < n; i++) sorted[i] = i * 1000;
    const t0 = performance.now();
    const { order, blocks } = blockOrder(t);
    const shuffled = performance.now() - t0;
    expect(blocks).toBeGreaterThan(500);
    const o = order as Uint32Array;
    let back = 0;
    for (let j = 1; j < n; j++) if ((t[o[j] as number] as number) < (t[o[j - 1] as number] as number)) back++;
    expect(back).toBe(0);
    expect(new Set(o).size).toBe(n);
    const t1 = performance.now();
    expect(blockOrder(sorted).order).toBeUndefined();
    const one = performance.now() - t1;
    // a heap of 1000 blocks: about log2(1000) = 10 comparisons a line more than one pass over it
    expect(shuffled).toBeLessThan(40 * Math.max(one, 5));
  });
});
