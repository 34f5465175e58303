/**
 * The one way the journal reads a segment file: from an offset, a block at a time through the thread pool,
 * handed on as runs of whole lines. Boot (recovery.ts, TraceJournal.tail) and request handlers
 * (TraceJournal.read, events) all read through it, so memory stays bounded by a block (or by the
 * longest line, when one is longer) however large a segment or the journal grows.
 *
 * The file is closed when the reader is done or dropped (a `for await` left by break or return).
 */
import { open } from 'node:fs/promises';

/** Bytes asked of the disk at a time. */
const READ_BLOCK_BYTES = 1024 * 1024;

/** A run of whole lines: the file's bytes [base, base + buf.length), ending with a newline. */
export interface LineRun {
  buf: Buffer;
  base: number;
}

/** What follows the last newline when the reader is done: a line not (yet) whole. */
export interface LineTail {
  /** Offset of the first byte after the last newline. */
  at: number;
  /** Bytes from `at` to the end of the file. */
  bytes: number;
}

/**
 * Yields the whole lines of the file at path from offset `from` on, in runs of about `block` bytes; returns
 * where the last newline left off. A file that cannot be opened throws (a segment deleted by retention
 * meanwhile: ENOENT). Bytes appended while it reads are read too, up to the last newline it finds.
 *
 * One buffer serves the whole file (a run is a view of it): take what a run holds before asking for the
 * next. The buffer only grows for a line longer than it.
 */
export async function* segmentLines(
  path: string,
  from = 0,
  block = READ_BLOCK_BYTES,
): AsyncGenerator<LineRun, LineTail> {
  const fh = await open(path, 'r');
  try {
    let buf = Buffer.allocUnsafe(block);
    /** Bytes at the head of buf after the last newline handed on: the start of a line not yet whole. */
    let carry = 0;
    let pos = from;
    for (;;) {
      if (carry === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, carry);
        buf = bigger;
      }
      const { bytesRead } = await fh.read(buf, carry, buf.length - carry, pos);
      pos += bytesRead;
      const have = carry + bytesRead;
      const base = pos - have;
      if (bytesRead === 0) return { at: base, bytes: have };
      const nl = buf.lastIndexOf(0x0a, have - 1);
      if (nl < 0) {
        carry = have;
        continue;
      }
      yield { buf: buf.subarray(0, nl + 1), base };
      carry = have - (nl + 1);
      buf.copy(buf, 0, nl + 1, have);
    }
  } finally {
    await fh.close();
  }
}

/** Reads bytes [at, at + length) of the file at path (a torn tail, to keep a copy of it). */
export async function readRange(path: string, at: number, length: number): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(length);
    const { bytesRead } = await fh.read(buf, 0, length, at);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}
