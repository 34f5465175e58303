import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HEAP_FLAGS, heapTuned } from './heap.ts';

const ROOT = new URL('../../../', import.meta.url);

describe('the heap goal', () => {
  it('is on the command line of every script that runs the engine or the importer', () => {
    const { scripts } = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as {
      scripts: Record<string, string>;
    };
    for (const name of ['start', 'dev:server']) {
      const tsx = (scripts[name] ?? '').split('&&').pop()?.trim() ?? '';
      expect(tsx, name).toMatch(new RegExp(`^tsx ${HEAP_FLAGS.join(' ')} apps/server/src/`));
    }
    // the importer runs as a plain JavaScript bundle (scripts/bundled.mjs)
    expect(scripts['import-log']).toBe(`node ${HEAP_FLAGS.join(' ')} scripts/bundled.mjs import-log`);
    // and the image's entry point (deploy/Dockerfile) starts the server the same way
    const docker = readFileSync(new URL('deploy/Dockerfile', ROOT), 'utf8');
    const entry = JSON.parse(docker.match(/^ENTRYPOINT (\[.*\])$/m)?.[1] ?? '[]') as string[];
    expect(entry.slice(0, 1 + HEAP_FLAGS.length)).toEqual(['node', ...HEAP_FLAGS]);
  });

  it('reaches V8 from there: a process started with the flags says so, one without does not', () => {
    const ask = (flags: readonly string[]) =>
      execFileSync(
        process.execPath,
        [...flags, '-e', 'process.stdout.write(String(process.execArgv.join(" ")))'],
        { encoding: 'utf8' },
      ).split(' ');
    expect(heapTuned(ask(HEAP_FLAGS))).toBe(true);
    expect(heapTuned(ask([]))).toBe(false);
  });
});
