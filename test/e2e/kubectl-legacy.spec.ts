/**
 * Debian 12's kubectl (kubernetes-client 1.20, what `apt install` gives; scripts/kubectl-legacy.sh finds or
 * unpacks it) against the real server process on the simulated node. Its reads, writes, watches (`get -w` while
 * pods churn) and logs (`-f`, `--previous`) are plain HTTP, with its default client-side validation: it reads the
 * OpenAPI v2 document in its protobuf form to check a manifest (refusing an unknown field in its own words), build
 * apply's patches and answer `explain`. Its exec, attach, cp and port-forward speak SPDY/3.1 over an HTTP upgrade,
 * the only way it knows: the command's output and exit code, stdin read to its end, files both ways, attach's live
 * output, bytes through a forwarded port, and a missing pod refused in the words kubectl prints.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/until.ts';
import { httpGet, type Kubectl, podManifest, startKubectl } from './kubectl-run.ts';

const cleanups: (() => Promise<void>)[] = [];
let k: Kubectl;
let bin: string;
beforeAll(async () => {
  bin = execFileSync(join(import.meta.dirname, '../../scripts/kubectl-legacy.sh'), {
    encoding: 'utf8',
  }).trim();
  k = await startKubectl(cleanups, bin);
  const file = join(k.dir, 'box.yaml');
  writeFileSync(file, podManifest('box', 'busybox').replace('sleep 3600', 'httpd -p 8080; sleep 3600'));
  await k.ok(['create', '-f', file]);
  await k.ok(['wait', '--for=condition=Ready', 'pod/box', '--timeout=40s']);
}, 120_000);

afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** kubectl 1.20 `exec -i box -- args` with `input` on its stdin, as a shell pipe gives it. */
function withStdin(input: string, args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      bin,
      ['--kubeconfig', k.kubeconfig, '--request-timeout', '20s', 'exec', '-i', 'box', '--', ...args],
      {
        cwd: k.dir,
        env: { PATH: process.env.PATH, HOME: join(k.dir, 'home'), KUBECONFIG: '' },
        timeout: 60_000,
      },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(input);
  });
}

/** Writes `text` to `<name>.yaml` in the kubectl dir; its path. */
function manifest(name: string, text: string): string {
  const file = join(k.dir, `${name}.yaml`);
  writeFileSync(file, text);
  return file;
}

/**
 * `get -o yaml`, the image changed, `replace -f` with it, as a user does it. A replace carrying the
 * resourceVersion it read is a 409 Conflict when the pod's status moved meanwhile: read again and retry.
 */
async function replaceImage(name: string, image: string): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const live = await k.ok(['get', 'pod', name, '-o', 'yaml']);
    const r = await k.run([
      'replace',
      '-f',
      manifest(name, live.replace(/image: busybox$/m, `image: ${image}`)),
    ]);
    if (r.code === 0) return r.stdout;
    if (attempt === 5 || !/\(Conflict\)/.test(r.stderr))
      throw new Error(`kubectl replace failed (${r.code}): ${r.stderr}`);
  }
}

