/**
 * The real kubectl's exec and port-forward against a server on a private containerd, with both clients a user
 * may have: the one on PATH (WebSocket: exec over `v4.channel.k8s.io`, port-forward as the SPDY session it
 * tunnels) and Debian 12's kubectl 1.20 (scripts/kubectl-legacy.sh; a SPDY/3.1 upgrade for both). The server
 * calls the CRI's Exec and PortForward and joins kubectl's connection byte for byte to containerd's streaming
 * server, so the command runs in the real container (1.20's stdin read to its end) and the forwarded port
 * reaches the real pod's server.
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
let legacy: string;
const dataDir = `/tmp/syncscope-streams-data-${process.pid}`;

beforeAll(async () => {
  legacy = execFileSync(join(import.meta.dirname, '../../scripts/kubectl-legacy.sh'), {
    encoding: 'utf8',
  }).trim();
  ctd = await startPrivateContainerd(`/tmp/syncscope-ctd-st-${process.pid}`);
  h = await startHarness({ runtimeEndpoint: ctd.endpoint, dataDir });
  home = await mkdtemp(join(tmpdir(), 'syncscope-kubectl-home-'));
  await h.apply(
    podManifest('streams', {
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
    'streams',
    'Running',
    (p) => Boolean(p.status?.containerStatuses?.[0]?.state.running),
    60_000,
  );
}, 120_000);

afterAll(async () => {
  await h?.remove('default', 'streams', 0);
  await h?.close();
  await ctd?.stop();
  await rm(home, { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
});

const kubectlArgs = (args: string[]) => ['-s', h.base, '--request-timeout', '20s', ...args];
const env = () => ({ PATH: process.env.PATH, HOME: home, KUBECONFIG: '' });

/** kubectl `bin` with `args`, `input` on its stdin when given. */
function kubectl(bin: string, args: string[], input?: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(bin, kubectlArgs(args), { env: env(), timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

for (const client of ['PATH', '1.20'] as const) {
  const bin = () => (client === 'PATH' ? 'kubectl' : legacy);
  const over = client === 'PATH' ? '' : ', over SPDY';
  describe(`kubectl (${client}) exec and port-forward on containerd${over}`, () => {
    it('exec runs the command in the real container', async () => {
      expect(await kubectl(bin(), ['exec', 'streams', '--', 'cat', '/www/index.html'])).toMatchObject({
        code: 0,
        stdout: 'served\n',
      });
      const failed = await kubectl(bin(), ['exec', 'streams', '--', 'sh', '-c', 'echo oops >&2; exit 3']);
      expect(failed.code).toBe(3);
      expect(failed.stderr).toContain('oops');
      if (client === 'PATH') return;
      expect(failed.stderr).toContain('command terminated with exit code 3');
      expect(await kubectl(bin(), ['exec', '-i', 'streams', '--', 'wc', '-l'], 'a\nb\nc\n')).toMatchObject({
        code: 0,
        stdout: expect.stringMatching(/^\s*3\n$/),
      });
    }, 60_000);

    it("port-forward reaches the pod's real HTTP server", async () => {
      const proc = spawn(bin(), kubectlArgs(['port-forward', 'pod/streams', ':8080']), {
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
}
