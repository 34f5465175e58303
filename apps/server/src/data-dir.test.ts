import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkDataDir, startFailure } from './data-dir.ts';

describe('checkDataDir', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'syncscope-datadir-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  const mode = (p: string) => statSync(p).mode & 0o777;

  it('creates the data dir 0700 and makes an existing one and what lies in it private', () => {
    const dir = join(root, 'new');
    expect(checkDataDir(dir, () => {})).toBeUndefined();
    expect(mode(dir)).toBe(0o700);

    const old = join(root, 'old');
    mkdirSync(join(old, 'store'), { recursive: true, mode: 0o755 });
    writeFileSync(join(old, 'kubelet.log'), 'x', { mode: 0o644 });
    chmodSync(old, 0o755);
    chmodSync(join(old, 'store'), 0o755);
    expect(checkDataDir(old, () => {})).toBeUndefined();
    expect([mode(old), mode(join(old, 'store')), mode(join(old, 'kubelet.log'))]).toEqual([
      0o700, 0o700, 0o600,
    ]);
  });
});

describe('startFailure', () => {
  it('is one line naming the file and the cause, never a stack', () => {
    const err = Object.assign(new Error("ENOTDIR: not a directory, mkdir '/x/store/pods'"), {
      code: 'ENOTDIR',
      syscall: 'mkdir',
      path: '/x/store/pods',
    });
    expect(startFailure(err)).toBe("ENOTDIR: not a directory, mkdir '/x/store/pods'");
    expect(startFailure(new Error('lock: /x/lock is a FIFO\nsecond line'))).toBe('lock: /x/lock is a FIFO');
    expect(startFailure('plain')).toBe('plain');
  });
});
