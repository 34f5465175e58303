import type { ContainerHost, Program } from './process.ts';
import { readTar, type TarEntry, writeTar } from './tar-archive.ts';

/**
 * busybox `tar` over the container's files: `c` writes an archive of the named files and directories, `x`
 * extracts one into the files, `t` lists its members; `f -` (or no `f`) is stdin or stdout, `f PATH` a
 * file of the container; `-C DIR` is where names are taken from or extracted to. Options come bundled
 * (`cf`, `-xmf`) or apart; `m`, `o`, `p`, `v` and the `--no-same-*` options change nothing here (the
 * simulated files have no owners, modes or times). Leading '/' is dropped from member names, as busybox
 * does. What `kubectl cp` runs: `tar cf - SRC` and `tar -xmf - -C DIR`.
 *
 * The simulated files hold text: a member's data is kept as UTF-8 text, directories exist while a file is
 * in them (an empty one is not kept), and members that are neither files nor directories are skipped.
 */

const FILE_MODE = 0o644;
const DIR_MODE = 0o755;
/** Directories every simulated container has, files or not. */
const BASE_DIRS = new Set(['/', '/tmp', '/etc']);
const IGNORED_LONG_OPTIONS = new Set([
  '--no-same-owner',
  '--no-same-permissions',
  '--same-owner',
  '--same-permissions',
  '--overwrite',
  '--numeric-owner',
  '--touch',
]);

