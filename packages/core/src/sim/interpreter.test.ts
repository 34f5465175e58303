import { describe, expect, it } from 'vitest';
import { FakeClock } from '../clock/fake-clock.ts';
import { BUSYBOX_APPLETS } from './images.ts';
import { Shell } from './interpreter.ts';
import type { ContainerHost } from './process.ts';
import { defaultPrograms } from './programs.ts';
import { parseScript, ShellSyntaxError } from './shell-parse.ts';

/** Runs a script in a bare busybox-like host; returns status and output. */
async function sh(script: string, clock = new FakeClock()) {
  let out = '';
  let err = '';
  const host: ContainerHost = {
    clock,
    kill: new AbortController().signal,
    files: new Set(BUSYBOX_APPLETS.map((a) => `/bin/${a}`)),
    vfs: new Map(),
    hostname: 'pod-a',
    memoryLimitBytes: 0,
    oom: () => undefined,
    listen: () => () => undefined,
    httpGet: async () => ({ status: 200, body: 'ok\n' }),
    connect: async () => undefined,
    programs: defaultPrograms(),
  };
  const env = new Map([
    ['PATH', '/bin'],
    ['GREETING', 'hi there'],
  ]);
  const code = await new Shell({
    host,
    io: { out: (s) => (out += s), err: (s) => (err += s), stdin: '' },
    env,
    signals: null,
  }).run(script);
  return { code, out, err };
}

describe('shell', () => {
  it('runs ; && || and returns the last status', async () => {
    expect(await sh('true && echo a || echo b; false || echo c; false && echo d')).toEqual({
      code: 1,
      out: 'a\nc\n',
      err: '',
    });
    expect((await sh('echo x; exit 3; echo never')).code).toBe(3);
  });

  it('quotes, variables and redirections', async () => {
    const r = await sh(
      `echo "$GREETING" '$GREETING' \${GREETING}x; echo err 1>&2; X=5; echo $X; false; echo $?`,
    );
    expect(r).toEqual({ code: 0, out: 'hi there $GREETING hi therex\n5\n1\n', err: 'err\n' });
  });

  it('unknown commands exit 127 with ash text', async () => {
    expect(await sh('nosuch arg')).toEqual({ code: 127, out: '', err: 'sh: nosuch: not found\n' });
  });

  it('if/for/while, files and pipes', async () => {
    const r = await sh(
      'for i in 1 2 3; do echo $i >> /tmp/f; done; if [ -f /tmp/f ]; then cat /tmp/f | tail -n 1; else echo no; fi; i=0; while [ $i != 0 ]; do :; done',
    );
    expect(r).toEqual({ code: 0, out: '3\n', err: '' });
  });

  it('sleep runs on the clock, fractions included', async () => {
    const clock = new FakeClock();
    let done = false;
    const p = sh('sleep 1.5; sleep 0.5; echo done', clock).then((r) => {
      done = true;
      return r;
    });
    await clock.step(1999);
    expect(done).toBe(false);
    await clock.step(1);
    expect((await p).out).toBe('done\n');
  });

  it('a busy loop advances the clock instead of starving it', async () => {
    const clock = new FakeClock();
    let done = false;
    void sh('while true; do true; done', clock).then(() => (done = true));
    await clock.step(1000);
    expect(done).toBe(false);
  });

  it('syntax errors exit 2', async () => {
    expect(await sh('while true; do echo x')).toEqual({
      code: 2,
      out: '',
      err: 'sh: syntax error: unexpected end of file\n',
    });
    expect(() => parseScript('if true; then echo; fi fi')).toThrow(ShellSyntaxError);
  });
});
