import { builtins } from './builtins.ts';
import { basename, type Proc, resolveExecutable, ShellExit, type Stdio } from './process.ts';
import { parseScript, ShellSyntaxError, type ShNode, type Word } from './shell-parse.ts';

/**
 * A busybox-ash-like shell running one script in a simulated container.
 *
 * Signals, as ash handles them: when the shell is PID 1 and `trap '<cmds>' TERM` is set, a SIGTERM only
 * marks the trap pending; it runs when the current foreground command returns (so `sleep 10` finishes
 * first), or at once if the shell is in `wait`. With no trap, SIGTERM to PID 1 is ignored.
 *
 * A loop iteration that takes no clock time costs BUSY_LOOP_TICK_MS of it, so `while true; do :; done`
 * spins on the clock instead of starving the event loop.
 */
const BUSY_LOOP_TICK_MS = 10;

export class Shell {
  readonly vars = new Map<string, string>();
  status = 0;
  private termPending = false;
  private trapTerm: string | null = null;
  private wakeWait: (() => void) | null = null;
  private readonly jobs = new Set<Promise<number>>();

  constructor(
    readonly proc: Proc,
    /** $0, $1, ... */
    readonly args: string[] = ['sh'],
  ) {}

  /** Runs a script to completion; resolves with the shell's exit status. Rejects only on kill (AbortError). */
  async run(src: string): Promise<number> {
    let tree: ShNode;
    try {
      tree = parseScript(src);
    } catch (e) {
      if (!(e instanceof ShellSyntaxError)) throw e;
      this.proc.io.err(`sh: ${e.message}\n`);
      return 2;
    }
    try {
      // ash runs the last command of `sh -c` in place of itself (exec), so that program becomes PID 1.
      return await this.exec(tree, this.proc.io, true);
    } catch (e) {
      if (e instanceof ShellExit) return e.code;
      throw e;
    }
  }

  // --- signals -----------------------------------------------------------------------------------------

  setTrap(cmds: string | null): void {
    this.trapTerm = cmds;
    const box = this.proc.signals;
    if (!box) return;
    box.setHandler(
      cmds === null || cmds === ''
        ? null
        : () => {
            this.termPending = true;
            this.wakeWait?.();
          },
    );
  }

  /** Runs a pending trap. Called after each foreground command and at loop boundaries. */
  private async checkTraps(io: Stdio): Promise<void> {
    if (!this.termPending) return;
    this.termPending = false;
    const cmds = this.trapTerm;
    if (!cmds) return;
    const saved = this.status;
    await this.exec(parseScript(cmds), io, false);
    this.status = saved;
  }

  /** `wait`: for every background job, or until a trapped signal arrives. */
  async waitJobs(io: Stdio): Promise<number> {
    if (this.termPending) {
      await this.checkTraps(io);
      return 128 + 15;
    }
    const woke = new Promise<'signal'>((r) => {
      this.wakeWait = () => r('signal');
    });
    const done = Promise.all([...this.jobs]).then(() => 'done' as const);
    const kill = new Promise<never>((_, rej) =>
      this.proc.host.kill.addEventListener('abort', () => rej(new Error('killed')), { once: true }),
    );
    const r = await Promise.race([woke, done, kill]);
    this.wakeWait = null;
    if (r === 'signal') {
      await this.checkTraps(io);
      return 128 + 15;
    }
    return 0;
  }

  // --- evaluation --------------------------------------------------------------------------------------

