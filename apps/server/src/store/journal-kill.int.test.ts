import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { TraceJournal } from './journal.ts';
import { newStoreDir, removeStoreDir } from './store-testing.ts';

// `node --import tsx` rather than the tsx binary: the binary runs the script in a second node process, which
// would survive a SIGKILL sent to the first.
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const WRITER = fileURLToPath(new URL('./testdata/journal-writer.ts', import.meta.url));

/**
 * Runs the writer until it has reported `flushes` writes, then SIGKILLs it (no chance to flush or close).
 * Resolves with the seq it reported at open and the last seq it reported written.
 */
function runAndKill(dir: string, flushes: number): Promise<{ openedAt: number; flushed: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, dir, '65536'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let openedAt = -1;
    let flushed = 0;
    let seen = 0;
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      let nl = out.indexOf('\n');
      while (nl >= 0) {
        const [word, n] = out.slice(0, nl).split(' ');
        out = out.slice(nl + 1);
        nl = out.indexOf('\n');
        if (word === 'open') openedAt = Number(n);
        if (word === 'flushed') {
          flushed = Math.max(flushed, Number(n));
          if (++seen === flushes) child.kill('SIGKILL');
        }
      }
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`writer exited with ${code}: ${err}`));
      else resolve({ openedAt, flushed });
    });
  });
}

describe('TraceJournal under kill -9', () => {
  const dir = newStoreDir('trace');
  afterAll(() => removeStoreDir(dir));

  it('keeps every event reported written, in order, across two killed runs', async () => {
    const first = await runAndKill(dir, 8);
    expect(first.openedAt).toBe(0);
    expect(first.flushed).toBeGreaterThan(0);

    const second = await runAndKill(dir, 8);
    expect(second.openedAt).toBeGreaterThanOrEqual(first.flushed);
    expect(second.flushed).toBeGreaterThan(second.openedAt);

    const journal = new TraceJournal({ dir, warn: () => {} });
    const { lastSeq, events } = await journal.open();
    expect(lastSeq).toBeGreaterThanOrEqual(second.flushed);
    const all = (await journal.read(0)).map((e) => e.seq);
    expect(all).toHaveLength(events);
    // seq 1..lastSeq, each exactly once: nothing reported written was lost, nothing doubled
    expect(all).toEqual(Array.from({ length: lastSeq }, (_, i) => i + 1));
    expect(readdirSync(dir).length).toBeGreaterThan(1); // the runs rolled segments on the way

    journal.append({
      seq: lastSeq + 1,
      time: 0,
      type: 'server.start',
      version: 't',
      runtime: 'sim',
      endpoint: '',
    });
    await journal.close();
    expect((await new TraceJournal({ dir }).open()).lastSeq).toBe(lastSeq + 1);
  }, 30_000);
});