describe('kubectl 1.20 on the simulated node', () => {
  it('is the 1.20 client', async () => {
    expect(await k.ok(['version', '--client', '--short'])).toMatch(/Client Version: v1\.20\./);
  });

  it('lists, gets, reads logs, creates and deletes pods', async () => {
    expect(await k.ok(['get', 'pods'])).toMatch(/^box\s+1\/1\s+Running/m);
    expect(await k.ok(['get', 'pod', 'box', '-o', 'jsonpath={.spec.containers[0].image}'])).toBe('busybox');
    const file = join(k.dir, 'talker.yaml');
    writeFileSync(file, podManifest('talker').replace('sleep 3600', 'echo said-once; sleep 3600'));
    expect(await k.ok(['create', '-f', file])).toContain('pod/talker created');
    await k.ok(['wait', '--for=condition=Ready', 'pod/talker', '--timeout=40s']);
    expect(await k.ok(['logs', 'talker'])).toBe('said-once\n');
    expect(await k.ok(['delete', 'pod', 'talker', '--wait=false'])).toContain('pod "talker" deleted');
  });

  it('get pods -w prints a row for each change while pods churn', async () => {
    const w = k.watch(['get', 'pods', '-w']);
    await w.seen(/^box\s+1\/1\s+Running/m);
    await k.ok(['create', '-f', manifest('churn', podManifest('churn'))]);
    await w.seen(/^churn\s+1\/1\s+Running\s+0\s+\S+$/m, 60_000);
    await k.ok(['delete', 'pod', 'churn', '--wait=false']);
    await w.seen(/^churn\s+\S+\s+Terminating/m, 60_000);
    w.stop();
  });

  it('logs -f follows a container to its end; --previous reads the run before', async () => {
    const script = (name: string, sh: string, policy: string) =>
      manifest(name, podManifest(name, 'busybox', `\n  restartPolicy: ${policy}`).replace('sleep 3600', sh));
    await k.ok(['create', '-f', script('follow', 'echo tick-1; sleep 2; echo tick-2', 'Never')]);
    await until(
      'the first tick',
      async () => ((await k.run(['logs', 'follow'])).stdout.includes('tick-1') ? true : undefined),
      60_000,
      200,
    );
    // still running here: the rest arrives through the open answer, which ends with the container
    expect(await k.ok(['logs', 'follow', '-f'])).toBe('tick-1\ntick-2\n');
    await k.ok(['create', '-f', script('crash', 'echo boom; exit 1', 'Always')]);
    const previous = await until(
      'a previous run of crash',
      async () => {
        const r = await k.run(['logs', 'crash', '--previous']);
        return r.code === 0 ? r.stdout : undefined;
      },
      60_000,
      500,
    );
    expect(previous).toBe('boom\n');
  });

  it('creates, applies (created, then configured) and replaces pods with its validation on', async () => {
    expect(await k.ok(['create', '-f', manifest('made', podManifest('made'))])).toBe('pod/made created\n');
    expect(await k.ok(['apply', '-f', manifest('applied', podManifest('applied'))])).toBe(
      'pod/applied created\n',
    );
    const labelled = podManifest('applied').replace(
      '  name: applied\n',
      '  name: applied\n  labels:\n    tier: web\n',
    );
    expect(await k.ok(['apply', '-f', manifest('applied', labelled)])).toBe('pod/applied configured\n');
    expect(await k.ok(['get', 'pod', 'applied', '-o', 'jsonpath={.metadata.labels.tier}'])).toBe('web');
    expect(await replaceImage('made', 'busybox:1.37')).toBe('pod/made replaced\n');
    expect(await k.ok(['get', 'pod', 'made', '-o', 'jsonpath={.spec.containers[0].image}'])).toBe(
      'busybox:1.37',
    );
  });

  it('edit saves a change through the editor', async () => {
    await k.ok(['create', '-f', manifest('edited', podManifest('edited'))]);
    const retag = join(k.dir, 'retag.sh');
    writeFileSync(retag, `#!/bin/sh\nsed -i 's/image: busybox$/image: busybox:1.37/' "$1"\n`);
    expect(await k.run(['edit', 'pod', 'edited'], { KUBE_EDITOR: `sh ${retag}` })).toMatchObject({
      code: 0,
      stdout: 'pod/edited edited\n',
    });
    expect(await k.ok(['get', 'pod', 'edited', '-o', 'jsonpath={.spec.containers[0].image}'])).toBe(
      'busybox:1.37',
    );
  });

  it('refuses a misspelt field in its own words, creating nothing', async () => {
    const bad = manifest('typo', podManifest('typo').replace('    image: busybox', '    imagee: busybox'));
    const r = await k.run(['create', '-f', bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'error validating data: ValidationError(Pod.spec.containers[0]): unknown field "imagee" in io.k8s.api.core.v1.Container',
    );
    expect((await k.run(['get', 'pod', 'typo'])).stderr).toContain('pods "typo" not found');
  });

  it('explains pod fields from the served schema', async () => {
    const out = await k.ok(['explain', 'pod.spec.containers']);
    expect(out).toMatch(/^KIND:\s+Pod$/m);
    expect(out).toMatch(/^VERSION:\s+v1$/m);
    expect(out).toMatch(/^RESOURCE: containers <\[\]Object>$/m);
    expect(out).toMatch(/^ {3}image\t<string>$/m);
    expect(out).toMatch(/^ {3}name\t<string> -required-$/m);
  });

  it('exec prints what the command writes, over SPDY', async () => {
    expect(await k.run(['exec', 'box', '--', 'echo', 'hi'])).toMatchObject({ code: 0, stdout: 'hi\n' });
    expect(await k.ok(['exec', 'box', '--', 'cat', '/etc/hostname'])).toBe('box\n');
  });

  it("exec exits with the command's exit code and shows its stderr", async () => {
    const r = await k.run(['exec', 'box', '--', 'sh', '-c', 'echo oops >&2; exit 3']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('oops');
    expect(r.stderr).toContain('command terminated with exit code 3');
  });

  it('exec -i hands stdin to the command, read to its end', async () => {
    expect(await withStdin('data\nmore\n', ['cat'])).toMatchObject({ code: 0, stdout: 'data\nmore\n' });
    expect(await withStdin('', ['cat'])).toMatchObject({ code: 0, stdout: '' });
  });

  it('exec on a missing pod: the apiserver words', async () => {
    const r = await k.run(['exec', 'nope', '--', 'echo', 'hi']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('pods "nope" not found');
  });

  it('attach shows what the container writes from then on', async () => {
    const file = join(k.dir, 'ticker.yaml');
    writeFileSync(
      file,
      podManifest('ticker').replace('sleep 3600', 'while true; do echo tick; sleep 1; done'),
    );
    await k.ok(['create', '-f', file]);
    await k.ok(['wait', '--for=condition=Ready', 'pod/ticker', '--timeout=40s']);
    const attached = k.watch(['attach', 'ticker']);
    await attached.seen(/tick\ntick\n/);
    attached.stop();
  });

  it('cp copies a file and a tree into the pod and back out', async () => {
    const src = join(k.dir, 'notes.txt');
    writeFileSync(src, 'line one\nligne deux é\n');
    await k.ok(['cp', src, 'box:/tmp/notes.txt']);
    expect(await k.ok(['exec', 'box', '--', 'cat', '/tmp/notes.txt'])).toBe('line one\nligne deux é\n');
    const tree = join(k.dir, 'site');
    mkdirSync(join(tree, 'css'), { recursive: true });
    writeFileSync(join(tree, 'css', 'main.css'), 'h1 { color: red }\n');
    await k.ok(['cp', tree, 'box:/tmp/site']);
    const back = join(k.dir, 'site-back');
    await k.ok(['cp', 'box:/tmp/site', back]);
    expect(readFileSync(join(back, 'css', 'main.css'), 'utf8')).toBe('h1 { color: red }\n');
    await k.ok(['exec', 'box', '--', 'sh', '-c', 'echo "made in the pod" > /tmp/report.txt']);
    const dest = join(k.dir, 'report.txt');
    await k.ok(['cp', 'box:/tmp/report.txt', dest]);
    expect(readFileSync(dest, 'utf8')).toBe('made in the pod\n');
  });

  it("port-forward carries bytes to the pod's HTTP server and back", async () => {
    const w = k.watch(['port-forward', 'pod/box', ':8080']);
    const out = await w.seen(/Forwarding from 127\.0\.0\.1:(\d+)/);
    const port = Number(/Forwarding from 127\.0\.0\.1:(\d+)/.exec(out)?.[1]);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const first = await httpGet(port, '/', agent);
    const second = await httpGet(port, '/index.html', agent);
    agent.destroy();
    expect(first).toEqual({ status: 200, body: '<html><body><h1>It works!</h1></body></html>\n' });
    expect(second.status).toBe(200);
    expect(w.out()).toContain('Handling connection for');
    w.stop();
  });
});
