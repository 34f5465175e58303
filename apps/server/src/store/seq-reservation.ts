/**
 * SeqReservation: the highest trace seq this process may hand out, kept durably in the trace directory so
 * that a seq served before a crash is never given to another event after it.
 *
 * Why: events are served (REST, the WebSocket stream) as soon as they are recorded, but reach the journal
 * up to 100 ms later. A run killed in between leaves on disk a last seq below what clients already hold; if
 * the next run continued from the disk alone it would reissue those seqs to different events. Instead the
 * recorder issues only seqs reserved here first (TraceRecorder.reserveSeqs), and the next run starts above
 * max(last seq on disk, reserved). A crash leaves a gap, never a reuse; a clean shutdown gives back what it
 * did not use (release), so a clean restart has no gap.
 *
 * Two files, each holding one decimal number, each replaced atomically (temp file, fsync, rename, directory
 * fsync) and only ever raised by the path that owns it; a start takes the larger:
 *   seq-reserved       renewed in the background (libuv's thread pool) once half the block is used, so the
 *                      engine does not wait for the disk: a write takes 1 ms on an idle ext4 and 10-70 ms on
 *                      a busy one, and at 25,000 events/s the half block left lasts 200 ms
 *   seq-reserved.now   written synchronously inside record() only when the block ran out before the
 *                      background write finished (and at start), so no seq is ever issued unreserved
 * Who calls it: TraceJournal (open; extend as the recorder's reserver; settle and release on close). extend
 * never throws: when nothing can be written it warns once and grants the block from memory (the journal,
 * on the same disk, is then failing too, so nothing newer would survive a crash anyway).
 */

import { readFileSync } from 'node:fs';
import { open as openFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { removeFileDurableSync, writeFileAtomicSync } from './atomic-file.ts';

export const SEQ_RESERVED_FILE = 'seq-reserved';
export const SEQ_RESERVED_NOW_FILE = 'seq-reserved.now';
/** Seqs reserved per write; the background renewal starts when half are used. */
const SEQ_BLOCK = 10_000;

export class SeqReservation {
  readonly path: string;
  readonly nowPath: string;
  /** The highest seq durably reserved and granted to the recorder. */
  private upTo = 0;
  /** What an earlier run may have issued (read at open): never given back. */
  private floor = 0;
  private pending: Promise<void> | undefined;
  /** A finished background write, not yet granted. */
  private ahead = 0;
  private failing = false;

  constructor(
    private readonly dir: string,
    private readonly warn: (msg: string) => void,
    private readonly block = SEQ_BLOCK,
  ) {
    this.path = join(dir, SEQ_RESERVED_FILE);
    this.nowPath = join(dir, SEQ_RESERVED_NOW_FILE);
  }

  /**
   * Reads what an earlier run reserved: the seq it may have served up to (0 with no files). A file that
   * cannot be read as a number counts as two blocks past `lastOnDisk`, more than a run issues beyond its
   * journal.
   */
  open(lastOnDisk: number): number {
    this.floor = Math.max(this.read(this.path, lastOnDisk), this.read(this.nowPath, lastOnDisk));
    this.upTo = this.floor;
    return this.floor;
  }

  private read(path: string, lastOnDisk: number): number {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return 0;
      this.warn(
        `trace journal: ${path} cannot be read (${code}); assuming seqs were served past the journal`,
      );
      return lastOnDisk + 2 * this.block;
    }
    const n = Number(text.trim());
    if (!/^\d+\s*$/.test(text) || !Number.isSafeInteger(n)) {
      this.warn(`trace journal: ${path} does not hold a seq; assuming seqs were served past the journal`);
      return lastOnDisk + 2 * this.block;
    }
    return n;
  }

  /** The highest seq granted so far. */
  get reserved(): number {
    return this.upTo;
  }

  /**
   * The recorder's reserver, called with the next seq to issue (at start, then at half of each grant):
   * returns the highest seq that may be issued. With seqs left it returns what is already durable (with a
   * finished background renewal added) and, once half a block or less is left, starts a renewal; with none
   * left it writes seq-reserved.now before returning.
   */
  extend(next: number): number {
    if (this.ahead > this.upTo) this.upTo = this.ahead;
    if (next <= this.upTo) {
      if (this.upTo - next + 1 <= this.block / 2) this.pending ??= this.renew(next + this.block - 1);
      return this.upTo;
    }
    const upTo = next + this.block - 1;
    try {
      writeFileAtomicSync(this.nowPath, `${upTo}\n`);
      this.failing = false;
    } catch (err) {
      this.failed(err);
    }
    this.upTo = upTo;
    return upTo;
  }

  /** Resolves once no background renewal is running. */
  async settle(): Promise<void> {
    while (this.pending) await this.pending;
  }

  /**
   * A clean stop (after settle()): every issued event up to `last` is on disk, so the rest of the block is
   * given back and the next run continues at last + 1. Only lowers, never below what was read at open;
   * errors are ignored (the larger reservation stays: a gap, never a reuse).
   */
  release(last: number): void {
    const keep = Math.max(last, this.floor);
    if (keep >= Math.max(this.upTo, this.ahead)) return;
    try {
      writeFileAtomicSync(this.path, `${keep}\n`);
      removeFileDurableSync(this.nowPath);
      this.upTo = keep;
      this.ahead = 0;
    } catch {
      // keep the larger reservation
    }
  }

  private async renew(upTo: number): Promise<void> {
    const tmp = `${this.path}.${process.pid}.bg.tmp`;
    try {
      const fh = await openFile(tmp, 'w', 0o644);
      try {
        await fh.writeFile(`${upTo}\n`);
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(tmp, this.path);
      const dh = await openFile(this.dir, 'r');
      try {
        await dh.sync();
      } finally {
        await dh.close();
      }
      this.ahead = Math.max(this.ahead, upTo);
      this.failing = false;
    } catch (err) {
      this.failed(err); // the recorder will reach the end of its grant and write synchronously
    } finally {
      this.pending = undefined;
    }
  }

  private failed(err: unknown): void {
    if (!this.failing)
      this.warn(
        `trace journal: cannot reserve seqs in ${this.dir} (${(err as Error).message}); ` +
          'after a crash some seqs may be issued twice',
      );
    this.failing = true;
  }
}
