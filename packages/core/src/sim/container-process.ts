import type { Clock } from '../clock/clock.ts';
import { CriError, GrpcCode } from '../cri/types.ts';
import type { SimNetwork } from './network.ts';
import {
  basename,
  type ContainerHost,
  execNotFoundText,
  type Program,
  resolveExecutable,
} from './process.ts';
import type { ContainerRecord, SandboxRecord } from './sim-state.ts';

/**
 * Running programs inside a container record: the environment a process sees (ContainerHost), PID 1's
 * argv from the config and image (Docker semantics), and exec sessions. SimRuntime owns the records and
 * the exit bookkeeping; this file only starts and runs processes.
 */

export interface ProcessDeps {
  clock: Clock;
  net: SimNetwork;
  programs: ReadonlyMap<string, Program>;
}

/** PID 1's argv: command replaces the entrypoint (and drops the image Cmd); args replace the Cmd. */
export function containerArgv(c: ContainerRecord): string[] {
  const { command, args } = c.config;
  if (command.length > 0) return [...command, ...args];
  return [...c.image.entrypoint, ...(args.length > 0 ? args : c.image.cmd)];
}

/** Image env, then the config's envs, then HOSTNAME, as the runtime builds a process environment. */
export function containerEnv(c: ContainerRecord, sb: SandboxRecord): Map<string, string> {
  const env = new Map<string, string>();
  for (const kv of c.image.env) {
    const eq = kv.indexOf('=');
    env.set(kv.slice(0, eq), kv.slice(eq + 1));
  }
  env.set('HOSTNAME', hostnameOf(sb));
  for (const { key, value } of c.config.envs ?? []) env.set(key, value);
  return env;
}

function hostnameOf(sb: SandboxRecord): string {
  return sb.config.hostname || (sb.hostNetwork ? 'syncscope-node' : sb.config.metadata.name);
}

export function buildHost(
  deps: ProcessDeps,
  c: ContainerRecord,
  sb: SandboxRecord,
  kill: AbortSignal,
): ContainerHost {
  const limit = Number(c.config.linux?.resources?.memory_limit_in_bytes ?? '0') || 0;
  return {
    clock: deps.clock,
    kill,
    files: new Set(c.image.files),
    vfs: c.vfs,
    hostname: hostnameOf(sb),
    memoryLimitBytes: limit,
    oom: () => {
      c.oomKilled = true;
    },
    listen: (port, kind) => deps.net.listen(sb.netns, port, kind, c.id),
    httpGet: (host, port, path) => deps.net.httpGet(host, port, path, sb.netns),
    connect: (host, port) => deps.net.connect(host, port, sb.netns),
    programs: deps.programs,
  };
}

/** Finds PID 1's program, or returns runc's error text for an argv[0] that cannot be executed. */
export function resolveProgram(
  deps: ProcessDeps,
  c: ContainerRecord,
  argv: string[],
  env: Map<string, string>,
): { program: Program } | { error: string } {
  const name = argv[0] ?? '';
  const path = name ? resolveExecutable(new Set(c.image.files), name, env.get('PATH')) : undefined;
  const program = path ? deps.programs.get(basename(path)) : undefined;
  return program ? { program } : { error: execNotFoundText(name) };
}

/** The full StartContainer failure text containerd 1.6 + runc 1.1 give for an exec error. */
export function startErrorText(execError: string): string {
  return `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: ${execError}: unknown`;
}

/**
 * ExecSync: runs argv as a new process in the running container (no signals, its own stdio) and collects
 * its output. `timeoutS` > 0 bounds it on the clock: on expiry the process is killed and the call fails
 * DEADLINE_EXCEEDED, as containerd reports it. If the container dies meanwhile, the exec ends with 137.
 */
export async function execInContainer(
  deps: ProcessDeps,
  c: ContainerRecord,
  sb: SandboxRecord,
  argv: string[],
  timeoutS: number,
  execId: string,
  /** What the command reads on stdin, whole (an ExecSync has none). */
  stdin = '',
): Promise<{ stdout: string; stderr: string; exitCode: number }> {
  const running = c.proc;
  if (!running)
    throw new CriError(
      'ExecSync',
      GrpcCode.UNKNOWN,
      'failed to exec in container: container is in CONTAINER_EXITED state',
    );
  const name = argv[0] ?? '';
  const path = name ? resolveExecutable(new Set(c.image.files), name, c.env.get('PATH')) : undefined;
  const program = path ? deps.programs.get(basename(path)) : undefined;
  if (!program) {
    throw new CriError(
      'ExecSync',
      GrpcCode.UNKNOWN,
      `failed to exec in container: failed to start exec "${execId}": OCI runtime exec failed: exec failed: unable to start container process: ${execNotFoundText(name)}: unknown`,
    );
  }
  const ac = new AbortController();
  const onContainerKill = () => ac.abort();
  running.kill.signal.addEventListener('abort', onContainerKill, { once: true });
  let stdout = '';
  let stderr = '';
  const io = {
    out: (s: string) => {
      stdout += s;
    },
    err: (s: string) => {
      stderr += s;
    },
    stdin,
  };
  const host = buildHost(deps, c, sb, ac.signal);
  const run = program(argv, { host, io, env: new Map(c.env), signals: null }).then(
    (code) => ({ code }),
    (e: unknown) => {
      if (ac.signal.aborted) return { code: 137 };
      throw e;
    },
  );
  const timer = new AbortController();
  const timedOut =
    timeoutS > 0
      ? deps.clock.sleep(timeoutS * 1000, timer.signal).then(
          () => 'timeout' as const,
          () => 'cancelled' as const,
        )
      : new Promise<never>(() => undefined);
  try {
    const r = await Promise.race([run, timedOut]);
    if (r === 'timeout' || r === 'cancelled') {
      ac.abort();
      throw new CriError(
        'ExecSync',
        GrpcCode.DEADLINE_EXCEEDED,
        `failed to exec in container: timeout ${timeoutS}s exceeded: context deadline exceeded`,
      );
    }
    return { stdout, stderr, exitCode: r.code };
  } finally {
    timer.abort();
    running.kill.signal.removeEventListener('abort', onContainerKill);
  }
}