/** `p` made absolute against `cwd`, with '.', '..' and repeated slashes resolved. */
function resolvePath(cwd: string, p: string): string {
  const parts: string[] = [];
  for (const part of `${p.startsWith('/') ? '' : cwd}/${p}`.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

/** Whether `dir` is a directory of the container: a base directory, or one that holds a file. */
export function isDirectory(host: Pick<ContainerHost, 'vfs' | 'files'>, dir: string): boolean {
  const d = resolvePath('/', dir);
  if (BASE_DIRS.has(d)) return true;
  const under = `${d}/`;
  for (const k of host.vfs.keys()) if (k.startsWith(under)) return true;
  for (const k of host.files) if (k.startsWith(under)) return true;
  return false;
}

/** A file's text, or undefined when there is no such file (/etc/hostname is the container's hostname). */
function readFile(host: ContainerHost, path: string): string | undefined {
  if (path === '/etc/hostname') return `${host.hostname}\n`;
  return host.vfs.get(path);
}

interface TarArgs {
  mode?: 'c' | 'x' | 't';
  file: string;
  dir: string;
  names: string[];
}

function parseArgs(argv: string[]): TarArgs | { error: string } {
  const a: TarArgs = { file: '-', dir: '/', names: [] };
  const args = argv.slice(1);
  // old style: the first word is the bundled letters, with or without '-'
  if (args[0] !== undefined && !args[0].startsWith('-')) args[0] = `-${args[0]}`;
  for (let i = 0; i < args.length; i++) {
    const w = args[i] as string;
    if (w.startsWith('--')) {
      if (w.startsWith('--directory=')) a.dir = w.slice('--directory='.length);
      else if (!IGNORED_LONG_OPTIONS.has(w)) return { error: `unrecognized option '${w}'` };
      continue;
    }
    if (!w.startsWith('-') || w === '-') {
      a.names.push(w);
      continue;
    }
    for (const letter of w.slice(1)) {
      if (letter === 'c' || letter === 'x' || letter === 't') {
        if (a.mode && a.mode !== letter) return { error: 'only one of -c, -x or -t may be given' };
        a.mode = letter;
      } else if (letter === 'f' || letter === 'C') {
        const v = args[++i];
        if (v === undefined) return { error: `option requires an argument -- '${letter}'` };
        if (letter === 'f') a.file = v;
        else a.dir = v;
      } else if (!'mopv'.includes(letter)) return { error: `invalid option -- '${letter}'` };
    }
  }
  if (!a.mode) return { error: 'need one of -c, -x or -t' };
  return a;
}

/** The members for `name` (a file, or a directory and everything in it), or undefined if it is neither. */
function membersOf(host: ContainerHost, cwd: string, name: string, mtime: number): TarEntry[] | undefined {
  const abs = resolvePath(cwd, name);
  const member = name.replace(/^\/+/, '').replace(/\/+$/, '') || '.';
  const text = readFile(host, abs);
  if (text !== undefined)
    return [{ name: member, type: 'file', mode: FILE_MODE, mtime, data: Buffer.from(text) }];
  if (!isDirectory(host, abs)) return undefined;
  const out: TarEntry[] = [{ name: `${member}/`, type: 'dir', mode: DIR_MODE, mtime, data: Buffer.alloc(0) }];
  const under = abs === '/' ? '/' : `${abs}/`;
  const seen = new Set<string>();
  for (const key of [...host.vfs.keys()].filter((k) => k.startsWith(under)).sort()) {
    const rel = key.slice(under.length).split('/');
    for (let i = 1; i < rel.length; i++) {
      const d = `${member}/${rel.slice(0, i).join('/')}/`;
      if (seen.has(d)) continue;
      seen.add(d);
      out.push({ name: d, type: 'dir', mode: DIR_MODE, mtime, data: Buffer.alloc(0) });
    }
    const data = Buffer.from(host.vfs.get(key) ?? '');
    out.push({ name: `${member}/${rel.join('/')}`, type: 'file', mode: FILE_MODE, mtime, data });
  }
  return out;
}

export const tar: Program = async (argv, p) => {
  const a = parseArgs(argv);
  if ('error' in a) {
    p.io.err(`tar: ${a.error}\n`);
    return 1;
  }
  const { host } = p;
  const cwd = resolvePath('/', a.dir);
  if (!isDirectory(host, cwd)) {
    p.io.err(`tar: can't change directory to '${a.dir}': No such file or directory\n`);
    return 1;
  }
  if (a.mode === 'c') {
    let st = 0;
    const entries: TarEntry[] = [];
    if (a.names.some((n) => n.startsWith('/'))) p.io.err("tar: removing leading '/' from member names\n");
    const mtime = Math.floor(host.clock.now() / 1000);
    for (const n of a.names) {
      const m = membersOf(host, cwd, n, mtime);
      if (m) entries.push(...m);
      else {
        p.io.err(`tar: ${n}: No such file or directory\n`);
        st = 1;
      }
    }
    if (a.names.length === 0) {
      p.io.err('tar: empty archive\n');
      return 1;
    }
    if (st !== 0) p.io.err('tar: error exit delayed from previous errors\n');
    // every member is UTF-8 text and every header ASCII, so the archive is valid UTF-8 as a whole
    const text = writeTar(entries).toString('utf8');
    if (a.file === '-') p.io.out(text);
    else host.vfs.set(resolvePath('/', a.file), text);
    return st;
  }
  let input: string | undefined = p.io.stdin;
  if (a.file !== '-') input = readFile(host, resolvePath('/', a.file));
  if (input === undefined) {
    p.io.err(`tar: can't open '${a.file}': No such file or directory\n`);
    return 1;
  }
  const entries = readTar(Buffer.from(input));
  if ('error' in entries) {
    p.io.err(`tar: ${entries.error}\n`);
    return 1;
  }
  let st = 0;
  for (const e of entries) {
    if (a.mode === 't') {
      p.io.out(`${e.name}\n`);
      continue;
    }
    if (e.name.split('/').includes('..')) {
      p.io.err(`tar: skipping '${e.name}': a name with '..' leaves the directory\n`);
      st = 1;
      continue;
    }
    const dest = resolvePath(cwd, e.name.replace(/^\/+/, ''));
    if (e.type === 'file') host.vfs.set(dest, e.data.toString('utf8'));
    else if (e.type === 'other') p.io.err(`tar: ${e.name}: only files and directories are kept\n`);
  }
  return st;
};
