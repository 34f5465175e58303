/**
 * The real kubectl's exec and port-forward against a server on a private containerd: the server calls the
 * CRI's Exec and PortForward and joins kubectl's WebSocket to containerd's streaming server (exec over
 * `v4.channel.k8s.io`, port-forward as the SPDY session kubectl tunnels), so the command runs in the real
 * container and the forwarded port reaches the real pod's server.
 */
import { execFile, spawn } from 'node:child_process';
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
const dataDir = `/tmp/syncscope-streams-data-${process.pid}`;

beforeAll(async () => {
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

function kubectl(args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile('kubectl', kubectlArgs(args), { env: env(), timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe('kubectl exec and port-forward on containerd', () => {
  it('exec runs the command in the real container', async () => {
    expect(await kubectl(['exec', 'streams', '--', 'cat', '/www/index.html'])).toMatchObject({
      code: 0,
      stdout: 'served\n',
    });
    const failed = await kubectl(['exec', 'streams', '--', 'sh', '-c', 'echo oops >&2; exit 3']);
    expect(failed.code).toBe(3);
    expect(failed.stderr).toContain('oops');
  }, 60_000);

  it("port-forward reaches the pod's real HTTP server", async () => {
    const proc = spawn('kubectl', kubectlArgs(['port-forward', 'pod/streams', ':8080']), {
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
