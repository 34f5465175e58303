/**
 * checkDataDir makes the server's own trees private at any depth (an imports dir, container logs written
 * under a looser umask), and leaves the inside of a directory it did not make as it is.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkDataDir } from './data-dir.ts';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'syncscope-private-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));
const mode = (p: string) => statSync(p).mode & 0o777;

/** A file at `path` (its directories made) and every directory on the way, all as a 022 umask leaves them. */
function loose(dir: string, path: string): string {
  const parts = path.split('/');
  for (let i = 1; i < parts.length; i++) {
    const d = join(dir, ...parts.slice(0, i));
    mkdirSync(d, { recursive: true });
    chmodSync(d, 0o755);
  }
  const file = join(dir, path);
  writeFileSync(file, 'x');
  chmodSync(file, 0o644);
  return file;
}

describe('checkDataDir on a data dir written under umask 022', () => {
  it('makes every file of the server trees 0600 and every directory 0700, however deep', () => {
    const dir = join(root, 'data');
    const files = [
      'imports/AAAAAAAAAAAAAAAAAAAAAA/log.txt',
      'imports/AAAAAAAAAAAAAAAAAAAAAA/trace.ndjson',
      'pods/default_web_0f6c9d1e-1a2b-4c3d-8e9f-001122334455/app/0.log',
      'store/pods/0f6c9d1e-1a2b-4c3d-8e9f-001122334455.json',
      'store/namespaces.json',
      'trace/damaged/00000001.ndjson.2026-01-01T00-00-00.000Z',
      'tls/serving.crt',
      'sim-state.json',
    ].map((p) => loose(dir, p));
    expect(checkDataDir(dir, () => {})).toBeUndefined();
    for (const f of files) expect(`${mode(f).toString(8)} ${f}`).toBe(`600 ${f}`);
    for (const d of [
      'imports',
      'imports/AAAAAAAAAAAAAAAAAAAAAA',
      'pods/default_web_0f6c9d1e-1a2b-4c3d-8e9f-001122334455/app',
      'store/pods',
      'trace/damaged',
    ])
      expect(mode(join(dir, d)).toString(8)).toBe('700');
  });

  it('follows no link and leaves the inside of a directory it did not make', () => {
    const dir = join(root, 'data');
    const outside = loose(root, 'elsewhere/secret.txt');
    const mine = loose(dir, 'notes/todo.txt');
    mkdirSync(join(dir, 'imports'), { recursive: true });
    symlinkSync(join(root, 'elsewhere'), join(dir, 'imports', 'link'));
    expect(checkDataDir(dir, () => {})).toBeUndefined();
    expect(mode(outside).toString(8)).toBe('644');
    expect(mode(join(root, 'elsewhere')).toString(8)).toBe('755');
    // a directory directly in the data dir is closed, what is in it is not the server's to change
    expect(mode(join(dir, 'notes')).toString(8)).toBe('700');
    expect(mode(mine).toString(8)).toBe('644');
  });
});
