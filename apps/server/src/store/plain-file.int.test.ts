/**
 * A FIFO where the data dir should hold a file: opening it would wait for a writer for ever, so a start
 * moves each such file aside with one warning and goes on. A real process opens the
 * directory (testdata/open-data-dir.ts), since a read that hangs would hang the test runner itself.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { outputOf, type ProcessOutput } from '../process-testing.ts';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const OPENER = fileURLToPath(new URL('./testdata/open-data-dir.ts', import.meta.url));
/** Far more than a start takes on a loaded machine; a start that hangs is killed here and fails the test. */
const HUNG_MS = 60_000;

async function openDataDir(dir: string): Promise<ProcessOutput> {
  const child = spawn(process.execPath, ['--import', 'tsx', OPENER, dir], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), HUNG_MS);
  try {
    return await outputOf(child);
  } finally {
    clearTimeout(timer);
  }
}

describe('a data dir with FIFOs where files should be', () => {
  let root: string;
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it(
    'moves the lock, a pod file and the seq reservation aside, warns once for each, and starts',
    async () => {
      root = mkdtempSync(join(tmpdir(), 'syncscope-fifo-'));
      const dir = join(root, 'data');
      const pods = join(dir, 'store', 'pods');
      mkdirSync(pods, { recursive: true });
      mkdirSync(join(dir, 'trace'), { recursive: true });
      const good = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'web', namespace: 'default', uid: 'uid-web' },
        spec: { containers: [{ name: 'main', image: 'nginx' }] },
      };
      writeFileSync(join(pods, 'uid-web.json'), JSON.stringify(good));
      const fifos = [join(dir, 'lock'), join(pods, 'uid-fifo.json'), join(dir, 'trace', 'seq-reserved')];
      execFileSync('mkfifo', fifos);

      const { code, out, err } = await openDataDir(dir);
      expect(out).toBe('started 1 0\n');
      expect(code).toBe(0);
      const lines = err.trim().split('\n');
      expect(lines).toHaveLength(3);
      for (const f of fifos) {
        expect(
          lines.filter((l) => l.includes(`${f} is a FIFO, not expected there; moved to ${f}.damaged-`)),
        ).toHaveLength(1);
        const base = f.slice(f.lastIndexOf('/') + 1);
        const left = readdirSync(join(f, '..')).filter((n) => n.startsWith(`${base}.damaged-`));
        expect(left).toHaveLength(1);
        expect(statSync(join(f, '..', left[0] as string)).isFIFO()).toBe(true);
      }
    },
    HUNG_MS + 10_000,
  );
});
