/**
 * The real kubectl's `cp` against the real server process on the simulated node, both ways: kubectl runs
 * `tar` in the container through exec (a WebSocket, v5.channel.k8s.io) and reads or writes the archive
 * itself, so what arrives is what the container's files hold.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Kubectl, podManifest, startKubectl } from './kubectl-run.ts';

const cleanups: (() => Promise<void>)[] = [];
let k: Kubectl;

beforeAll(async () => {
  k = await startKubectl(cleanups);
  const file = join(k.dir, 'box.yaml');
  writeFileSync(file, podManifest('box'));
  await k.ok(['apply', '-f', file]);
  await k.ok(['wait', '--for=condition=Ready', 'pod/box', '--timeout=40s']);
}, 90_000);

afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

describe('kubectl cp on the simulated node', () => {
  it('copies a file from the pod', async () => {
    await k.ok(['exec', 'box', '--', 'sh', '-c', 'echo "made in the pod" > /tmp/report.txt']);
    const dest = join(k.dir, 'report.txt');
    await k.ok(['cp', 'box:/tmp/report.txt', dest]);
    expect(readFileSync(dest, 'utf8')).toBe('made in the pod\n');
  });

  it('copies a file into the pod, by name and into a directory', async () => {
    const src = join(k.dir, 'notes.txt');
    writeFileSync(src, 'line one\nligne deux é\n');
    await k.ok(['cp', src, 'box:/tmp/notes.txt']);
    expect(await k.ok(['exec', 'box', '--', 'cat', '/tmp/notes.txt'])).toBe('line one\nligne deux é\n');
    await k.ok(['cp', src, 'box:/tmp']);
    expect(await k.ok(['exec', 'box', '--', 'cat', '/tmp/notes.txt'])).toBe('line one\nligne deux é\n');
  });

  it('copies a directory tree in and back out', async () => {
    const src = join(k.dir, 'site');
    mkdirSync(join(src, 'css'), { recursive: true });
    writeFileSync(join(src, 'index.html'), '<h1>hi</h1>\n');
    writeFileSync(join(src, 'css', 'main.css'), 'h1 { color: red }\n');
    await k.ok(['cp', src, 'box:/tmp/site']);
    expect(await k.ok(['exec', 'box', '--', 'cat', '/tmp/site/css/main.css'])).toBe('h1 { color: red }\n');
    const back = join(k.dir, 'site-back');
    await k.ok(['cp', 'box:/tmp/site', back]);
    expect(readFileSync(join(back, 'index.html'), 'utf8')).toBe('<h1>hi</h1>\n');
    expect(readFileSync(join(back, 'css', 'main.css'), 'utf8')).toBe('h1 { color: red }\n');
  });

  it('into a directory the pod does not have: kubectl prints what tar said, and fails', async () => {
    const src = join(k.dir, 'lost.txt');
    writeFileSync(src, 'x\n');
    const r = await k.run(['cp', src, 'box:/nowhere/at/all']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("tar: can't change directory to '/nowhere/at': No such file or directory");
  });
});
