/**
 * Newest-first input (`journalctl -r`): detecting it, and reading a seekable input backwards so it can be
 * parsed oldest-first with bounded memory. Browser-safe: the reader is given a function that returns bytes
 * (Node: fs.read; browser: Blob.slice().arrayBuffer()).
 */
import { classify } from './header.ts';

/** true when the header stamps of these first lines mostly go back in time */
export function looksReversed(lines: readonly string[]): boolean {
  let prev: number | undefined;
  let back = 0;
  let fwd = 0;
  for (const l of lines) {
    const c = classify(l);
    let t: number | undefined;
    if (c.kind === 'klog') t = Date.UTC(2000, c.month - 1, c.day, c.h, c.m, c.s) + c.micros / 1000;
    else if (c.kind === 'json') t = Number(c.obj.ts);
    if (t === undefined || !Number.isFinite(t)) continue;
    if (prev !== undefined) {
      if (t < prev) back++;
      else if (t > prev) fwd++;
    }
    prev = t;
  }
  return back >= 2 && back > fwd * 2;
}

/**
 * Lines of a seekable input from the last to the first, with their 1-based line numbers in the input as
 * given. `read(start, end)` returns those bytes; `size` is the input's length. Memory: one block plus the
 * longest line. Line numbers need the line count, found by a first pass over the input in the same blocks.
 */
export async function* readLinesBackward(
  read: (start: number, end: number) => Promise<Uint8Array>,
  size: number,
  block = 1 << 20,
): AsyncGenerator<{ text: string; no: number }> {
  let total = 0;
  let lastByte = -1;
  for (let pos = 0; pos < size; pos += block) {
    const b = await read(pos, Math.min(size, pos + block));
    for (let i = 0; i < b.length; i++) if (b[i] === 10) total++;
    if (b.length > 0) lastByte = b[b.length - 1] as number;
  }
  if (size > 0 && lastByte !== 10) total++;
  const dec = new TextDecoder();
  let no = total;
  let tail: Uint8Array = new Uint8Array(0);
  let end = size;
  // a final newline ends the last line; it does not start an empty one
  let skipFinalNewline = lastByte === 10;
  while (end > 0) {
    const start = Math.max(0, end - block);
    const chunk = await read(start, end);
    let buf = new Uint8Array(chunk.length + tail.length);
    buf.set(chunk, 0);
    buf.set(tail, chunk.length);
    let stop = buf.length;
    if (skipFinalNewline && stop > 0 && buf[stop - 1] === 10) {
      stop--;
      skipFinalNewline = false;
    }
    for (let i = stop - 1; i >= 0; i--) {
      if (buf[i] === 10) {
        yield { text: dec.decode(buf.subarray(i + 1, stop)), no: no-- };
        stop = i;
      }
    }
    tail = buf.slice(0, stop);
    buf = new Uint8Array(0);
    end = start;
  }
  if (no >= 1) yield { text: dec.decode(tail), no };
}
