/**
 * The real kubectl (the one on PATH) against a real server process, for the kubectl e2e specs: one server on
 * the simulated node without a token, read through the kubeconfig it writes into its data dir; kubectl runs
 * with HOME in a temp dir, so nothing under ~/.kube is read or written, and its OpenAPI cache starts empty.
 * `watch` starts a long-running kubectl (`get -w`, `events -w`) and collects its output until it is stopped.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { type Agent, get } from 'node:http';
import { join } from 'node:path';
import { type ListeningServer, startServer, tempDir } from '../support/server-process.ts';
import { until } from '../support/until.ts';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Kubectl {
  server: ListeningServer;
  dir: string;
  kubeconfig: string;
  run(args: string[], env?: Record<string, string>): Promise<Run>;
  /** kubectl `args` must succeed; its stdout. */
  ok(args: string[]): Promise<string>;
  watch(args: string[]): Watching;
}

interface Watching {
  /** Everything printed so far. */
  out(): string;
  /** Resolves once the output matches `re`; rejects (with the output) after `ms`. */
  seen(re: RegExp, ms?: number): Promise<string>;
  stop(): void;
}

/** Starts the server and waits for its kubeconfig; `bin` is the kubectl binary to run (PATH's by default). */
export async function startKubectl(cleanups: (() => Promise<void>)[], bin = 'kubectl'): Promise<Kubectl> {
  const dir = await tempDir('syncscope-kubectl-', cleanups);
  const home = join(dir, 'home');
  mkdirSync(home);
  const server = await startServer(join(dir, 'data'), cleanups);
  const kubeconfig = join(dir, 'data', 'kubeconfig');
  await until('the kubeconfig', async () => (existsSync(kubeconfig) ? true : undefined), 30_000, 100);
  const env = (extra: Record<string, string>) => ({
    PATH: process.env.PATH,
    HOME: home,
    KUBECONFIG: '',
    ...extra,
  });
  const base = ['--kubeconfig', kubeconfig, '--request-timeout', '20s'];

  const run = (args: string[], extra: Record<string, string> = {}) =>
    new Promise<Run>((resolve) => {
      execFile(
        bin,
        [...base, ...args],
        { cwd: dir, env: env(extra), timeout: 60_000 },
        (err, stdout, stderr) => {
          const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
    });

  const watch = (args: string[]): Watching => {
    const proc: ChildProcess = spawn(bin, [...base, ...args], {
      cwd: dir,
      env: env({}),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const waiters = new Set<() => void>();
    const onData = (d: Buffer) => {
      out += d.toString();
      for (const w of [...waiters]) w();
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', onData);
    cleanups.push(async () => {
      proc.kill();
    });
    return {
      out: () => out,
      seen: (re, ms = 30_000) =>
        new Promise((resolve, reject) => {
          const check = () => {
            if (!re.test(out)) return;
            waiters.delete(check);
            clearTimeout(timer);
            resolve(out);
          };
          const timer = setTimeout(() => {
            waiters.delete(check);
            reject(new Error(`kubectl ${args.join(' ')} did not print ${re}; it printed:\n${out}`));
          }, ms);
          waiters.add(check);
          check();
        }),
      stop: () => proc.kill(),
    };
  };

  return {
    server,
    dir,
    kubeconfig,
    run,
    ok: async (args) => {
      const r = await run(args);
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
      return r.stdout;
    },
    watch,
  };
}

/** A pod manifest (YAML) that sleeps: `name`, `image`. */
export const podManifest = (name: string, image = 'busybox', extra = '') => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  terminationGracePeriodSeconds: 1${extra}
  containers:
  - name: app
    image: ${image}
    command: ["sh", "-c", "sleep 3600"]
`;

/**
 * Runs a client program (`interpreter script kubeconfig`) against the server in the kubectl dir, HOME there too,
 * and parses the one JSON object it prints: what each of its calls answered (test/e2e/clients/).
 */
export function runClientScript(
  k: Kubectl,
  interpreter: string,
  script: string,
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(
      interpreter,
      [script, k.kubeconfig],
      { cwd: k.dir, env: { PATH: process.env.PATH, HOME: k.dir }, timeout: 110_000 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${script}: ${err.message}\n${stderr}`));
        else resolve(JSON.parse(stdout) as Record<string, unknown>);
      },
    );
  });
}

/** GET `path` from 127.0.0.1:`port` through `agent` (a forwarded port, its connections kept as a browser keeps them). */
export function httpGet(port: number, path: string, agent: Agent) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    get({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}
