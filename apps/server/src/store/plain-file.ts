/**
 * The data dir holds files and directories the server made; anything else found where one is expected (a
 * FIFO, a socket, a device, a symlink, a directory for a file, a file for a directory) is damage, set aside
 * rather than trusted. Reading a FIFO would block the start forever, and a symlink could lead a read or a
 * write out of the data dir. So:
 *
 *   readPlainFile(path, what, warn)   opens with O_NOFOLLOW | O_NONBLOCK (never blocks, never follows), then
 *                                     checks with fstat that it opened a regular file, and reads that
 *   ensurePlainDir(path, what, warn)  makes sure path is a real directory, mode 0700
 *   setAsideIfNotPlain(path, what, warn)  before a file is opened for writing: path is a regular file or free
 *
 * Whatever is not what it should be is renamed `<name>.damaged-<UTC time>` beside it, with one warning line
 * naming it and what it was, and the caller goes on as if it were missing. All synchronous: called at start.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  type Stats,
} from 'node:fs';
import { dirname } from 'node:path';
import { DIR_MODE, tightenMode } from './atomic-file.ts';
import { errorText } from './damage.ts';

type Warn = (msg: string) => void;

/** What a file system entry is, in words. */
export function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isSymbolicLink()) return 'a symlink';
  if (st.isDirectory()) return 'a directory';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'a regular file';
}

/** Renames path to `<path>.damaged-<time>` (a counter on a clash); returns the new path. */
export function moveAside(path: string): string {
  const stamp = new Date().toISOString().replace(/:/g, '-');
  let dest = `${path}.damaged-${stamp}`;
  for (let n = 1; exists(dest); n++) dest = `${path}.damaged-${stamp}-${n}`;
  renameSync(path, dest);
  return dest;
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Moves path aside with one warning; when even that fails, an Error naming path and both causes. */
function setAsideOrThrow(path: string, what: string, found: string, warn: Warn): void {
  let dest: string;
  try {
    dest = moveAside(path);
  } catch (err) {
    throw new Error(
      `${what} ${path} is ${found}, not expected there, and cannot be moved aside: ${errorText(err)}`,
    );
  }
  warn(`${what} ${path} is ${found}, not expected there; moved to ${dest}`);
}

/**
 * The bytes of the regular file path; undefined when there is none (missing, or something else was there
 * and has been moved aside). Other errors (EACCES, EIO) are thrown as they are.
 */
export function readPlainFile(path: string, what: string, warn: Warn): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    // ELOOP: a symlink; ENXIO: a socket, or a FIFO with no writer on some systems
    if (code !== 'ELOOP' && code !== 'ENXIO') throw err;
    setAsideOrThrow(path, what, kindOf(lstatSync(path)), warn);
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) {
      closeSync(fd);
      fd = -1;
      setAsideOrThrow(path, what, kindOf(st), warn);
      return undefined;
    }
    return readFileSync(fd);
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

/**
 * Clears the way for a file about to be opened by a call that would wait on a FIFO or follow a symlink
 * (an append, an openssl write, another process's read): anything but a regular file at path is moved
 * aside with one warning, so the path is then a regular file or free. Other errors are thrown as they are.
 */
export function setAsideIfNotPlain(path: string, what: string, warn: Warn): void {
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (!st.isFile()) setAsideOrThrow(path, what, kindOf(st), warn);
}

/**
 * Makes path a directory of mode 0700 owned by us: creates it when missing, tightens a looser mode, and
 * moves aside anything else found there (a file, a FIFO, a symlink) before creating it.
 */
export function ensurePlainDir(path: string, what: string, warn: Warn): void {
  let st: Stats | undefined;
  try {
    st = lstatSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ENOTDIR: a directory above it is not one (a file where `store/` should be): that one is set aside
    if (code === 'ENOTDIR') ensurePlainDir(dirname(path), what, warn);
    else if (code !== 'ENOENT') throw err;
  }
  if (st && !st.isDirectory()) {
    setAsideOrThrow(path, what, kindOf(st), warn);
    st = undefined;
  }
  if (!st) mkdirSync(path, { recursive: true, mode: DIR_MODE });
  tightenMode(path, DIR_MODE, warn);
}
