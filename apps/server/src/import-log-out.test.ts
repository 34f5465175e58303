/**
 * The import-log command's NDJSON writer: the bytes it writes are those JSON.stringify gives, for any text,
 * for the events of the real sample logs and of hand-written lines in every format the importer reads, whatever
 * the buffer boundaries; and it waits for a stream that asks it to.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { KubeletLogParser } from '@syncscope/core/kubelet-log';
import type { TraceEvent } from '@syncscope/core/trace';
import { describe, expect, it } from 'vitest';
import { NdjsonOut, writeJsonString } from './import-log-out.ts';

const DATA = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  'packages',
  'core',
  'src',
  'kubelet-log',
  'testdata',
);

/** the NDJSON line an event is, field order as the importer has always written log.raw */
function expected(ev: TraceEvent): string {
  if (ev.type !== 'log.raw') return JSON.stringify(ev);
  return JSON.stringify({
    type: ev.type,
    text: ev.text,
    level: ev.level ?? '',
    source: ev.source ?? '',
    ...(ev.pod !== undefined ? { pod: ev.pod } : {}),
    ...(ev.podUID !== undefined ? { podUID: ev.podUID } : {}),
    seq: ev.seq,
    time: ev.time,
    node: ev.node ?? '',
    origin: { line: ev.origin?.line ?? 0 },
  });
}

/** a stream that keeps what it is given */
function collector(): { sink: Writable; text: () => string; writes: () => number } {
  const parts: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      parts.push(Buffer.from(chunk));
      done();
    },
  });
  return { sink, text: () => Buffer.concat(parts).toString('utf8'), writes: () => parts.length };
}

async function importText(text: string): Promise<{ out: string; want: string; writes: number }> {
  const c = collector();
  const out = new NdjsonOut(c.sink);
  const want: string[] = [];
  const parser = new KubeletLogParser({
    onEvent: (ev) => {
      want.push(`${expected(ev)}\n`);
      out.push(ev);
    },
    reversed: false,
    year: 2024,
  });
  parser.feed(text);
  parser.end();
  await out.end();
  return { out: c.text(), want: want.join(''), writes: c.writes() };
}

describe('NDJSON writer', () => {
  it('writes any string as JSON.stringify does', () => {
    const cases = [
      '',
      'plain',
      'quote " backslash \\ slash /',
      'controls \b\f\n\r\t \u0000 \u0001 \u001f \u007f',
      'é ñ ü 中文 \u2028 \u2029 \ufeff',
      'emoji 😀 pair \ud83d\ude00',
      'lone \ud800 high, lone \udc00 low, reversed \udc00\ud800, high at end \ud83d',
    ];
    // and random code units, all of them equally likely
    let seed = 7;
    for (let n = 0; n < 200; n++) {
      let s = '';
      for (let i = 0; i < 40; i++) {
        seed = (seed * 1103515245 + 12345) >>> 0;
        s += String.fromCharCode(seed % 3 === 0 ? seed % 0x10000 : seed % 0x100);
      }
      cases.push(s);
    }
    const b = new Uint8Array(64 * 1024);
    for (const s of cases) {
      const end = writeJsonString(b, 0, s);
      expect(Buffer.from(b.subarray(0, end)).toString('utf8')).toBe(JSON.stringify(s));
      expect(Buffer.from(b.subarray(0, end))).toEqual(Buffer.from(JSON.stringify(s)));
    }
  });

  it('writes the events of every sample log as JSON.stringify would', async () => {
    const files = readdirSync(DATA).filter((f) => f.endsWith('.log'));
    expect(files).toHaveLength(5);
    for (const f of files) {
      const { out, want } = await importText(readFileSync(join(DATA, f), 'utf8'));
      expect(out.length).toBeGreaterThan(1000);
      expect(out).toBe(want);
    }
  });

  it('writes hand-written lines of every format, and a text larger than a buffer, as JSON.stringify would', async () => {
    const uid = '11111111-2222-3333-4444-555555555555';
    const text = [
      `I0314 09:26:53.589793       1 kubelet.go:1900] SyncLoop (ADD, "api"): "web-0_shop(${uid})"`,
      'W0314 09:26:54.000001       1 main.go:7] a "quoted" \\ text\twith tab',
      '    a continuation line { open',
      '}',
      JSON.stringify({
        log: 'E0314 09:26:55.000000 1 x.go:1] in docker é\n',
        stream: 'stderr',
        time: '2023-03-14T09:26:55Z',
      }),
      '2024-03-14T09:26:56.000000000Z stderr F I0314 09:26:56.000000    7 cri.go:3] "Some message" pod="shop/web-0"',
      `Mar 14 09:26:57 node-a kubelet[900]: I0314 09:26:57.000001     900 k.go:9] "Other" podUID="${uid}"`,
      JSON.stringify({
        ts: 1710408418000.5,
        caller: 'k/k.go:1',
        msg: 'json 😀',
        pod: { name: 'w', namespace: 's' },
      }),
      `I0314 09:26:59.000000       1 big.go:1] ${'x"\u0001'.repeat(300_000)}`,
      'I0314 09:27:00.000000       1 after.go:1] after the big one',
    ].join('\r\n');
    const { out, want, writes } = await importText(text);
    expect(out).toContain('after the big one');
    expect(out).toContain('"source":"big.go:1"');
    expect(out.split('\n').length).toBeGreaterThanOrEqual(7);
    expect(out).toBe(want);
    expect(writes).toBeGreaterThan(1);
  });

  it('stops taking output to the stream while it asks to wait, and resumes on drain', async () => {
    const parts: Buffer[] = [];
    let release: (() => void) | undefined;
    let hold = true;
    const sink = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _enc, done) {
        parts.push(Buffer.from(chunk));
        if (hold) release = done;
        else done();
      },
    });
    const out = new NdjsonOut(sink);
    const ev = (seq: number): TraceEvent =>
      ({
        type: 'log.raw',
        text: 'y'.repeat(1000),
        level: 'I',
        source: 's.go:1',
        seq,
        time: seq,
        node: 'n',
        origin: { line: seq },
      }) as TraceEvent;
    let seq = 0;
    while (parts.length === 0) out.push(ev(++seq));
    let drained = false;
    const waiting = out.drain().then(() => {
      drained = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(drained).toBe(false);
    hold = false;
    release?.();
    await waiting;
    expect(drained).toBe(true);
    await out.end();
    expect(Buffer.concat(parts).toString().split('\n').filter(Boolean)).toHaveLength(seq);
  });
});
