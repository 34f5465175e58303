/**
 * Input that is not a kubelet log, or barely: nothing crashes, nothing hangs, everything is counted. Also the
 * importer's promise to run in a browser: no module under kubelet-log/ imports Node.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importKubeletLog, KubeletLogParser } from './index.ts';

describe('bad input', () => {
  it('empty input: no events, no lines', () => {
    expect(importKubeletLog('')).toMatchObject({ events: [], summary: { lines: 0, understood: 0, raw: 0 } });
  });

  it('binary input: counted as lines of no kubelet, no event', () => {
    let bin = '';
    for (let i = 0; i < 20_000; i++) bin += String.fromCharCode((i * 7919) % 256);
    const { events, summary } = importKubeletLog(bin);
    expect(events).toEqual([]);
    expect(summary.understood + summary.raw).toBe(0);
    expect(summary.lines).toBeGreaterThan(0);
  });

  it("another program's log (containerd through journald, audit, dmesg): skipped and counted", () => {
    const text = [
      'Jun 01 10:00:01 n1 containerd[800]: time="2024-06-01T10:00:01Z" level=info msg="loading plugin"',
      'type=AVC msg=audit(1717236001.123:42): avc:  denied  { read } for pid=1',
      '[   12.345678] eth0: link up',
      'Jun 01 10:00:02 n1 kube-proxy[700]: I0601 10:00:02.000000     700 proxier.go:1] "Syncing iptables rules"',
    ].join('\n');
    expect(importKubeletLog(text).summary).toMatchObject({
      lines: 4,
      other: 4,
      understood: 0,
      raw: 0,
      events: 0,
    });
  });

  it('a 10 MB line is skipped with a count, the lines around it are read', () => {
    const events: unknown[] = [];
    const p = new KubeletLogParser({ onEvent: (e) => events.push(e), year: 2024 });
    p.feed(
      'I0601 10:00:01.000000     1 kubelet.go:1987] SyncLoop (housekeeping)\nI0601 10:00:02.000000     1 x.go:1] ',
    );
    const mb = 'x'.repeat(1 << 20);
    for (let i = 0; i < 10; i++) p.feed(mb);
    p.feed('\nI0601 10:00:03.000000     1 kubelet.go:1987] SyncLoop (housekeeping)\n');
    const s = p.end();
    expect(s).toMatchObject({ lines: 3, tooLong: 1, understood: 2 });
    expect(events).toHaveLength(2);
  });
});

describe('records nested in records', () => {
  it('a shipper nests its record once or twice; one nested deeper is not opened (no stack is spent on it)', () => {
    const msg = 'I0820 20:41:02.641606    3312 kubelet.go:1987] SyncLoop (housekeeping)';
    const nest = (n: number) =>
      `${'{"jsonPayload":'.repeat(n)}{"MESSAGE":${JSON.stringify(msg)}}${'}'.repeat(n)}`;
    const { events, summary } = importKubeletLog([nest(1), nest(2), nest(3), nest(60_000)].join('\n'));
    // (the deeper ones are read as any line with a klog header somewhere in it: no event of theirs)
    expect(events.map((e) => e.origin?.line)).toEqual([1, 2]);
    expect(summary.lines).toBe(4);
  });
});

describe('browser-safe', () => {
  it('a long line that repeats the pieces of a printed Event is read in one pass (it never ended)', () => {
    const head = 'E0601 10:00:00.000000    42 event.go:1] ';
    const piece =
      'InvolvedObject:ObjectReference{Kind:Pod,Namespace:a,Name:b,UID:c,FieldPath:x,},Reason:r,Message:m,';
    const goPiece =
      'InvolvedObject:v1.ObjectReference{Kind:"Pod", Namespace:"a", Name:"b", UID:"c", FieldPath:"x"}, Reason:"R", Message:"';
    const lines = [
      `${head}"Server rejected event (will not retry!)" event="&Event{${piece.repeat(2000)}"`,
      `${head}Server rejected event '&v1.Event{${goPiece.repeat(2000)}`,
    ];
    const { events, summary } = importKubeletLog(lines.join('\n'), { year: 2024 });
    // no Source, no Type: not an Event; kept raw
    expect(summary.raw).toBe(2);
    expect(events.map((e) => e.type)).toEqual(['log.raw', 'log.raw']);
  });

  it('no module of the importer imports a Node built-in', () => {
    const files: string[] = [];
    const walk = (d: string) => {
      for (const f of readdirSync(d, { withFileTypes: true })) {
        if (f.isDirectory() && f.name !== 'testdata') walk(join(d, f.name));
        else if (f.name.endsWith('.ts') && !f.name.endsWith('.test.ts')) files.push(join(d, f.name));
      }
    };
    walk(import.meta.dirname);
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) expect(readFileSync(f, 'utf8'), f).not.toMatch(/from '(node:|fs|path|os|stream)/);
  });
});
