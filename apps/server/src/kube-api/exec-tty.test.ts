import { describe, expect, it } from 'vitest';
import { isInteractiveShell, LineDiscipline, markedScript, readOutcome } from './exec-tty.ts';

/** Everything the discipline makes of `input`, read to its end. */
function readAll(input: string) {
  const tty = new LineDiscipline();
  const events = [];
  for (let rest = input; rest !== ''; ) {
    const r = tty.read(rest);
    events.push(...r.events);
    rest = r.rest;
  }
  const echo = events.flatMap((e) => (e.kind === 'echo' ? [e.text] : [])).join('');
  return { echo, other: events.filter((e) => e.kind !== 'echo') };
}

describe('LineDiscipline', () => {
  it('ends a line at \\r or \\n, and \\r\\n ends one line', () => {
    expect(readAll('a\rb\nc\r\nd\r').other).toEqual([
      { kind: 'line', line: 'a' },
      { kind: 'line', line: 'b' },
      { kind: 'line', line: 'c' },
      { kind: 'line', line: 'd' },
    ]);
  });

  it('erases a whole character, not a byte, and nothing past the line start', () => {
    const r = readAll('\x7fé\x7fok\r');
    expect(r.other).toEqual([{ kind: 'line', line: 'ok' }]);
    expect(r.echo).toBe('é\b \bok\r\n');
  });

  it('drops arrow keys and other escape sequences', () => {
    expect(readAll('\x1b[Aec\x1b[1;5Dho\x1bOB\r').other).toEqual([{ kind: 'line', line: 'echo' }]);
  });

  it('reads Ctrl-D as the end only on an empty line; Ctrl-C drops the line', () => {
    expect(readAll('ab\x04\x03\x04').other).toEqual([{ kind: 'interrupt' }, { kind: 'eof' }]);
  });
});

describe('the line status mark', () => {
  const mark = '__tty_status_0123__';

  it('is printed after the line; its status read and taken out of stderr', () => {
    expect(markedScript('false', mark)).toBe(`false\nprintf '${mark}%d' "$?" >&2`);
    const r = { stdout: 'out\n', stderr: `err\n${mark}1`, exitCode: 0 };
    expect(readOutcome(r, mark)).toEqual({ output: 'out\nerr\n', status: 1 });
  });

  it('missing: the line exited, unless the shell could not parse it', () => {
    expect(readOutcome({ stdout: '', stderr: '', exitCode: 3 }, mark)).toEqual({ output: '', exitCode: 3 });
    const bad = { stdout: '', stderr: 'sh: syntax error: unterminated quoted string\n', exitCode: 2 };
    expect(readOutcome(bad, mark)).toEqual({ output: bad.stderr, status: 2 });
  });
});

describe('isInteractiveShell', () => {
  it('is a shell with no script and no -c', () => {
    expect(isInteractiveShell(['sh'])).toBe(true);
    expect(isInteractiveShell(['/bin/ash', '-l'])).toBe(true);
    expect(isInteractiveShell(['sh', '-c', 'echo'])).toBe(false);
    expect(isInteractiveShell(['sh', 'script.sh'])).toBe(false);
    expect(isInteractiveShell(['cat'])).toBe(false);
  });
});
