/**
 * A log file's bytes as text, block by block: what the import-log command reads with, and bench P6's bare
 * read-and-split pass with it, so the two differ only in what is done with the lines.
 *
 * A block of ASCII bytes (most of a log) is the same text read as Latin-1, which costs one copy, when the decoder
 * holds no unfinished character from the block before (that block ended on an ASCII byte); anything else goes
 * through the streaming UTF-8 decoder. A block is handed on in strings of at most DECODE_BYTES (why: lines.ts).
 */
import { isAscii } from 'node:buffer';
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
