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
 * Two files, each holding one decimal number (zero-padded to a fixed width), each only ever raised by the
 * path that owns it; a start takes the larger:
 *   seq-reserved       renewed in the background (libuv's thread pool) once half the block is used, so the
 *                      engine does not wait for the disk: a write takes 1 ms on an idle ext4 and 10-70 ms on
 *                      a busy one, and at 25,000 events/s the half block left lasts 200 ms
 *   seq-reserved.now   written synchronously inside record() only when the block ran out before the
 *                      background write finished (and at start), so no seq is ever issued unreserved
 * A write overwrites the file's bytes in place and fsyncs it (overwriteDurable): it needs no new block, so
 * it goes on working on a full disk (ENOSPC), where a new temp file could not be created. A file is created
 * (atomically) only when missing. The number fits one sector, so a power loss leaves the old or the new one.
 *
 * When a reservation cannot be written all the same (EIO, EROFS, ENOSPC on a copy-on-write file system),
 * extend refuses: it grants nothing past what is durable, warns once, keeps the cause in `failure` (the API
 * refuses writes and /readyz fails meanwhile) and tries again at the next call. The recorder then holds its
 * events unnumbered (TraceRecorder) rather than issue a seq a crash could make it issue twice.
 * Who calls it: TraceJournal (open; extend as the recorder's reserver; settle and release on close).
 */

import { closeSync, constants, fdatasyncSync, openSync, writeSync } from 'node:fs';
import { open as openFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { FILE_MODE, removeFileDurableSync, tightenMode, writeFileAtomicSync } from './atomic-file.ts';
import { errorText } from './damage.ts';
import { readPlainFile } from './plain-file.ts';
import { StoreWriteError } from './write-error.ts';

export const SEQ_RESERVED_FILE = 'seq-reserved';
export const SEQ_RESERVED_NOW_FILE = 'seq-reserved.now';
/** Seqs reserved per write; the background renewal starts when half are used. */
const SEQ_BLOCK = 10_000;
/** Digits of a reservation on disk: every one is written at the same width, over the one before. */
const WIDTH = 16;

/** How a reservation reaches the disk; tests inject a failing one (a full disk, an I/O error). */
export interface ReservationIO {
  /** Replaces the number in path durably (fsynced before it returns); throws when the disk refuses. */
  write(path: string, text: string): void;
  /** write() through the thread pool. */
  writeAsync(path: string, text: string): Promise<void>;
}

export const diskIO: ReservationIO = { write: overwriteDurable, writeAsync: overwriteDurableAsync };

function format(seq: number): string {
  return `${String(seq).padStart(WIDTH, '0')}\n`;
}

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
  /** Why the last reservation write failed; undefined once one succeeds. */
  failure: StoreWriteError | undefined;

  constructor(
    private readonly dir: string,
    private readonly warn: (msg: string) => void,
    private readonly block = SEQ_BLOCK,
    private readonly io: ReservationIO = diskIO,
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
    let setAside = false;
    try {
      const buf = readPlainFile(path, 'trace journal:', (msg) => {
        setAside = true;
        this.warn(msg);
      });
      if (buf === undefined) return setAside ? lastOnDisk + 2 * this.block : 0;
      text = buf.toString('utf8');
    } catch (err) {
      this.warn(
        `trace journal: ${path} cannot be read (${errorText(err)}); assuming seqs were served past the journal`,
      );
      return lastOnDisk + 2 * this.block;
    }
    tightenMode(path, FILE_MODE, this.warn);
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
   * left it writes seq-reserved.now before returning. When that write fails it returns what is durable,
   * below `next`: a refusal (see the file comment), never a grant from memory.
   */
  extend(next: number): number {
    if (this.ahead > this.upTo) this.upTo = this.ahead;
    if (next <= this.upTo) {
      if (this.upTo - next + 1 <= this.block / 2) this.pending ??= this.renew(next + this.block - 1);
      return this.upTo;
    }
    const upTo = next + this.block - 1;
    try {
      this.io.write(this.nowPath, format(upTo));
      this.failure = undefined;
      this.upTo = upTo;
    } catch (err) {
      this.failed(err, this.nowPath);
    }
    return this.upTo;
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
      this.io.write(this.path, format(keep));
      removeFileDurableSync(this.nowPath);
      this.upTo = keep;
      this.ahead = 0;
    } catch {
      // keep the larger reservation
    }
  }

  private async renew(upTo: number): Promise<void> {
    try {
      await this.io.writeAsync(this.path, format(upTo));
      this.ahead = Math.max(this.ahead, upTo);
      this.failure = undefined;
    } catch (err) {
      this.failed(err, this.path); // the recorder will reach the end of its grant and write synchronously
    } finally {
      this.pending = undefined;
    }
  }

  private failed(err: unknown, path: string): void {
    if (!this.failure)
      this.warn(
        `trace journal: cannot reserve seqs in ${this.dir} (${(err as Error).message}); ` +
          `no seq past ${this.upTo} is issued until it can`,
      );
    this.failure = StoreWriteError.from(err, path, 'trace journal');
  }
}

/**
 * Writes text over the first bytes of path (same width every time, so nothing is left of the old number)
 * and fsyncs it; creates path atomically when it is missing. (An older version's shorter number is
 * covered whole.)
 */
function overwriteDurable(path: string, text: string): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    writeFileAtomicSync(path, text);
    return;
  }
  try {
    const buf = Buffer.from(text);
    if (writeSync(fd, buf, 0, buf.length, 0) !== buf.length) throw new Error(`short write to ${path}`);
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

async function overwriteDurableAsync(path: string, text: string): Promise<void> {
  let fh: Awaited<ReturnType<typeof openFile>>;
  try {
    fh = await openFile(path, constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    await createDurableAsync(path, text);
    return;
  }
  try {
    const buf = Buffer.from(text);
    const { bytesWritten } = await fh.write(buf, 0, buf.length, 0);
    if (bytesWritten !== buf.length) throw new Error(`short write to ${path}`);
    await fh.datasync();
  } finally {
    await fh.close();
  }
}

async function createDurableAsync(path: string, text: string): Promise<void> {
  const tmp = `${path}.${process.pid}.bg.tmp`;
  const fh = await openFile(tmp, 'w', FILE_MODE);
  try {
    await fh.writeFile(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, path);
  const dh = await openFile(join(path, '..'), 'r');
  try {
    await dh.sync();
  } finally {
    await dh.close();
  }
}
