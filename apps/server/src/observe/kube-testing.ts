/**
 * For the API client tests: a scripted API server over real HTTP. Each request to a path is answered by the
 * next answer queued for that path (none left: left open); each request is told as it arrives (next()).
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Answer = (req: IncomingMessage, res: ServerResponse) => void;

export interface Scripted {
  server: Server;
  url: string;
  requests: { method: string; url: URL }[];
  /** The next request (of any path) as it arrives. */
  next(): Promise<URL>;
  close(): void;
}

/** `script`: the answers in order, for one path; or per path. */
export async function scripted(script: Answer[] | Record<string, Answer[]>): Promise<Scripted> {
  const requests: { method: string; url: URL }[] = [];
  const waiting: ((u: URL) => void)[] = [];
  const queued: URL[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push({ method: req.method ?? '', url });
    const answer = (Array.isArray(script) ? script : script[url.pathname])?.shift();
    if (answer) answer(req, res);
    const w = waiting.shift();
    if (w) w(url);
    else queued.push(url);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const next = () => {
    const q = queued.shift();
    return q ? Promise.resolve(q) : new Promise<URL>((r) => waiting.push(r));
  };
  const close = () => {
    server.closeAllConnections();
    server.close();
  };
  return { server, url, requests, next, close };
}

export const json =
  (body: unknown, code = 200): Answer =>
  (_req, res) => {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

/** A watch stream: these lines, then left open (or ended). */
export const stream =
  (lines: unknown[], end = false): Answer =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    for (const l of lines) res.write(`${JSON.stringify(l)}\n`);
    if (end) res.end();
  };

/** The connection lost before an answer. */
export const cut: Answer = (req) => req.socket.destroy();

/** A watch stream the test writes to as it goes. */
export function live(): { answer: Answer; send(line: unknown): void } {
  let res: ServerResponse | undefined;
  const early: string[] = [];
  return {
    answer: (_req, r) => {
      res = r;
      r.writeHead(200, { 'content-type': 'application/json' });
      for (const l of early.splice(0)) r.write(l);
    },
    send(line) {
      const text = `${JSON.stringify(line)}\n`;
      if (res) res.write(text);
      else early.push(text);
    },
  };
}
