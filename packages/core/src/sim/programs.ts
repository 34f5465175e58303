import { builtins } from './builtins.ts';
import { Shell } from './interpreter.ts';
import { basename, blockForever, type Proc, type Program, resolveExecutable } from './process.ts';
import { tar } from './tar.ts';

/**
 * The executables the simulated images carry, by basename. Adding a command is one entry here (and its
 * path in the image's file list in images.ts). Each program honours `p.host.kill` in every wait and, if it
 * handles SIGTERM as PID 1 (nginx, pause), installs a handler on `p.signals`.
 */

/** `tail /dev/zero` under a memory limit: the cgroup OOM killer fires about this long after it starts. */
const OOM_KILL_AFTER_MS = 100;

export function defaultPrograms(): Map<string, Program> {
  const m = new Map<string, Program>();
  m.set('sh', sh);
  m.set('ash', sh);
  m.set('sleep', sleep);
  m.set('tail', tail);
  m.set('cat', cat);
  m.set('tar', tar);
  m.set('httpd', httpd);
  m.set('nc', nc);
  m.set('wget', wget);
  m.set('nginx', nginx);
  m.set('docker-entrypoint.sh', entrypoint);
  m.set('pause', pause);
  m.set('env', async (_a, p) => {
    for (const [k, v] of p.env) p.io.out(`${k}=${v}\n`);
    return 0;
  });
  m.set('hostname', async (_a, p) => {
    p.io.out(`${p.host.hostname}\n`);
    return 0;
  });
  m.set('touch', async (a, p) => {
    for (const f of a.slice(1).filter((x) => !x.startsWith('-')))
      if (!p.host.vfs.has(f)) p.host.vfs.set(f, '');
    return 0;
  });
  m.set('rm', async (a, p) => {
    const force = a.slice(1).some((x) => /^-[rRf]*f/.test(x));
    let st = 0;
    for (const f of a.slice(1).filter((x) => !x.startsWith('-'))) {
      if (!p.host.vfs.delete(f) && !force) {
        p.io.err(`rm: can't remove '${f}': No such file or directory\n`);
        st = 1;
      }
    }
    return st;
  });
  m.set('ls', async (a, p) => {
    const dir = (a.slice(1).find((x) => !x.startsWith('-')) ?? '/').replace(/\/$/, '');
    const names = [...p.host.vfs.keys(), ...p.host.files]
      .filter((f) => f.startsWith(`${dir}/`))
      .map((f) => f.slice(dir.length + 1).split('/')[0]);
    for (const n of [...new Set(names)].sort()) p.io.out(`${n}\n`);
    return 0;
  });
  m.set('date', async (_a, p) => {
    const d = new Date(p.host.clock.now());
    const [wd, day, mon, year, time] = d.toUTCString().replace(',', '').split(' ');
    p.io.out(`${wd} ${mon} ${day} ${time} UTC ${year}\n`);
    return 0;
  });
  m.set('mkdir', async () => 0);
  m.set('id', async (_a, p) => {
    p.io.out('uid=0(root) gid=0(root) groups=0(root),10(wheel)\n');
    return 0;
  });
  m.set('whoami', async (_a, p) => {
    p.io.out('root\n');
    return 0;
  });
  // Shell builtins that are also applets, for when they run without a shell (PID 1 or ExecSync argv).
  for (const name of ['echo', 'true', 'false', 'printf', 'test', '[', 'pwd', 'kill']) {
    const b = builtins.get(name);
    if (b) m.set(name, async (argv, p) => b(argv, new Shell(p), p.io));
  }
  return m;
}

