/**
 * SeqReservation: the highest trace seq this process may hand out, kept durably in `<trace dir>/seq-reserved`
 * so that a seq served before a crash is never given to another event after it.
 *
 * Why: events are served (REST, the WebSocket stream) as soon as they are recorded, but reach the journal
 * up to 100 ms later. A run killed in between leaves on disk a last seq below what clients already hold; if
 * the next run continued from the disk alone it would reissue those seqs to different events. Instead the
 * recorder issues only seqs that are reserved here first (TraceRecorder.reserveSeqs), a block at a time, and
 * the next run starts above max(last seq on disk, reserved). A crash leaves a gap, never a reuse; a clean
 * shutdown gives back what it did not use (release), so a clean restart has no gap.
 *
 * The file holds one decimal number and a newline, replaced atomically with fsync (atomic-file.ts): about
 * 1 ms on this project's ext4 test machine, once per BLOCK / 2 events. Who calls it: openTrace (open, then
 * `extend` as the recorder's reserver) and TraceJournal.close (release). extend never throws: when the file
 * cannot be written it warns once and grants the block from memory (the journal, on the same disk, is then
 * failing as well, so nothing newer would survive a crash anyway).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from './atomic-file.ts';

export const SEQ_RESERVED_FILE = 'seq-reserved';
/** Seqs reserved per write; the recorder asks again when half are used. */
export const SEQ_BLOCK = 10_000;

export class SeqReservation {
  readonly path: string;
  private upTo = 0;
  /** What an earlier run may have issued (read at open): never given back. */
  private floor = 0;
  private failing = false;

  constructor(
    dir: string,
    private readonly warn: (msg: string) => void,
    private readonly block = SEQ_BLOCK,
  ) {
    this.path = join(dir, SEQ_RESERVED_FILE);
  }

  /**
   * Reads what an earlier run reserved: the seq it may have served up to (0 when there was no file). A file
   * that cannot be read as a number counts as one block past `lastOnDisk`, the most an earlier run could have
   * issued beyond its journal.
   */
  open(lastOnDisk: number): number {
    this.floor = this.read(lastOnDisk);
    this.upTo = this.floor;
    return this.floor;
  }

  private read(lastOnDisk: number): number {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return 0;
      this.warn(
        `trace journal: ${this.path} cannot be read (${code}); assuming seqs were served past the journal`,
      );
      return lastOnDisk + this.block;
    }
    const n = Number(text.trim());
    if (!/^\d+\s*$/.test(text) || !Number.isSafeInteger(n)) {
      this.warn(
        `trace journal: ${this.path} does not hold a seq; assuming seqs were served past the journal`,
      );
      return lastOnDisk + this.block;
    }
    return n;
  }

  /** The highest seq reserved so far. */
  get reserved(): number {
    return this.upTo;
  }

  /** The recorder's reserver: reserves seqs next .. next + block - 1 and returns the highest. */
  extend(next: number): number {
    const upTo = next + this.block - 1;
    try {
      writeFileAtomicSync(this.path, `${upTo}\n`);
      this.failing = false;
    } catch (err) {
      if (!this.failing)
        this.warn(
          `trace journal: cannot reserve seqs in ${this.path} (${(err as Error).message}); ` +
            'after a crash some seqs may be issued twice',
        );
      this.failing = true;
    }
    this.upTo = upTo;
    return upTo;
  }

  /**
   * A clean stop: every issued event up to `last` is on disk, so the rest of the block is given back and the
   * next run continues at last + 1. Only lowers, never below what was read at open; errors are ignored (the
   * larger reservation stays: a gap, never a reuse).
   */
  release(last: number): void {
    const keep = Math.max(last, this.floor);
    if (keep >= this.upTo) return;
    try {
      writeFileAtomicSync(this.path, `${keep}\n`);
      this.upTo = keep;
    } catch {
      // keep the larger reservation: a gap at the next start, never a reuse
    }
  }
}
