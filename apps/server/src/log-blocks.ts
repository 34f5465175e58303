/**
 * A log file's bytes as text, block by block: what the import-log command reads with, and bench P6's bare
 * read-and-split pass with it, so the two differ only in what is done with the lines.
 *
 * A block of ASCII bytes (most of a log) is the same text read as Latin-1, which costs one copy, when the decoder
 * holds no unfinished character from the block before (that block ended on an ASCII byte); anything else goes
 * through the streaming UTF-8 decoder. A block is handed on in strings of at most DECODE_BYTES (why: lines.ts).
 */
import { isAscii } from 'node:buffer';
import { readSync } from 'node:fs';
import { DECODE_BYTES as DECODE } from '@syncscope/core/kubelet-log';

export class BlockDecoder {
  private dec: TextDecoder | undefined;
  private clean = true;
  private started = false;

  /** the text of the next bytes of the input (at most DECODE_BYTES of them) */
  text(b: Uint8Array): string {
    if (this.clean && isAscii(b)) {
      this.started ||= b.length > 0;
      return Buffer.from(b.buffer, b.byteOffset, b.length).toString('latin1');
    }
    // a byte-order mark is dropped only at the very start of the input, as one decoder for it all would
    this.dec ??= new TextDecoder('utf-8', { ignoreBOM: this.started });
    this.started = true;
    const t = this.dec.decode(b, { stream: true });
    if (b.length > 0) this.clean = (b[b.length - 1] as number) < 0x80;
    return t;
  }

  /** hands the text of a block of any size to `sink`, in order, DECODE_BYTES at a time */
  feed(b: Uint8Array, sink: (text: string) => void): void {
    for (let at = 0; at < b.length; at += DECODE)
      sink(this.text(b.subarray(at, Math.min(b.length, at + DECODE))));
  }

  /** what an unfinished character at the end of the input decodes to (U+FFFD), else '' */
  end(): string {
    return this.dec?.decode() ?? '';
  }
}

/** the longest part of a line LineFile reads: more bytes than the parser's line limit can hold in characters */
const MAX_LINE_BYTES = 4 * (1 << 20) + 4;
/** how many windows LineFile keeps (one per block being merged, while there are no more blocks than this) */
const SLOTS = 64;
/** a window's first read, and its largest (it doubles while its block is read on) */
const WINDOW_MIN = 4096;
const WINDOW_MAX = 256 * 1024;

interface Window {
  buf: Buffer;
  /** the file offset of buf[0], and how many bytes it holds */
  at: number;
  len: number;
}

/**
 * The lines of a UTF-8 log file on disk, read by number in any order (the order blockOrder merges a log's
 * blocks in) through a few windows of the file: a line read right after the line before it in the file comes
 * from that line's window, so each block of a merge is read sequentially through one window of its own. Holds
 * 8 bytes a line (where it starts) and at most SLOTS windows, never the file. Reads with readSync: for the
 * import command and the server's parse thread, never the server's event loop.
 */
export class LineFile {
  private readonly windows: Window[] = [];
  /** slotFor.get(i): the window that holds the end of line i-1 (line i starts there) */
  private readonly slotFor = new Map<number, number>();
  private readonly nextOf = new Int32Array(SLOTS).fill(-1);
  private turn = 0;

  private constructor(
    private readonly fd: number,
    private readonly starts: Float64Array,
    /** how many lines the file holds (a last line without a newline counts) */
    readonly lines: number,
  ) {}

  /** Reads the file `fd` of `size` bytes once, for where its lines start. */
  static open(fd: number, size: number): LineFile {
    let starts = new Float64Array(1024);
    let n = 1;
    const buf = Buffer.allocUnsafe(1 << 20);
    for (let pos = 0; pos < size; ) {
      const got = readSync(fd, buf, 0, Math.min(buf.length, size - pos), pos);
      if (got === 0) break;
      for (let i = buf.indexOf(10); i >= 0 && i < got; i = buf.indexOf(10, i + 1)) {
        if (n === starts.length) {
          const next = new Float64Array(n * 2);
          next.set(starts);
          starts = next;
        }
        starts[n++] = pos + i + 1;
      }
      pos += got;
    }
    const last = starts[n - 1] as number;
    if (last < size) {
      if (n === starts.length) {
        const next = new Float64Array(n + 1);
        next.set(starts);
        starts = next;
      }
      starts[n++] = size + 1;
    }
    return new LineFile(fd, starts.subarray(0, n), n - 1);
  }

  /** Line `i` (0-based) as text, without its newline or a CR before it; a byte-order mark opening the file is dropped. */
  line(i: number): string {
    const from = this.starts[i] as number;
    const to = Math.min((this.starts[i + 1] as number) - 1, from + MAX_LINE_BYTES);
    const w = this.window(i, from, to);
    let a = from - w.at;
    let b = to - w.at;
    if (i === 0 && w.buf[a] === 0xef && w.buf[a + 1] === 0xbb && w.buf[a + 2] === 0xbf) a += 3;
    if (b > a && w.buf[b - 1] === 13) b--;
    return w.buf.toString('utf8', a, b);
  }

  private window(i: number, from: number, to: number): Window {
    let s = this.slotFor.get(i);
    if (s !== undefined) this.slotFor.delete(i);
    const held = s !== undefined ? this.windows[s] : undefined;
    if (s === undefined || !held || from < held.at || to > held.at + held.len) {
      const grow = held && s !== undefined ? Math.min(WINDOW_MAX, held.buf.length * 2) : WINDOW_MIN;
      if (s === undefined) {
        s = this.turn;
        this.turn = (this.turn + 1) % SLOTS;
      }
      this.load(s, from, Math.max(grow, to - from));
    }
    const old = this.nextOf[s] as number;
    if (old >= 0) this.slotFor.delete(old);
    this.nextOf[s] = i + 1;
    this.slotFor.set(i + 1, s);
    return this.windows[s] as Window;
  }

  private load(s: number, at: number, want: number): void {
    let w = this.windows[s];
    if (!w || w.buf.length < want) {
      w = { buf: Buffer.allocUnsafe(want), at: 0, len: 0 };
      this.windows[s] = w;
    }
    w.at = at;
    w.len = readSync(this.fd, w.buf, 0, w.buf.length, at);
  }
}
