import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TraceEvent } from '@syncscope/core/trace';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeletLogFile } from './kubelet-log-file.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'syncscope-klog-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const line = (i: number) =>
  `I1123 14:02:03.000000    4242 kubelet.go:1] "line ${String(i).padStart(4, '0')}"`;

describe('KubeletLogFile', () => {
  it('rotates by size: kubelet.log, kubelet.log.1, … at most maxFiles, whole lines, oldest dropped', async () => {
    const f = new KubeletLogFile({ dir, maxBytes: 1000, maxFiles: 3 });
    const n = 200;
    for (let i = 0; i < n; i++) {
      f.append([line(i)]);
      // one line per batch, so the rotation is tried before every line
      await f.flush();
    }
    await f.close();
    expect((await readdir(dir)).sort()).toEqual(['kubelet.log', 'kubelet.log.1', 'kubelet.log.2']);
    const parts = await Promise.all(
      ['kubelet.log.2', 'kubelet.log.1', 'kubelet.log'].map((p) => readFile(join(dir, p), 'utf8')),
    );
    for (const p of parts) {
      expect(Buffer.byteLength(p)).toBeLessThanOrEqual(1000);
      expect(p.endsWith('\n')).toBe(true);
    }
    const kept = parts.join('').split('\n').filter(Boolean);
    // what is kept is the newest lines, in order, none cut
    const first = Number(/line (\d+)/.exec(kept[0] ?? '')?.[1]);
    expect(kept).toEqual(Array.from({ length: n - first }, (_, k) => line(first + k)));
    expect(first).toBeGreaterThan(0);
    expect(f.rotations).toBeGreaterThanOrEqual(2);
    expect(f.written).toBe(n);
  });

  it('never waits: past the queue bound lines are dropped and counted', async () => {
    const f = new KubeletLogFile({ dir, maxQueueBytes: 10_000 });
    const lines = Array.from({ length: 1000 }, (_, i) => line(i));
    f.append(lines);
    await f.close();
    expect(f.dropped).toBeGreaterThan(0);
    expect(f.written + f.dropped).toBe(1000);
    const text = await readFile(join(dir, 'kubelet.log'), 'utf8');
    expect(text.split('\n').filter(Boolean)).toEqual(lines.slice(0, f.written));
  });

  it('the listener writes what the kubelet would log at its -v; a restart appends', async () => {
    const ev = (seq: number): TraceEvent => ({
      type: 'config.update',
      op: seq === 1 ? 'ADD' : 'RECONCILE',
      source: 'api',
      pod: 'default/x',
      podUID: 'u',
      seq,
      time: Date.UTC(2026, 10, 23, 14, 2, 3),
    });
    const a = new KubeletLogFile({ dir, v: 2, pid: 7 });
    a.listener(ev(1));
    a.listener(ev(2)); // RECONCILE is -v=4
    await a.close();
    a.listener(ev(1)); // closed: ignored
    const b = new KubeletLogFile({ dir, v: 4, pid: 8 });
    b.listener(ev(2));
    await b.close();
    expect(await readFile(join(dir, 'kubelet.log'), 'utf8')).toBe(
      'I1123 14:02:03.000000       7 kubelet.go:2421] "SyncLoop ADD" source="api" pods=["default/x"]\n' +
        'I1123 14:02:03.000000       8 kubelet.go:2434] "SyncLoop RECONCILE" source="api" pods=["default/x"]\n',
    );
  });
});
