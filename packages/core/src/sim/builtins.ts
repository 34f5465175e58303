import { basename, type Proc, resolveExecutable, ShellExit, type Stdio } from './process.ts';
import { isDirectory } from './tar.ts';

/** What a builtin may touch of the shell it runs in (interpreter.ts's Shell is one). */
interface Shell {
  readonly proc: Proc;
  readonly vars: Map<string, string>;
  readonly status: number;
  setTrap(cmds: string | null): void;
  waitJobs(io: Stdio): Promise<number>;
}

/**
 * Shell builtins: commands ash runs itself, whether or not the image has a binary of that name. Each gets
 * the shell it runs in (for variables, traps and jobs) and its redirected stdio; it returns the status.
 */
export type Builtin = (argv: string[], sh: Shell, io: Stdio) => Promise<number> | number;

export const builtins = new Map<string, Builtin>();

const def = (names: string[], fn: Builtin) => {
  for (const n of names) builtins.set(n, fn);
};

def(['exit'], (argv, sh) => {
  const a = argv[1];
  throw new ShellExit(a === undefined ? sh.status : Number.parseInt(a, 10) & 0xff || 0);
});
def(['true', ':'], () => 0);
def(['false'], () => 1);
def(['echo'], (argv, _sh, io) => {
  io.out(echoText(argv.slice(1)));
  return 0;
});
def(['printf'], (argv, _sh, io) => {
  const [fmt = '', ...rest] = argv.slice(1);
  let i = 0;
  const text = unescapeBackslashes(fmt).replace(/%([sd%])/g, (_m, c: string) =>
    c === '%' ? '%' : (rest[i++] ?? (c === 'd' ? '0' : '')),
  );
  io.out(text);
  return 0;
});
def(['trap'], (argv, sh, io) => {
  const [action, ...sigs] = argv.slice(1);
  if (action === undefined) return 0;
  for (const sig of sigs) {
    const s = sig.toUpperCase().replace(/^SIG/, '');
    if (s !== 'TERM' && s !== '15') {
      if (!/^(INT|HUP|QUIT|EXIT|0|USR1|USR2|CHLD|[0-9]+)$/.test(s)) {
        io.err(`sh: trap: ${sig}: bad trap\n`);
        return 1;
      }
      continue;
    }
    sh.setTrap(action === '-' ? null : action);
  }
  return 0;
});
def(['export'], (argv, sh) => {
  for (const a of argv.slice(1)) {
    const eq = a.indexOf('=');
    const k = eq >= 0 ? a.slice(0, eq) : a;
    const v = eq >= 0 ? a.slice(eq + 1) : (sh.vars.get(k) ?? '');
    sh.proc.env.set(k, v);
    sh.vars.set(k, v);
  }
  return 0;
});
def(['unset'], (argv, sh) => {
  for (const k of argv.slice(1)) {
    sh.vars.delete(k);
    sh.proc.env.delete(k);
  }
  return 0;
});
def(['cd', 'set', 'shift', 'ulimit', 'umask'], () => 0);
def(['pwd'], (_a, _sh, io) => {
  io.out('/\n');
  return 0;
});
def(['wait'], (_a, sh, io) => sh.waitJobs(io));
def(['exec'], async (argv, sh, io) => {
  const rest = argv.slice(1);
  const name = rest[0];
  if (name === undefined) return 0;
  const host = sh.proc.host;
  const path = resolveExecutable(host.files, name, sh.proc.env.get('PATH'));
  const program = path ? host.programs.get(basename(path)) : undefined;
  if (!program) {
    io.err(`sh: exec: ${name}: not found\n`);
    throw new ShellExit(127);
  }
  // The program takes the shell's place: traps are gone, and it is now what receives PID 1's signals.
  sh.setTrap(null);
  throw new ShellExit(await program(rest, { host, io, env: sh.proc.env, signals: sh.proc.signals }));
});
def(['test', '['], (argv, sh, io) => {
  let args = argv.slice(1);
  if (argv[0] === '[') {
    if (args[args.length - 1] !== ']') {
      io.err('sh: [: missing ]\n');
      return 2;
    }
    args = args.slice(0, -1);
  }
  return evalTest(args, sh) ? 0 : 1;
});
def(['kill'], () => 0);

function evalTest(a: string[], sh: Shell): boolean {
  if (a[0] === '!') return !evalTest(a.slice(1), sh);
  const vfs = sh.proc.host.vfs;
  if (a.length === 0) return false;
  if (a.length === 1) return (a[0] ?? '') !== '';
  if (a.length === 2) {
    const [op, v = ''] = a;
    switch (op) {
      case '-z':
        return v === '';
      case '-n':
        return v !== '';
      case '-f':
      case '-e':
      case '-s':
      case '-r':
        return vfs.has(v) && (op !== '-s' || (vfs.get(v) ?? '') !== '');
      case '-x':
        return sh.proc.host.files.has(v);
      case '-d':
        return isDirectory(sh.proc.host, v);
      default:
        return false;
    }
  }
  const [l = '', op, r = ''] = a;
  const n = (s: string) => Number.parseInt(s, 10);
  switch (op) {
    case '=':
    case '==':
      return l === r;
    case '!=':
      return l !== r;
    case '-eq':
      return n(l) === n(r);
    case '-ne':
      return n(l) !== n(r);
    case '-lt':
      return n(l) < n(r);
    case '-le':
      return n(l) <= n(r);
    case '-gt':
      return n(l) > n(r);
    case '-ge':
      return n(l) >= n(r);
    default:
      return false;
  }
}

/** busybox echo: `-n` drops the newline, `-e` interprets backslash escapes. */
function echoText(args: string[]): string {
  let newline = true;
  let escapes = false;
  while (args[0] && /^-[neE]+$/.test(args[0])) {
    const flags = args[0];
    if (flags.includes('n')) newline = false;
    if (flags.includes('e')) escapes = true;
    args = args.slice(1);
  }
  let text = args.join(' ');
  if (escapes) {
    const cut = text.indexOf('\\c');
    if (cut >= 0) {
      text = text.slice(0, cut);
      newline = false;
    }
    text = unescapeBackslashes(text);
  }
  return newline ? `${text}\n` : text;
}

function unescapeBackslashes(s: string): string {
  return s.replace(/\\([ntr\\])/g, (_m, c: string) => ({ n: '\n', t: '\t', r: '\r', '\\': '\\' })[c] ?? c);
}
