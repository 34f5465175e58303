/**
 * Where the trace journal keeps what it cannot use: `<trace dir>/damaged/`. Nothing put there is read
 * again or deleted by the server (retention counts only segments); it is kept for a human to look at.
 *
 *   setAside(dir, path)          moves a whole entry there (a segment that cannot be read, or that holds
 *                                nothing whole), named `<name>.<UTC time>`
 *   copyAside(dir, name, bytes)  writes a copy of bytes about to be cut (a damaged tail) as
 *                                `<name>.<UTC time>.tail`
 * Both are synchronous and called only from TraceJournal.open, before the server serves anything. Both
 * throw when the file system refuses; the caller reports that and goes on.
 */
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { basename, join } from 'node:path';
import { DIR_MODE, fsyncDirSync, writeFileAtomicSync } from './atomic-file.ts';

const DAMAGED_DIR = 'damaged';

/** A free path in `<dir>/damaged/` for `name` with the current time (and a counter on a clash). */
function target(dir: string, name: string, suffix = ''): string {
  const damaged = join(dir, DAMAGED_DIR);
  mkdirSync(damaged, { recursive: true, mode: DIR_MODE });
  const stamp = new Date().toISOString().replace(/:/g, '-');
  let path = join(damaged, `${name}.${stamp}${suffix}`);
  for (let n = 1; existsSync(path); n++) path = join(damaged, `${name}.${stamp}-${n}${suffix}`);
  return path;
}

/** Moves path (a file or anything else) into `<dir>/damaged/`; returns where it went. */
export function setAside(dir: string, path: string): string {
  const dest = target(dir, basename(path));
  renameSync(path, dest);
  fsyncDirSync(dir);
  return dest;
}

/** Keeps a durable copy of bytes cut from the file `name` in `<dir>/damaged/`; returns its path. */
export function copyAside(dir: string, name: string, bytes: Uint8Array): string {
  const dest = target(dir, name, '.tail');
  writeFileAtomicSync(dest, bytes);
  return dest;
}

/** `EISDIR: illegal operation on a directory, read` → `EISDIR: illegal operation on a directory`. */
export function errorText(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const msg = (e?.message ?? String(err)).replace(/, \w+ '[^']*'$/, '').replace(/, \w+$/, '');
  return e?.code && !msg.startsWith(e.code) ? `${e.code}: ${msg}` : msg;
}
