/**
 * Durable, atomic replacement of small files, and the directory fsync that makes a rename or unlink stick.
 *
 * writeFileAtomicSync(path, data):
 *   1. write data to `<path>.<pid>.tmp` in the same directory (same file system, so the rename is atomic),
 *   2. fsync the temp file (its bytes are on disk before its name can be),
 *   3. rename it over `path` (readers see the old file or the new one, never a mix),
 *   4. fsync the directory (the rename itself survives a power loss).
 * A crash before 3 leaves the old file intact plus a stray `*.tmp`, which readers must ignore (isTempFile).
 */
import {
  closeSync,
  constants,
  fsyncSync,
  openSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';

const TEMP_SUFFIX = '.tmp';

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
  const fd = openSync(tmp, 'w', 0o644);
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
