/**
 * checkDataDir: main.ts asks, before anything else starts, whether the data directory can hold the server's
 * state: it is created if missing, must be a directory, and must take a file being created, written, synced
 * and removed. Returns undefined when it can, else one line saying why ("data dir /x is not writable:
 * EROFS: read-only file system"), which main prints before exiting 1. Synchronous; leaves nothing behind.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

function reason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const msg = (e.message ?? String(err)).replace(/, \w+ '[^']*'$/, '');
  return e.code && !msg.startsWith(e.code) ? `${e.code}: ${msg}` : msg;
}

export function checkDataDir(dir: string): string | undefined {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST')
      return `data dir ${dir} cannot be created: ${reason(err)}`;
  }
  try {
    if (!statSync(dir).isDirectory()) return `data dir ${dir} is not a directory`;
  } catch (err) {
    return `data dir ${dir} cannot be read: ${reason(err)}`;
  }
  const probe = join(dir, `.write-check.${process.pid}`);
  try {
    const fd = openSync(probe, 'w', 0o600);
    try {
      writeSync(fd, 'syncscope\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
      unlinkSync(probe);
    }
  } catch (err) {
    return `data dir ${dir} is not writable: ${reason(err)}`;
  }
  return undefined;
}