const sh: Program = async (argv, p) => {
  const args = argv.slice(1);
  while (args[0] && /^-[a-z]+$/.test(args[0]) && !args[0].includes('c')) args.shift();
  const first = args[0];
  if (first === undefined) {
    // No tty and no stdin: the shell reads EOF and exits (the busybox image's default Cmd).
    return p.io.stdin ? new Shell(p).run(p.io.stdin) : 0;
  }
  if (/^-[a-z]*c[a-z]*$/.test(first)) {
    const script = args[1];
    if (script === undefined) {
      p.io.err('sh: -c requires an argument\n');
      return 2;
    }
    return new Shell(p, args.length > 2 ? args.slice(2) : ['sh']).run(script);
  }
  const text = p.host.vfs.get(first);
  if (text === undefined) {
    p.io.err(`sh: can't open '${first}': No such file or directory\n`);
    return 2;
  }
  return new Shell(p, args).run(text);
};

/** busybox sleep: sums its operands; each may be fractional and carry an s/m/h/d suffix; `inf` never ends. */
const sleep: Program = async (argv, p) => {
  const ops = argv.slice(1);
  if (ops.length === 0) {
    p.io.err('BusyBox v1.35.0 multi-call binary.\n\nUsage: sleep [N]...\n');
    return 1;
  }
  let ms = 0;
  for (const op of ops) {
    if (/^inf(inity)?$/i.test(op)) return blockForever(p.host.kill);
    const m = /^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$/.exec(op);
    if (!m) {
      p.io.err(`sleep: invalid number '${op}'\n`);
      return 1;
    }
    const unit = { '': 1000, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[
      m[2] as '' | 's' | 'm' | 'h' | 'd'
    ];
    ms += Number(m[1]) * unit;
  }
  await p.host.clock.sleep(ms, p.host.kill);
  return 0;
};

const tail: Program = async (argv, p) => {
  const follow = argv.includes('-f') || argv.includes('-F');
  const files = argv.slice(1).filter((a, i, all) => !a.startsWith('-') && all[i - 1] !== '-n');
  const file = files[0];
  if (file === '/dev/zero') {
    // Reads /dev/zero into memory until the cgroup limit (if any) makes the kernel kill it.
    if (p.host.memoryLimitBytes <= 0) return blockForever(p.host.kill);
    await p.host.clock.sleep(OOM_KILL_AFTER_MS, p.host.kill);
    p.host.oom();
    return 137;
  }
  if (file !== undefined && file !== '/dev/null' && !p.host.vfs.has(file)) {
    p.io.err(`tail: can't open '${file}': No such file or directory\ntail: no files\n`);
    return 1;
  }
  const text = file === undefined ? p.io.stdin : (p.host.vfs.get(file) ?? '');
  const count = Number(optValue(argv, '-n') ?? 10);
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (text && count > 0) p.io.out(`${lines.slice(-count).join('\n')}\n`);
  return follow ? blockForever(p.host.kill) : 0;
};

const cat: Program = async (argv, p) => {
  const files = argv.slice(1).filter((a) => !a.startsWith('-') || a === '-');
  if (files.length === 0) {
    p.io.out(p.io.stdin);
    return 0;
  }
  let st = 0;
  for (const f of files) {
    if (f === '-') p.io.out(p.io.stdin);
    else if (f === '/dev/null') continue;
    else if (f === '/etc/hostname') p.io.out(`${p.host.hostname}\n`);
    else if (p.host.vfs.has(f)) p.io.out(p.host.vfs.get(f) ?? '');
    else {
      p.io.err(`cat: can't open '${f}': No such file or directory\n`);
      st = 1;
    }
  }
  return st;
};

function optValue(argv: string[], flag: string): string | undefined {
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === flag) return argv[i + 1];
    if (a.startsWith(flag) && a.length > flag.length) return a.slice(flag.length);
    // clustered short options ending in the flag letter: `-lp 8080`
    if (/^-[a-z]+$/.test(a) && a.endsWith(flag.slice(1)) && flag.length === 2) return argv[i + 1];
  }
  return undefined;
}

/** busybox httpd: `-p [ip:]port` (default 80); `-f` stays in the foreground, otherwise it daemonises. */
const httpd: Program = async (argv, p) => {
  const port = Number((optValue(argv, '-p') ?? '80').split(':').pop());
  const release = p.host.listen(port, 'http');
  if (!release) {
    p.io.err('httpd: bind: Address in use\n');
    return 1;
  }
  if (!argv.includes('-f')) return 0; // the daemon keeps the port until the container dies
  return blockForever(p.host.kill).finally(release);
};

