/**
 * The real kubectl writing pods: `apply` twice (the second is "unchanged"), `get -w` seeing a new pod, and
 * `delete` returning only once the pod is gone, with kubectl's default validation (left to the server, which
 * serves the OpenAPI documents kubectl reads to decide so).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ListeningServer, startServer, tempDir } from '../support/server-process.ts';

const run = promisify(execFile);
const cleanups: (() => Promise<void>)[] = [];
let server: ListeningServer;
let dir: string;
beforeAll(async () => {
  dir = await tempDir('syncscope-kubectl-', cleanups);
  server = await startServer(dir, cleanups);
});

afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** kubectl against the server, without a kubeconfig of the user's. */
function kubectl(...args: string[]) {
  return run('kubectl', ['--server', server.base, '--kubeconfig', '/dev/null', ...args], {
    cwd: dir,
    timeout: 60_000,
  });
}

const MANIFEST = `apiVersion: v1
kind: Pod
metadata:
  name: applied
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: busybox
    command: ["sh", "-c", "sleep 3600"]
`;

describe('kubectl writes', () => {
  it('apply twice: created, then unchanged', async () => {
    const file = join(dir, 'pod.yaml');
    await writeFile(file, MANIFEST);
    const first = await kubectl('apply', '-f', file);
    expect(first.stdout.trim()).toBe('pod/applied created');
    const second = await kubectl('apply', '-f', file);
    expect(second.stdout.trim()).toBe('pod/applied unchanged');
    await writeFile(file, MANIFEST.replace('image: busybox', 'image: busybox:latest'));
    const third = await kubectl('apply', '-f', file);
    expect(third.stdout.trim()).toBe('pod/applied configured');
  });

  it('get -w sees a pod created after it started', async () => {
    const proc: ChildProcess = spawn(
      'kubectl',
      ['--server', server.base, '--kubeconfig', '/dev/null', 'get', 'pods', '-w', '-o', 'name'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    cleanups.push(async () => {
      proc.kill();
    });
    let out = '';
    const seen = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`kubectl get -w printed: ${out}`)), 30_000);
      proc.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('pod/watched')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const file = join(dir, 'watched.yaml');
    await writeFile(file, MANIFEST.replace('name: applied', 'name: watched'));
    await kubectl('create', '-f', file);
    await seen;
    proc.kill();
  });

  it('delete returns once the pod is gone', async () => {
    const file = join(dir, 'gone.yaml');
    await writeFile(file, MANIFEST.replace('name: applied', 'name: gone'));
    await kubectl('create', '-f', file);
    const del = await kubectl('delete', 'pod', 'gone');
    expect(del.stdout.trim()).toBe('pod "gone" deleted');
    const res = await fetch(`${server.base}/api/v1/namespaces/default/pods/gone`);
    expect(res.status).toBe(404);
  });
});