  /** `tail`: the node is the last thing this shell runs (ash execs it in its own place). */
  async exec(node: ShNode, io: Stdio, tail: boolean): Promise<number> {
    switch (node.k) {
      case 'list': {
        let st = this.status;
        for (let i = 0; i < node.items.length; i++) {
          const item = node.items[i] as { node: ShNode; bg: boolean };
          if (item.bg) {
            const job = this.exec(item.node, io, false).catch(() => 1);
            this.jobs.add(job);
            void job.finally(() => this.jobs.delete(job));
            st = 0;
          } else st = await this.exec(item.node, io, tail && i === node.items.length - 1);
          this.status = st;
        }
        return st;
      }
      case 'and':
      case 'or': {
        const l = await this.exec(node.left, io, false);
        this.status = l;
        if ((node.k === 'and') === (l === 0)) return this.exec(node.right, io, tail);
        return l;
      }
      case 'not':
        return (await this.exec(node.body, io, false)) === 0 ? 1 : 0;
      case 'pipe': {
        // Stages run one after another; each stage's stdout is the next one's stdin.
        let input = io.stdin;
        let st = 0;
        for (let i = 0; i < node.cmds.length; i++) {
          const last = i === node.cmds.length - 1;
          let buf = '';
          const stage: Stdio = { out: last ? io.out : (s) => (buf += s), err: io.err, stdin: input };
          st = await this.exec(node.cmds[i] as ShNode, stage, false);
          input = buf;
        }
        return st;
      }
      case 'while': {
        let st = 0;
        for (;;) {
          const t0 = this.proc.host.clock.now();
          const c = await this.exec(node.cond, io, false);
          if ((c === 0) === node.until) break;
          st = await this.exec(node.body, io, false);
          this.status = st;
          await this.checkTraps(io);
          if (this.proc.host.clock.now() === t0)
            await this.proc.host.clock.sleep(BUSY_LOOP_TICK_MS, this.proc.host.kill);
        }
        return st;
      }
      case 'if': {
        const c = await this.exec(node.cond, io, false);
        if (c === 0) return this.exec(node.then, io, tail);
        return node.else ? this.exec(node.else, io, tail) : 0;
      }
      case 'for': {
        let st = 0;
        for (const w of node.items) {
          this.vars.set(node.name, this.expand(w));
          st = await this.exec(node.body, io, false);
          this.status = st;
        }
        return st;
      }
      case 'group':
        return this.exec(node.body, io, tail && !node.subshell);
      case 'simple': {
        const st = await this.simple(node, io, tail);
        this.status = st;
        await this.checkTraps(io);
        return st;
      }
    }
  }

  expand(w: Word): string {
    let s = '';
    for (const p of w.parts) {
      if (p.t === 'lit') s += p.v;
      else s += this.lookupVar(p.name);
    }
    return s;
  }

  private lookupVar(name: string): string {
    if (name === '?') return String(this.status);
    if (name === '$') return '1';
    if (name === '#') return String(Math.max(0, this.args.length - 1));
    if (/^[0-9]$/.test(name)) return this.args[Number(name)] ?? '';
    return this.vars.get(name) ?? this.proc.env.get(name) ?? '';
  }

  private async simple(node: Extract<ShNode, { k: 'simple' }>, io0: Stdio, tail: boolean): Promise<number> {
    const argv = node.words.map((w) => this.expand(w));
    const assigns = node.assigns.map((a) => [a.name, this.expand(a.value)] as const);
    const io = this.redirect(node.redirs, io0);
    if (!io) return 1;
    if (argv.length === 0) {
      for (const [k, v] of assigns) this.vars.set(k, v);
      return 0;
    }
    const name = argv[0] as string;
    const builtin = builtins.get(name);
    if (builtin) return builtin(argv, this, io);
    const host = this.proc.host;
    const env = new Map(this.proc.env);
    for (const [k, v] of this.vars) if (this.proc.env.has(k)) env.set(k, v);
    for (const [k, v] of assigns) env.set(k, v);
    const path = resolveExecutable(host.files, name, env.get('PATH'));
    const program = path ? host.programs.get(basename(path)) : undefined;
    if (!path || !program) {
      io.err(`sh: ${name}: not found\n`);
      return 127;
    }
    // Without a trap, the tail command replaces the shell and so receives PID 1's signals itself.
    const signals = tail && !this.trapTerm ? this.proc.signals : null;
    return program(argv, { host, io, env, signals });
  }

  /** Applies redirections; returns null (after reporting) when a target cannot be opened. */
  private redirect(redirs: Extract<ShNode, { k: 'simple' }>['redirs'], io: Stdio): Stdio | null {
    if (redirs.length === 0) return io;
    const fds: Record<number, (s: string) => void> = { 1: io.out, 2: io.err };
    let stdin = io.stdin;
    const vfs = this.proc.host.vfs;
    for (const r of redirs) {
      const target = this.expand(r.target);
      if (r.op === '>&') {
        const src = fds[Number(target)];
        if (target === '-' || !src) fds[r.fd] = () => undefined;
        else fds[r.fd] = src;
      } else if (r.op === '<') {
        if (target === '/dev/null') stdin = '';
        else if (vfs.has(target)) stdin = vfs.get(target) ?? '';
        else {
          io.err(`sh: can't open '${target}': No such file or directory\n`);
          return null;
        }
      } else if (target === '/dev/null') fds[r.fd] = () => undefined;
      else if (target === '/dev/stderr') fds[r.fd] = io.err;
      else if (target === '/dev/stdout') fds[r.fd] = io.out;
      else {
        if (r.op === '>' || !vfs.has(target)) vfs.set(target, '');
        fds[r.fd] = (s) => vfs.set(target, (vfs.get(target) ?? '') + s);
      }
    }
    return { out: fds[1] ?? io.out, err: fds[2] ?? io.err, stdin };
  }
}
