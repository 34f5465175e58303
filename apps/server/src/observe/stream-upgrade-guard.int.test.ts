/**
 * Observe mode refuses a pod's exec, attach and port-forward however the client asks for the stream: a
 * SPDY/3.1 upgrade (kubectl up to 1.29, and the fallback of newer ones) and a WebSocket upgrade, each with
 * the token, are answered with the observe refusal and never switch protocols; without the token, 401.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ObservedApp } from './app.ts';
import { type BareObserver, observeWithoutRuntime } from './observe-testing.ts';
import { OBSERVE_REFUSAL } from './observer.ts';

const TOKEN = 'observe-stream-token-0123456789';
let bare: BareObserver;
let observed: ObservedApp;
let port: number;

beforeAll(async () => {
  bare = await observeWithoutRuntime('observe-streams-', TOKEN);
  observed = bare.observed;
  await observed.app.listen({ port: 0, host: '127.0.0.1' });
  port = (observed.app.server.address() as { port: number }).port;
});

afterAll(async () => {
  await bare?.close();
});

/** Sends the request head `lines` on a fresh connection; resolves with all the server wrote before closing. */
function ask(method: string, target: string, lines: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1', () =>
      sock.write(
        `${[`${method} ${target} HTTP/1.1`, `Host: 127.0.0.1:${port}`, ...lines].join('\r\n')}\r\n\r\n`,
      ),
    );
    let got = '';
    sock.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      // one answer is all: a refusal ends with its JSON body
      if (/\r\n\r\n[\s\S]*\}$/.test(got)) sock.end();
    });
    sock.on('error', reject);
    sock.on('close', () => resolve(got));
  });
}

const SPDY = (protocol: string) => [
  'Connection: Upgrade',
  'Upgrade: SPDY/3.1',
  `X-Stream-Protocol-Version: ${protocol}`,
];
const WS = [
  'Connection: Upgrade',
  'Upgrade: websocket',
  'Sec-WebSocket-Version: 13',
  'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
  'Sec-WebSocket-Protocol: v5.channel.k8s.io',
];
const POD = '/api/v1/namespaces/default/pods/web';

it('refuses exec, attach and port-forward over SPDY and WebSocket upgrades, with the observe refusal', async () => {
  const cases: [string, string, string[]][] = [
    ['POST', `${POD}/exec?command=true&stdout=1`, SPDY('v4.channel.k8s.io')],
    ['POST', `${POD}/attach?stdout=1`, SPDY('v4.channel.k8s.io')],
    ['POST', `${POD}/portforward`, SPDY('portforward.k8s.io')],
    ['GET', `${POD}/exec?command=true&stdout=1`, SPDY('v4.channel.k8s.io')],
    ['GET', `${POD}/exec?command=true&stdout=1`, WS],
  ];
  for (const [method, target, lines] of cases) {
    const got = await ask(method, target, [`Authorization: Bearer ${TOKEN}`, ...lines]);
    const what = `${method} ${target} ${lines[1]}`;
    expect(got, what).toMatch(/^HTTP\/1\.1 403 /);
    expect(got, what).toContain(JSON.stringify(OBSERVE_REFUSAL));
  }
  const noToken = await ask('POST', `${POD}/exec?command=true&stdout=1`, SPDY('v4.channel.k8s.io'));
  expect(noToken).toMatch(/^HTTP\/1\.1 401 /);
});
