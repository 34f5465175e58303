import { execFile } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeEvent, segmentName } from './segment.ts';
import { newStoreDir, removeStoreDir } from './store-testing.ts';
import { podEvent } from './test-events.ts';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const BOOT = fileURLToPath(new URL('./testdata/journal-boot.ts', import.meta.url));

/** The journal on disk: one segment far larger than what a boot may hold in memory at once. */
const JOURNAL_BYTES = 80 * 1024 * 1024;
/**
 * What a boot may add to the process's peak resident set while it reads the journal: well under the journal
 * itself (a read of the whole segment at once holds it and its decoded events, several times its size), with
 * room for a collector that runs late on a busy machine (+20 MiB idle, +52 MiB seen beside the suite's lanes).
 */
const BOOT_MEMORY_BOUND = (JOURNAL_BYTES * 3) / 4;

/** Writes one segment of at least `bytes`, a pod's events with seq 1, 2, …; returns the last seq. */
function writeSegment(dir: string, bytes: number): number {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const fd = openSync(join(dir, segmentName(1)), 'w', 0o600);
  let seq = 0;
  let written = 0;
  try {
    while (written < bytes) {
      const lines: string[] = [];
      for (let i = 0; i < 10_000; i++) lines.push(encodeEvent(podEvent(++seq, `uid-${seq % 50}`)));
      written += writeSync(fd, lines.join(''));
    }
  } finally {
    closeSync(fd);
  }
  return seq;
}

describe('TraceJournal boot', () => {
  const dir = newStoreDir('trace');
  afterAll(() => removeStoreDir(dir));

  it('reads a journal larger than its memory bound in bounded memory', async () => {
    const lastSeq = writeSegment(dir, JOURNAL_BYTES);
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', BOOT, dir, '1000'], {
      cwd: ROOT,
    });
    const [word, before, peak, events] = stdout.trim().split(' ');
    expect(word).toBe('rss');
    expect(Number(events)).toBe(1000);
    const grewBytes = (Number(peak) - Number(before)) * 1024;
    console.log(`boot over ${JOURNAL_BYTES >> 20} MiB (${lastSeq} events): peak RSS +${grewBytes >> 20} MiB`);
    expect(grewBytes).toBeLessThan(BOOT_MEMORY_BOUND);
  }, 120_000);
});