/** busybox nc: `-l -p port` listens; `nc [-z] host port` connects. */
const nc: Program = async (argv, p) => {
  if (argv.some((a) => /^-[a-z]*l/.test(a))) {
    const port = Number(optValue(argv, '-p') ?? argv[argv.length - 1]);
    const release = p.host.listen(port, 'tcp');
    if (!release) {
      p.io.err('nc: bind: Address in use\n');
      return 1;
    }
    return blockForever(p.host.kill).finally(release);
  }
  const [host = '', port = ''] = argv.slice(1).filter((a) => !a.startsWith('-'));
  try {
    await p.host.connect(host, Number(port));
    return 0;
  } catch {
    p.io.err(`nc: can't connect to remote host (${host}): Connection refused\n`);
    return 1;
  }
};

/** busybox wget: `-O-` (or `-O -`) prints the body, `-q` is quiet, `--spider` fetches nothing. */
const wget: Program = async (argv, p) => {
  const raw = argv.slice(1).find((a) => /^https?:\/\//.test(a) || (!a.startsWith('-') && a.includes(':')));
  if (!raw) {
    p.io.err('BusyBox v1.35.0 multi-call binary.\n\nUsage: wget [-cqS] [--spider] [-O FILE] URL...\n');
    return 1;
  }
  const url = new URL(raw.includes('://') ? raw : `http://${raw}`);
  const port = Number(url.port || 80);
  try {
    const r = await p.host.httpGet(url.hostname, port, url.pathname + url.search);
    if (r.status >= 400) {
      p.io.err(
        `wget: server returned error: HTTP/1.1 ${r.status} ${r.status === 404 ? 'Not Found' : 'Error'}\n`,
      );
      return 1;
    }
    if (argv.includes('--spider')) return 0;
    const out = optValue(argv, '-O');
    if (out === '-') p.io.out(r.body);
    else p.host.vfs.set(out ?? 'index.html', r.body);
    return 0;
  } catch {
    p.io.err(`wget: can't connect to remote host (${url.hostname}): Connection refused\n`);
    return 1;
  }
};

/** Waits for SIGTERM (if this process receives signals) or SIGKILL; resolves with `termStatus` on TERM. */
function untilTerm(p: Proc, termStatus: number): Promise<number> {
  const killed = blockForever(p.host.kill);
  if (!p.signals) return killed;
  const box = p.signals;
  const term = new Promise<number>((resolve) => box.setHandler(() => resolve(termStatus)));
  return Promise.race([killed, term]);
}

/** nginx in the foreground: serves HTTP on :80 and shuts down cleanly (exit 0) on SIGTERM. */
const nginx: Program = async (_argv, p) => {
  const release = p.host.listen(80, 'http');
  if (!release) {
    p.io.err('nginx: [emerg] bind() to 0.0.0.0:80 failed (98: Address already in use)\n');
    return 1;
  }
  return untilTerm(p, 0).finally(release);
};

/** The nginx image's entrypoint: prints its banner and execs its arguments in its own place. */
const entrypoint: Program = async (argv, p) => {
  const rest = argv.slice(1);
  const name = rest[0];
  if (name === undefined) return 0;
  const path = resolveExecutable(p.host.files, name, p.env.get('PATH'));
  const program = path ? p.host.programs.get(basename(path)) : undefined;
  if (!program) {
    p.io.err(`/docker-entrypoint.sh: exec: line 47: ${name}: not found\n`);
    return 127;
  }
  if (name === 'nginx') p.io.out('/docker-entrypoint.sh: Configuration complete; ready for start up\n');
  return program(rest, p);
};

/** The pause container: sleeps until SIGTERM/SIGINT and exits 0. */
const pause: Program = (_argv, p) => untilTerm(p, 0);
