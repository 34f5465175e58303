/**
 * How HTTP GET and TCP probes reach a pod from this machine (pkg/probe/http, pkg/probe/tcp): `nodeNetProber`
 * (node:http / node:https / node:net), for a real containerd node whose pod IPs this machine can reach. The
 * contract it keeps (NetProber, answers not exceptions) is in cri/net-probe.ts; errors are worded as Go's net
 * package words them (see `dialError`), since their text is what the Unhealthy event shows.
 *
 * nodeNetProber is an I/O adapter like the gRPC client: its timeouts are real network time (node timers),
 * not engine time, since a sped-up engine clock does not make a remote pod answer faster.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';

/** Response body bytes the kubelet reads (pkg/probe/http maxRespBodyLength = 10 KiB). */
export const MAX_RESP_BODY_LENGTH = 10 * 1024;

/** The User-Agent the kubelet sends: kube-probe/<major>.<minor>. */
export const PROBE_USER_AGENT = 'kube-probe/1.32';

import type { HttpProbeAnswer, NetProber, TcpProbeAnswer } from '../../cri/net-probe.ts';

export type { HttpProbeAnswer, NetProber, TcpProbeAnswer } from '../../cri/net-probe.ts';

/** net.JoinHostPort: brackets around IPv6 literals. */
export function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

export type DialFailure = 'refused' | 'timeout' | 'unreachable' | 'reset';

/** A dial error as Go prints it, e.g. `dial tcp 10.88.0.5:8080: connect: connection refused`. */
export function dialError(host: string, port: number, why: DialFailure): string {
  const addr = joinHostPort(host, port);
  switch (why) {
    case 'refused':
      return `dial tcp ${addr}: connect: connection refused`;
    case 'timeout':
      return `dial tcp ${addr}: i/o timeout`;
    case 'unreachable':
      return `dial tcp ${addr}: connect: no route to host`;
    case 'reset':
      return `read tcp ${addr}: read: connection reset by peer`;
  }
}

/** The http.Client timeout error text (the prober prefixes `Get "<url>": `). */
export const HTTP_CLIENT_TIMEOUT =
  'context deadline exceeded (Client.Timeout exceeded while awaiting headers)';

function dialFailureOf(err: NodeJS.ErrnoException): DialFailure | undefined {
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'refused';
    case 'ETIMEDOUT':
      return 'timeout';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'unreachable';
    case 'ECONNRESET':
      return 'reset';
    default:
      return undefined;
  }
}

const MAX_REDIRECTS = 10;

function httpOnce(url: URL, deadline: number, hops: number): Promise<HttpProbeAnswer> {
  return new Promise((resolve) => {
    const mod = url.protocol === 'https:' ? https : http;
    const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const left = Math.max(1, deadline - Date.now());
    let done = false;
    const finish = (a: HttpProbeAnswer) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.destroy();
      resolve(a);
    };
    const timer = setTimeout(() => finish({ error: HTTP_CLIENT_TIMEOUT }), left);
    const req = mod.get(
      url,
      {
        headers: { 'User-Agent': PROBE_USER_AGENT, Accept: '*/*', Connection: 'close' },
        // The kubelet does not verify a probed pod's certificate (InsecureSkipVerify).
        ...(mod === https ? { rejectUnauthorized: false } : {}),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const location = res.headers.location;
        if (status >= 300 && status < 400 && location && hops < MAX_REDIRECTS) {
          const next = new URL(location, url);
          if (next.hostname === url.hostname) {
            res.resume();
            clearTimeout(timer);
            done = true;
            void httpOnce(next, deadline, hops + 1).then(resolve);
            return;
          }
        }
        const chunks: Buffer[] = [];
        let n = 0;
        res.on('data', (c: Buffer) => {
          if (n >= MAX_RESP_BODY_LENGTH) return;
          chunks.push(c);
          n += c.length;
        });
        res.on('end', () =>
          finish({ status, body: Buffer.concat(chunks).subarray(0, MAX_RESP_BODY_LENGTH).toString('utf8') }),
        );
        res.on('error', (e) => finish({ error: e.message }));
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => {
      const why = dialFailureOf(e);
      finish({ error: why ? dialError(host, port, why) : e.message });
    });
  });
}

/** The real NetProber, for pods this machine can reach (a containerd node). */
export const nodeNetProber: NetProber = {
  http(url, timeoutMs) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch (e) {
      return Promise.resolve({ error: (e as Error).message });
    }
    return httpOnce(parsed, Date.now() + timeoutMs, 0);
  },

  tcp(host, port, timeoutMs) {
    return new Promise((resolve) => {
      const sock = net.connect({ host, port });
      let done = false;
      const finish = (a: TcpProbeAnswer) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        sock.destroy();
        resolve(a);
      };
      const timer = setTimeout(() => finish({ error: dialError(host, port, 'timeout') }), timeoutMs);
      sock.once('connect', () => finish({ ok: true }));
      sock.once('error', (e: NodeJS.ErrnoException) => {
        const why = dialFailureOf(e);
        finish({
          error: why ? dialError(host, port, why) : `dial tcp ${joinHostPort(host, port)}: ${e.message}`,
        });
      });
    });
  },
};
