/**
 * The real kubectl's exec and attach (a WebSocket, v5.channel.k8s.io) against the real server process on the
 * simulated node: the command's output, its exit code as kubectl's own, stdin read to its end, the
 * container's files (/etc/hostname is the pod's name), attach's live output, and the refusals kubectl prints
 * (a missing pod, an unknown container, a container not running).
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/until.ts';
import { type Kubectl, podManifest, startKubectl } from './kubectl-run.ts';

const cleanups: (() => Promise<void>)[] = [];
let k: Kubectl;

beforeAll(async () => {
  k = await startKubectl(cleanups);
  const file = join(k.dir, 'shell.yaml');
  await writeFile(file, podManifest('shell'));
  await k.ok(['apply', '-f', file]);
  await k.ok(['wait', '--for=condition=Ready', 'pod/shell', '--timeout=40s']);
}, 90_000);

afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** kubectl exec -i with `input` on its stdin (a shell pipe, as a user types it). */
function withStdin(input: string, args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      'kubectl',
      ['--kubeconfig', k.kubeconfig, '--request-timeout', '20s', 'exec', '-i', 'shell', '--', ...args],
      { cwd: k.dir, env: { PATH: process.env.PATH, HOME: join(k.dir, 'home'), KUBECONFIG: '' } },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(input);
  });
}

describe('kubectl exec on the simulated node', () => {
  it('prints what the command writes', async () => {
    const r = await k.run(['exec', 'shell', '--', 'echo', 'hi']);
    expect(r).toMatchObject({ code: 0, stdout: 'hi\n' });
  });

  it('reads the container: /etc/hostname is the pod name', async () => {
    expect(await k.ok(['exec', 'shell', '--', 'cat', '/etc/hostname'])).toBe('shell\n');
  });

  it("exits with the command's exit code", async () => {
    const r = await k.run(['exec', 'shell', '--', 'sh', '-c', 'echo oops >&2; exit 3']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('oops');
    expect(r.stderr).toContain('command terminated with exit code 3');
  });

  it('hands stdin to the command, whole', async () => {
    const r = await withStdin('data\nmore\n', ['cat']);
    expect(r).toMatchObject({ code: 0, stdout: 'data\nmore\n' });
  });

  it('a program the image lacks: kubectl says what the runtime said', async () => {
    const r = await k.run(['exec', 'shell', '--', 'nosuch']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('executable file not found');
  });

  it('a missing pod and an unknown container, in the apiserver words', async () => {
    const missing = await k.run(['exec', 'nope', '--', 'echo', 'hi']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('pods "nope" not found');
    const container = await k.run(['exec', 'shell', '-c', 'other', '--', 'echo', 'hi']);
    expect(container.code).toBe(1);
    expect(container.stderr).toContain('container other is not valid for pod shell');
  });

  it('attach shows what the container writes from then on', async () => {
    const file = join(k.dir, 'ticker.yaml');
    await writeFile(
      file,
      podManifest('ticker').replace('sleep 3600', 'while true; do echo tick; sleep 1; done'),
    );
    await k.ok(['apply', '-f', file]);
    await k.ok(['wait', '--for=condition=Ready', 'pod/ticker', '--timeout=40s']);
    const attached = k.watch(['attach', 'ticker']);
    await attached.seen(/tick\ntick\n/);
    attached.stop();
  });

  it('a container waiting in back-off: the kubelet says it is not found', async () => {
    const file = join(k.dir, 'crash.yaml');
    await writeFile(file, podManifest('crash').replace('sleep 3600', 'exit 1'));
    await k.ok(['apply', '-f', file]);
    const reason = [
      'get',
      'pod',
      'crash',
      '-o',
      'jsonpath={.status.containerStatuses[0].state.waiting.reason}',
    ];
    await until(
      'CrashLoopBackOff',
      async () => (await k.ok(reason)) === 'CrashLoopBackOff' || undefined,
      40_000,
      200,
    );
    const r = await k.run(['exec', 'crash', '--', 'echo', 'hi']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('unable to upgrade connection: container not found ("app")');
  });
});
