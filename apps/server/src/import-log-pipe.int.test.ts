/**
 * The import-log command's encoder thread: the bytes it hands back are those the writer makes on one thread,
 * in the order the events came, over many batches and output buffers; and it stops taking output to a stream
 * that asks it to wait until the stream drains.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { KubeletLogParser } from '@syncscope/core/kubelet-log';
import type { TraceEvent } from '@syncscope/core/trace';
import { describe, expect, it } from 'vitest';
import { NdjsonOut } from './import-log-out.ts';
import { EncoderPipe } from './import-log-pipe.ts';

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

/** a stream that keeps what it is given; `first` resolves at its first write */
function collector(opts: { hold?: boolean } = {}) {
  const parts: Buffer[] = [];
  let hold = opts.hold ?? false;
  let release: (() => void) | undefined;
  let firstWrite: () => void = () => undefined;
  const first = new Promise<void>((r) => {
    firstWrite = r;
  });
  const sink = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _enc, done) {
      parts.push(Buffer.from(chunk));
      firstWrite();
      if (hold) release = done;
      else done();
    },
  });
  return {
    sink,
    first,
    text: () => Buffer.concat(parts).toString('utf8'),
    let: () => {
      hold = false;
      release?.();
    },
  };
}

describe('EncoderPipe', () => {
  it('hands back the bytes the one-thread writer makes, in order, across batches and buffers', async () => {
    const one = readdirSync(DATA)
      .filter((f) => f.endsWith('.log'))
      .sort()
      .map((f) => readFileSync(join(DATA, f), 'utf8'))
      .join('');
    const mine = collector();
    const theirs = collector();
    const pipe = new EncoderPipe(mine.sink);
    const single = new NdjsonOut(theirs.sink);
    let events = 0;
    const parser = new KubeletLogParser({
      onEvent: (ev) => {
        events++;
        single.push(ev);
        pipe.push(ev);
      },
      reversed: false,
      year: 2024,
    });
    for (let i = 0; i < 8; i++) {
      parser.feed(one);
      await pipe.drain();
    }
    parser.end();
    await Promise.all([pipe.end(), single.end()]);
    // more events than one batch holds, more bytes than one output buffer
    expect(events).toBeGreaterThan(10_000);
    expect(Buffer.byteLength(mine.text())).toBeGreaterThan(3 << 20);
    expect(mine.text()).toBe(theirs.text());
  }, 30_000);

  it('writes any text as the one-thread writer does: other scripts, control characters, lone surrogates, an event larger than a batch', async () => {
    const mine = collector();
    const theirs = collector();
    const pipe = new EncoderPipe(mine.sink);
    const single = new NdjsonOut(theirs.sink);
    const texts = [
      'caf\u00e9 \u00fc\u00df \u2603 \u{1f600} "quoted" back\\slash',
      'tab\there\r\nnew line \u0000 \u001f \u007f \u0085',
      'lone \ud800 high, lone \udfff low, swapped \udc00\ud800',
      `${'\u00e9'.repeat(700_000)} end`,
      'plain after the big one',
    ];
    let seq = 0;
    const push = (ev: TraceEvent) => {
      pipe.push(ev);
      single.push(ev);
    };
    for (const text of texts) {
      seq++;
      push({
        type: 'log.raw',
        text,
        level: 'I',
        source: 's.go:1',
        seq,
        time: 1.5 + seq,
        node: 'n\u00f6de',
        origin: { line: seq },
      } as TraceEvent);
      seq++;
      // a lone surrogate in a field other than the text, and a pod
      push({
        type: 'log.raw',
        text: 'x',
        level: 'W',
        source: `s\ud801.go:2`,
        pod: 'ns/p\u00e4d',
        podUID: 'u',
        seq,
        time: seq,
        node: 'n',
        origin: { line: seq },
      } as TraceEvent);
      seq++;
      push({
        type: 'k8s.event',
        reason: text.slice(0, 40),
        seq,
        time: seq,
        node: 'n',
      } as unknown as TraceEvent);
    }
    await Promise.all([pipe.end(), single.end()]);
    const got = mine.text();
    expect(got.split('\n').filter(Boolean)).toHaveLength(seq);
    expect(got).toContain('lone \\ud800 high');
    expect(got).toBe(theirs.text());
  }, 30_000);

  it('waits while the stream asks it to, and goes on once it drains', async () => {
    const c = collector({ hold: true });
    const pipe = new EncoderPipe(c.sink);
    let seq = 0;
    // about 3 MB of output: several batches, and full buffers come back before the end
    for (; seq < 3000; seq++)
      pipe.push({
        type: 'log.raw',
        text: `${'z'.repeat(1000)} ${seq}`,
        level: 'I',
        source: 's.go:1',
        seq: seq + 1,
        time: seq,
        node: 'n',
        origin: { line: seq + 1 },
      } as TraceEvent);
    // the first full buffer is written and held: the stream has asked to wait
    await c.first;
    let drained = false;
    const waiting = pipe.drain().then(() => {
      drained = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(drained).toBe(false);
    c.let();
    await waiting;
    expect(drained).toBe(true);
    await pipe.end();
    const lines = c.text().split('\n').filter(Boolean);
    expect(lines).toHaveLength(seq);
    expect(lines.at(-1)).toContain(`"seq":${seq},`);
  }, 30_000);
});
