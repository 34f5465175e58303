/**
 * Debian 12's kubectl 1.20 (scripts/kubectl-legacy.sh) against a server on a private containerd: its exec and
 * port-forward ask for a SPDY/3.1 upgrade, and the server joins that connection byte for byte to
 * containerd's own streaming server (the CRI's Exec and PortForward), so the command runs in the real
 * container, reads kubectl's stdin to its end, and the forwarded port reaches the real pod's server.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type PrivateContainerd, startPrivateContainerd } from '@syncscope/server/private-containerd';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { podManifest } from '../scenarios/scenarios.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let ctd: PrivateContainerd;
let h: Harness;
let home: string;
let bin: string;
const dataDir = `/tmp/syncscope-spdy-data-${process.pid}`;

beforeAll(async () => {
  bin = execFileSync(join(import.meta.dirname, '../../scripts/kubectl-legacy.sh'), {
    encoding: 'utf8',
  }).trim();
  ctd = await startPrivateContainerd(`/tmp/syncscope-ctd-sp-${process.pid}`);
  h = await startHarness({ runtimeEndpoint: ctd.endpoint, dataDir });
  home = await mkdtemp(join(tmpdir(), 'syncscope-kubectl-home-'));
  await h.apply(
    podManifest('legacy', {
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'app',
          image: 'busybox',
          imagePullPolicy: 'IfNotPresent',
          command: ['sh', '-c', 'mkdir -p /www && echo served > /www/index.html && httpd -f -p 8080 -h /www'],
        },
      ],
    }),
  );
  await h.waitForPod(
    'default',
    'legacy',
    'Running',
    (p) => Boolean(p.status?.containerStatuses?.[0]?.state.running),
    60_000,
  );
}, 120_000);

afterAll(async () => {
  await h?.remove('default', 'legacy', 0);
  await h?.close();
  await ctd?.stop();
  await rm(home, { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
});

const kubectlArgs = (args: string[]) => ['-s', h.base, '--request-timeout', '20s', ...args];
const env = () => ({ PATH: process.env.PATH, HOME: home, KUBECONFIG: '' });

/** kubectl 1.20 `args`, `input` on its stdin when given. */
function kubectl(args: string[], input?: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(bin, kubectlArgs(args), { env: env(), timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

describe('kubectl 1.20 exec and port-forward on containerd, over SPDY', () => {
  it('exec runs the command in the real container, with its exit code and stdin to its end', async () => {
    expect(await kubectl(['exec', 'legacy', '--', 'cat', '/www/index.html'])).toMatchObject({
      code: 0,
      stdout: 'served\n',
    });
    const failed = await kubectl(['exec', 'legacy', '--', 'sh', '-c', 'echo oops >&2; exit 3']);
    expect(failed.code).toBe(3);
    expect(failed.stderr).toContain('oops');
    expect(failed.stderr).toContain('command terminated with exit code 3');
    expect(await kubectl(['exec', '-i', 'legacy', '--', 'wc', '-l'], 'a\nb\nc\n')).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^\s*3\n$/),
    });
  }, 60_000);

  it("port-forward reaches the pod's real HTTP server", async () => {
    const proc = spawn(bin, kubectlArgs(['port-forward', 'pod/legacy', ':8080']), {
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let out = '';
        proc.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
        proc.once('exit', () => reject(new Error(`kubectl port-forward ended: ${out}`)));
      });
      const res = await fetch(`http://127.0.0.1:${port}/index.html`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('served\n');
    } finally {
      proc.kill();
    }
  }, 60_000);
});
