import type { Clock } from '../clock/clock.ts';
import { abortError } from '../clock/clock.ts';

/**
 * What a simulated process sees of its container. A process is an async function on the runtime's clock,
 * never a real OS process: `sleep 5` is `clock.sleep(5000, kill)`, a blocked `tail -f` is a promise that
 * only the kill signal settles.
 *
 * Who creates these: SimRuntime, once per container (PID 1) and once per ExecSync. Every wait a program
 * makes must pass `kill` so SIGKILL (StopContainer grace expiry, StopPodSandbox, exec timeout) ends it at
 * once; the runtime records the exit itself and ignores whatever the killed program does afterwards.
 */
export interface ContainerHost {
  readonly clock: Clock;
  /** Aborted when the process (or, for PID 1, the whole container) is SIGKILLed. */
  readonly kill: AbortSignal;
  /** Executable paths in the image. */
  readonly files: ReadonlySet<string>;
  /** The container's writable files (`echo x > /tmp/f`, `touch`, `cat`). Shared by PID 1 and execs. */
  readonly vfs: Map<string, string>;
  readonly hostname: string;
  /** linux.resources.memory_limit_in_bytes, 0 when unlimited. */
  readonly memoryLimitBytes: number;
  /** The cgroup saw an OOM kill (sets the container's reason to OOMKilled). */
  oom(): void;
  /** Binds a port in the pod's network namespace; returns a release function, or null if the port is taken. */
  listen(port: number, kind: ListenerKind): (() => void) | null;
  /** The pod network as seen from inside: HTTP GET and TCP connect to `host:port`. */
  httpGet(host: string, port: number, path: string): Promise<HttpResult>;
  connect(host: string, port: number): Promise<void>;
  /** Programs by executable basename. */
  readonly programs: ReadonlyMap<string, Program>;
}

export type ListenerKind = 'http' | 'tcp';
export interface HttpResult {
  status: number;
  body: string;
}

export interface Stdio {
  out(s: string): void;
  err(s: string): void;
  stdin: string;
}

/**
 * A running process: its container, its stdio, its environment and, for PID 1 only, the signal box the
 * runtime delivers SIGTERM to (containerd signals PID 1 alone).
 */
export interface Proc {
  host: ContainerHost;
  io: Stdio;
  env: Map<string, string>;
  signals: SignalBox | null;
}

/** A program: argv in, exit status out. It may write to p.io and must honour p.host.kill in every wait. */
export type Program = (argv: string[], p: Proc) => Promise<number>;

/**
 * SIGTERM delivery to PID 1. Without a handler the signal is dropped: a process that is PID 1 in its pid
 * namespace and installed no handler never sees SIGTERM (busybox sh and sleep behave this way), so its
 * container uses the whole grace period and is SIGKILLed.
 */
export class SignalBox {
  private handler: (() => void) | null = null;

  setHandler(h: (() => void) | null): void {
    this.handler = h;
  }

  get handled(): boolean {
    return this.handler !== null;
  }

  /** Returns whether anything handled the signal. */
  deliverTerm(): boolean {
    if (!this.handler) return false;
    this.handler();
    return true;
  }
}

/** Thrown by `exit N` (and by `exec`) to unwind to the top of a script. */
export class ShellExit {
  constructor(readonly code: number) {}
}

/** Resolves never; rejects when the signal aborts. */
export function blockForever(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) return reject(abortError());
    signal.addEventListener('abort', () => reject(abortError()), { once: true });
  });
}

const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Finds an executable like execvp: a name with a slash is taken as a path, otherwise searched in PATH. */
export function resolveExecutable(
  files: ReadonlySet<string>,
  name: string,
  path = DEFAULT_PATH,
): string | undefined {
  if (name.includes('/')) {
    const norm = name.startsWith('./') ? `/${name.slice(2)}` : name;
    return files.has(norm) ? norm : undefined;
  }
  for (const dir of path.split(':')) {
    const full = `${dir.replace(/\/$/, '')}/${name}`;
    if (files.has(full)) return full;
  }
  return undefined;
}

export function basename(p: string): string {
  const i = p.lastIndexOf('/');
  return i >= 0 ? p.slice(i + 1) : p;
}

/** The runc text for an argv[0] that cannot be executed (what StartContainer and ExecSync report). */
export function execNotFoundText(name: string): string {
  return name.includes('/')
    ? `exec: "${name}": stat ${name}: no such file or directory`
    : `exec: "${name}": executable file not found in $PATH`;
}
