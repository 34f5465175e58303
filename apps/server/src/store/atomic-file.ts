/**
 * Durable, atomic replacement of small files, and the directory fsync that makes a rename or unlink stick.
 *
 * writeFileAtomicSync(path, data):
 *   1. write data to `<path>.<pid>.tmp` in the same directory (same file system, so the rename is atomic),
 *   2. fsync the temp file (its bytes are on disk before its name can be),
 *   3. rename it over `path` (readers see the old file or the new one, never a mix),
 *   4. fsync the directory (the rename itself survives a power loss).
 * A crash before 3 leaves the old file intact plus a stray `*.tmp`, which readers must ignore (isTempFile).
 *
 * Modes: what the server keeps in its data dir (pod specs with their env values, the trace) is its own:
 * files are made 0600 and directories 0700 (FILE_MODE, DIR_MODE), and ones found looser at start are
 * tightened (tightenMode).
 */
import {
  chmodSync,
  closeSync,
  constants,
  fsyncSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';

const TEMP_SUFFIX = '.tmp';
/** Mode of every file the server writes in its data dir: the owner's only. */
export const FILE_MODE = 0o600;
/** Mode of every directory the server makes in its data dir. */
export const DIR_MODE = 0o700;

/**
 * Takes from path's mode every permission `mode` does not give (0644 → 0600 for FILE_MODE). Returns whether
 * it changed; a failure (not the owner, a read-only file system) is warned about, never thrown.
 */
export function tightenMode(path: string, mode: number, warn: (msg: string) => void): boolean {
  try {
    const now = statSync(path).mode & 0o777;
    if ((now & ~mode) === 0) return false;
    chmodSync(path, now & mode);
    return true;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code !== 'ENOENT')
      warn(`cannot make ${path} private (mode ${mode.toString(8)}): ${e.code ?? e.message}`);
    return false;
  }
}

export function isTempFile(name: string): boolean {
  return name.endsWith(TEMP_SUFFIX);
}

/** fsync a directory so that entries created, renamed or removed in it are durable. */
export function fsyncDirSync(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, constants.O_RDONLY);
  } catch {
    return; // a platform that cannot open directories (Windows): nothing more we can do
  }
  try {
    fsyncSync(fd);
  } catch (err) {
    // some file systems refuse fsync on a directory; the rename is then as durable as they make it
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'EPERM' && code !== 'EISDIR' && code !== 'EBADF') throw err;
  } finally {
    closeSync(fd);
  }
}

export function writeFileAtomicSync(path: string, data: string | Uint8Array): void {
  const tmp = `${path}.${process.pid}${TEMP_SUFFIX}`;
  const fd = openSync(tmp, 'w', FILE_MODE);
  try {
    const buf = typeof data === 'string' ? Buffer.from(data) : data;
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  renameSync(tmp, path);
  fsyncDirSync(dirname(path));
}

/** Removes a file durably; a file that is already gone is not an error. */
export function removeFileDurableSync(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  fsyncDirSync(dirname(path));
}
