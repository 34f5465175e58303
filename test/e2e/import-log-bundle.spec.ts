/**
 * `pnpm -s import-log` runs the importer as a plain JavaScript bundle (scripts/bundled.mjs): the same output as
 * its TypeScript sources, on one thread and through its encoder thread, and a bundle never older than them.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bundled, outFile } from '../../scripts/bundled.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
const SAMPLE = join(
  ROOT,
  'packages/core/src/kubelet-log/testdata/03-v1.31-openshift-journald-v2-static-pods-probes-crashloop.log',
);

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function run(
  cmd: string,
  args: string[],
  stdin: Buffer | string = '',
): Promise<{ code: number | null; out: Buffer; err: string }> {
  const p = spawn(cmd, args, { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  let err = '';
  p.stdout.on('data', (d: Buffer) => out.push(d));
  p.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  p.stdin.end(stdin);
  return new Promise((resolve) => p.on('close', (code) => resolve({ code, out: Buffer.concat(out), err })));
}

/** the package script, as pnpm runs it */
async function importLog(
  args: string[],
  stdin?: Buffer,
): Promise<{ code: number | null; out: Buffer; err: string }> {
  const { scripts } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const [cmd, ...rest] = (scripts['import-log'] as string).split(' ');
  return run(cmd === 'node' ? process.execPath : (cmd as string), [...rest, ...args], stdin);
}

const fromSources = (args: string[], stdin?: Buffer) =>
  run(join(ROOT, 'node_modules/.bin/tsx'), ['apps/server/src/import-log.ts', ...args], stdin);

describe('pnpm -s import-log', { timeout: 60_000 }, () => {
  it('writes the bytes its sources write, from a file (one thread) and from stdin (the encoder thread)', async () => {
    const text = await readFile(SAMPLE);
    const file = await importLog([SAMPLE, '--year', '2024']);
    const want = await fromSources([SAMPLE, '--year', '2024']);
    expect(file.code).toBe(0);
    expect(file.err).toBe(want.err);
    expect(file.out.equals(want.out)).toBe(true);
    expect(file.out.length).toBeGreaterThan(40_000);

    const piped = await importLog(['-', '--year', '2024'], text);
    expect(piped.code).toBe(0);
    expect(piped.out.equals(want.out)).toBe(true);
  });

  it('exits as its sources do on bad arguments and on input with no kubelet line', async () => {
    const bad = await importLog(['--year', 'soon', SAMPLE]);
    expect(bad.code).toBe(2);
    expect(bad.err).toBe('import-log: --year must be a four-digit year, not "soon"\n');
    const none = await importLog(['-'], Buffer.from('hello\nworld\n'));
    expect(none.code).toBe(1);
    expect(none.err).toContain('import-log: no kubelet lines in 2 lines');
  });
});

describe('scripts/bundled.mjs', { timeout: 60_000 }, () => {
  it('builds a bundle again when a source it read changes, and only then', async () => {
    const root = await mkdtemp(join(tmpdir(), 'syncscope-bundle-'));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    const cache = join(root, 'cache');
    await writeFile(
      join(root, 'tool.ts'),
      "import { word } from './word.ts';\nprocess.stdout.write(word);\n",
    );
    await writeFile(join(root, 'word.ts'), "export const word: string = 'one';\n");
    const runIt = async () => {
      const dir = await bundled('tool', ['tool.ts'], { root, cache });
      const r = await run(process.execPath, [outFile(dir, 'tool.ts')]);
      return { dir, out: r.out.toString() };
    };

    const first = await runIt();
    expect(first.out).toBe('one');
    const built = (await stat(first.dir)).mtimeMs;
    const again = await runIt();
    expect(again).toEqual(first);
    expect((await stat(again.dir)).mtimeMs).toBe(built);

    // an imported file, not the entry, changes: a new bundle with the new text
    await writeFile(join(root, 'word.ts'), "export const word: string = 'two';\n");
    const changed = await runIt();
    expect(changed.out).toBe('two');
    expect(changed.dir).not.toBe(first.dir);
    expect((await readFile(join(cache, 'tool.current'), 'utf8')).trim()).toBe(changed.dir.split('/').pop());

    // back to the first text: the first bundle, still on disk, is current again
    await writeFile(join(root, 'word.ts'), "export const word: string = 'one';\n");
    expect((await runIt()).dir).toBe(first.dir);
  });
});
