import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../clock/fake-clock.ts';
import { BUSYBOX_APPLETS } from './images.ts';
import type { ContainerHost } from './process.ts';
import { defaultPrograms } from './programs.ts';

/** A busybox-like container with `files` in it; runs argv as an exec does, `stdin` given whole. */
function container(files: Record<string, string> = {}) {
  const vfs = new Map(Object.entries(files));
  const host: ContainerHost = {
    clock: new FakeClock(),
    kill: new AbortController().signal,
    files: new Set(BUSYBOX_APPLETS.map((a) => `/bin/${a}`)),
    vfs,
    hostname: 'pod-a',
    memoryLimitBytes: 0,
    oom: () => undefined,
    listen: () => () => undefined,
    httpGet: async () => ({ status: 200, body: '' }),
    connect: async () => undefined,
    programs: defaultPrograms(),
  };
  const run = async (argv: string[], stdin = '') => {
    let out = '';
    let err = '';
    const program = host.programs.get(argv[0] as string);
    if (!program) throw new Error(`no ${argv[0]}`);
    const io = { out: (s: string) => (out += s), err: (s: string) => (err += s), stdin };
    const code = await program(argv, { host, io, env: new Map([['PATH', '/bin']]), signals: null });
    return { code, out, err };
  };
  return { vfs, run };
}

const scratch = mkdtempSync(join(tmpdir(), 'syncscope-tar-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('tar in the simulated container', () => {
  it('writes an archive GNU tar reads: a directory tree, leading / dropped', async () => {
    const c = container({ '/tmp/d/a.txt': 'alpha\n', '/tmp/d/sub/b.txt': 'béta ✓\n', '/tmp/other': 'x' });
    const r = await c.run(['tar', 'cf', '-', '/tmp/d']);
    expect(r.code).toBe(0);
    expect(r.err).toContain("removing leading '/'");
    const dest = join(scratch, 'out');
    mkdirSync(dest);
    const listed = execFileSync('tar', ['-xvf', '-', '-C', dest], { input: Buffer.from(r.out) }).toString();
    expect(listed.split('\n').filter(Boolean)).toEqual([
      'tmp/d/',
      'tmp/d/a.txt',
      'tmp/d/sub/',
      'tmp/d/sub/b.txt',
    ]);
    expect(readFileSync(join(dest, 'tmp/d/sub/b.txt'), 'utf8')).toBe('béta ✓\n');
  });

  it('extracts what GNU tar writes, under -C, options bundled as kubectl gives them', async () => {
    const src = join(scratch, 'src');
    mkdirSync(join(src, 'conf/deep'), { recursive: true });
    writeFileSync(join(src, 'conf/app.yaml'), 'key: value\n');
    const long = `${'n'.repeat(120)}.txt`;
    writeFileSync(join(src, 'conf/deep', long), 'long name\n');
    const archive = execFileSync('tar', ['--format=pax', '-cf', '-', '-C', src, 'conf']);
    const c = container();
    const r = await c.run(['tar', '-xmf', '-', '-C', '/tmp'], archive.toString('utf8'));
    expect(r).toEqual({ code: 0, out: '', err: '' });
    expect(c.vfs.get('/tmp/conf/app.yaml')).toBe('key: value\n');
    expect(c.vfs.get(`/tmp/conf/deep/${long}`)).toBe('long name\n');
    expect((await c.run(['sh', '-c', 'test -d /tmp/conf/deep && echo dir'])).out).toBe('dir\n');
  });

  it('round-trips a single file, /etc/hostname included', async () => {
    const c = container({ '/tmp/f': 'one\ntwo\n' });
    const out = await c.run(['tar', 'cf', '-', '/tmp/f', '/etc/hostname']);
    expect((await c.run(['tar', 'tf', '-'], out.out)).out).toBe('tmp/f\netc/hostname\n');
    const d = container();
    expect((await d.run(['tar', 'xf', '-', '-C', '/'], out.out)).code).toBe(0);
    expect(d.vfs.get('/tmp/f')).toBe('one\ntwo\n');
    expect(d.vfs.get('/etc/hostname')).toBe('pod-a\n');
  });

  it('says what is wrong: a missing source, a missing directory, a broken archive, a bad option', async () => {
    const c = container();
    expect(await c.run(['tar', 'cf', '-', '/tmp/nope'])).toMatchObject({
      code: 1,
      err: expect.stringContaining('tar: /tmp/nope: No such file or directory'),
    });
    expect(await c.run(['tar', '-xmf', '-', '-C', '/nowhere'], 'x')).toMatchObject({
      code: 1,
      err: "tar: can't change directory to '/nowhere': No such file or directory\n",
    });
    expect(await c.run(['tar', 'xf', '-'], 'x'.repeat(1024))).toMatchObject({
      code: 1,
      err: 'tar: invalid tar header checksum\n',
    });
    expect(await c.run(['tar', '-q'])).toMatchObject({ code: 1, err: "tar: invalid option -- 'q'\n" });
    expect(c.vfs.size).toBe(0);
  });

  it('refuses members that would leave the directory', async () => {
    const src = join(scratch, 'evil');
    mkdirSync(join(src, 'x'), { recursive: true });
    writeFileSync(join(src, 'f'), 'f');
    const archive = execFileSync('tar', ['-P', '-cf', '-', '-C', join(src, 'x'), '../f']);
    const c = container();
    const r = await c.run(['tar', 'xf', '-', '-C', '/tmp'], archive.toString('utf8'));
    expect(r.code).toBe(1);
    expect([...c.vfs.keys()]).toEqual([]);
  });
});
