/**
 * The real kubectl's port-forward (SPDY tunnelled in a WebSocket, `SPDY/3.1+portforward.k8s.io`) against
 * the real server process on the simulated node, with real TCP clients on the local port: an HTTP server
 * in the pod answers every request of a kept-alive connection, a bare TCP listener takes bytes until the
 * client closes, a port nothing listens on is refused in words kubectl prints, and the refusals before the
 * upgrade name what is wrong.
 */
import { writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpGet, type Kubectl, podManifest, startKubectl } from './kubectl-run.ts';

const cleanups: (() => Promise<void>)[] = [];
let k: Kubectl;

beforeAll(async () => {
  k = await startKubectl(cleanups);
  const file = join(k.dir, 'web.yaml');
  writeFileSync(file, podManifest('web').replace('sleep 3600', 'httpd -p 8080; nc -l -p 9000'));
  await k.ok(['apply', '-f', file]);
  await k.ok(['wait', '--for=condition=Ready', 'pod/web', '--timeout=40s']);
}, 90_000);

afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** Starts `kubectl port-forward pod/web :<remote>`; the local port it chose. */
async function forward(remote: number) {
  const w = k.watch(['port-forward', 'pod/web', `:${remote}`]);
  const out = await w.seen(/Forwarding from 127\.0\.0\.1:(\d+)/);
  const port = Number(/Forwarding from 127\.0\.0\.1:(\d+)/.exec(out)?.[1]);
  return { port, w };
}

describe('kubectl port-forward on the simulated node', () => {
  it("reaches the pod's HTTP server, several requests on one connection", async () => {
    const { port, w } = await forward(8080);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const first = await httpGet(port, '/', agent);
    const second = await httpGet(port, '/index.html', agent);
    agent.destroy();
    expect(first).toEqual({ status: 200, body: '<html><body><h1>It works!</h1></body></html>\n' });
    expect(second.status).toBe(200);
    expect(w.out().match(/Handling connection/g)).toHaveLength(1);
    w.stop();
  });

  it('a bare TCP listener takes what is sent and holds the connection until the client ends it', async () => {
    const { port, w } = await forward(9000);
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString()));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('hello\n');
    await w.seen(/Handling connection for/);
    socket.end();
    await new Promise<void>((resolve) => socket.once('close', () => resolve()));
    expect(received).toBe('');
    expect(w.out()).not.toMatch(/error/i);
    w.stop();
  });

  it('a port nothing listens on: kubectl prints the refused dial', async () => {
    const { port, w } = await forward(9999);
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    const out = await w.seen(/connection refused/);
    expect(out).toContain('an error occurred forwarding');
    expect(out).toContain('dial tcp4 127.0.0.1:9999: connect: connection refused');
    socket.destroy();
    w.stop();
  });

  it('refuses, before any upgrade, a missing pod and a request that is not the tunnel', async () => {
    const missing = await k.run(['port-forward', 'pod/nope', ':80']);
    expect(missing.stderr).toContain('pods "nope" not found');
    const plain = await fetch(`${k.server.base}/api/v1/namespaces/default/pods/web/portforward`);
    expect(plain.status).toBe(400);
    expect(await plain.json()).toMatchObject({
      kind: 'Status',
      reason: 'BadRequest',
      message: expect.stringContaining('SPDY/3.1+portforward.k8s.io'),
    });
  });
});
