/**
 * A log's first pass read from its bytes gives every line the stamp the text reader gives it: the real logs and
 * lines made to sit on each edge the bytes reader leaves to the text (a byte-order mark, CRLF, characters past
 * ASCII before or inside a header, a dated prefix, JSON, lines over the limit, a header that just fits), fed in
 * blocks that cut lines and characters anywhere.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StampScanner } from './blocks.ts';
import { MAX_LINE_CHARS } from './lines.ts';
import { StampBytes } from './stamp-bytes.ts';

const DIR = join(import.meta.dirname, 'testdata');

/** the stamps the text reader gives (the input decoded whole, as the command's decoder reads it) */
function fromText(bytes: Uint8Array): number[] {
  const scan = new StampScanner(2024, 'Europe/Berlin');
  scan.feed(new TextDecoder().decode(bytes));
  scan.end();
  return [...scan.all];
}

/** the stamps StampBytes gives, fed `block` bytes at a time */
function fromBytes(bytes: Uint8Array, block: number): number[] {
  const scan = new StampScanner(2024, 'Europe/Berlin');
  const b = new StampBytes(scan);
  for (let at = 0; at < bytes.length; at += block) b.feed(bytes.subarray(at, at + block));
  b.end();
  return [...scan.all];
}

/** both readers agree, whatever the blocks; the stamps, for what a test asks of them */
function same(bytes: Uint8Array, blocks = [1, 3, 64, 4096, 1 << 20]): number[] {
  const want = fromText(bytes);
  for (const block of blocks) expect(fromBytes(bytes, block)).toEqual(want);
  return want;
}

const utf8 = (s: string) => new TextEncoder().encode(s);
const H = 'I0820 20:41:02.641606    3312 kubelet.go:1906]';

describe('the first pass read from bytes', () => {
  for (const f of readdirSync(DIR).filter((n) => n.endsWith('.log')))
    it(`gives the text reader's stamps on a real log (${f})`, () => {
      same(readFileSync(join(DIR, f)), [1, 4096, 1 << 20]);
    });

  it("gives the text reader's stamps on lines at every edge of the bytes reader", () => {
    const lines = [
      `${H} plain`,
      `${H} with CRLF\r`,
      `May 12 10:00:01 host kubenswrapper[2345]: ${H} behind journald`,
      `Jun 03 10:00:01 hôst kubelet[2345]: ${H} a host past ASCII`,
      `${H} a message past ASCII: nœud → 😀`,
      'I0820 20:41:02.641606    3312 kubé.go:1906] a source past ASCII',
      'I0820 20:41:02.641606    3312 kube\u00a0go:1906] a blank past ASCII in the source',
      'I0820 20:41:02.641606 1 a:1]',
      'I0820 20:41:02.641606 1 a:1] ',
      'I0820 20:41:02.641606 1 a:1]é',
      'I0820 20:41:02.641606 1 a:1',
      'I0820 20:41:02.641606 1 :1] no source',
      '2025-03-01T10:00:00.123456+00:00 host kubelet[1]: I0301 10:00:00.000001 1 a.go:1] dated',
      '<30>1 2025-04-01T10:00:00Z host kubelet 1 - - I0401 10:00:00.000001 1 a.go:1] RFC 5424',
      '1735725600.123 host kubelet[1]: I0101 10:00:00.000001 1 a.go:1] short-unix',
      '{"ts":1735725600123.5,"msg":"klog JSON"}',
      'sanji: {"ts":1735725600123.5,"msg":"behind a host"}',
      `${'x'.repeat(210)}: ${H} a colon too far`,
      'Log file created at: 2019/12/31 23:59:58',
      '    a continuation line',
      '',
      '\r',
      `é: ${H} past ASCII before the colon`,
      `a:b: ${H} the first colon-blank is the one`,
    ];
    const text = `${lines.join('\n')}\n`;
    const stamps = same(utf8(text));
    expect(stamps).toHaveLength(lines.length);
    expect(stamps.filter(Number.isFinite).length).toBeGreaterThan(10);
    // a byte-order mark at the start, no newline at the end; a mark alone; nothing at all
    same(utf8(`\ufeff${text}${H} last`));
    same(utf8(`\ufeff${H} first\n\ufeff${H} a mark inside is a character`));
    same(utf8('\ufeff'));
    same(new Uint8Array(0));
    // a character cut at the input's end
    same(utf8(`${H} cut é`).subarray(0, -1));
  });

  it('reads a line over the limit as the text reader does, and keeps no more of it than three bytes a character', () => {
    const over = `${H} ${'a'.repeat(MAX_LINE_CHARS)}`;
    const wide = `${H} ${'€'.repeat(MAX_LINE_CHARS / 4)}`;
    const huge = 'é'.repeat(2 * MAX_LINE_CHARS);
    const stamps = same(utf8([`${H} before`, over, wide, huge, `${H} after`, over].join('\n')), [
      1 << 16,
      1 << 20,
    ]);
    expect(stamps.map(Number.isFinite)).toEqual([true, false, true, false, true, false]);
  });
});
