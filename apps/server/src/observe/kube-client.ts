/**
 * A read-only Kubernetes API client: it can only send GET (list, watch, get), over node:http or node:https
 * with the access of kube-access.ts. No other method exists on it, so an observer cannot change the cluster
 * whatever its caller does.
 *
 *   get(path, query)           one JSON object (a List page, an object, or a Status), the body capped at
 *                              MAX_BODY_BYTES; resolves with the HTTP status and the parsed body.
 *   watch(path, query, onLine) a chunked stream of WatchEvents, one JSON object a line, handed to onLine as
 *                              it arrives; a line longer than MAX_LINE_BYTES ends the stream. Resolves when
 *                              the server ends it (or abort() is called) with the HTTP status; a body that
 *                              is not a stream (a Status, or a List from a server that does not watch this
 *                              resource) comes as one last line.
 *
 * Each request carries the user agent, the Authorization header the access gives, and Accept JSON. Rejects
 * on a connection error. Linear in the bytes received.
 */
import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { KubeAccess } from './kube-access.ts';

/** A List page or an object is cut off past this many bytes (the apiserver's own request limit is 3 MiB a object). */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;
/** One watch line: an object, at most 1.5 MiB in etcd, in JSON. */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;
export const USER_AGENT = 'syncscope-observer';

export type Query = Record<string, string | undefined>;

export interface WatchHandle {
  done: Promise<number>;
  abort(): void;
}

export class KubeClient {
  constructor(private readonly access: KubeAccess) {}

  private open(path: string, query: Query, onResponse: (res: IncomingMessage) => void): ClientRequest {
    const url = new URL(path, this.access.server);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, v);
    const auth = this.access.authorization();
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': USER_AGENT };
    if (auth !== undefined) headers.authorization = auth;
    const tls = url.protocol === 'https:';
    const send = tls ? httpsRequest : httpRequest;
    const a = this.access;
    return send(
      url,
      {
        method: 'GET',
        headers,
        ...(tls
          ? {
              ...(a.ca !== undefined ? { ca: a.ca } : {}),
              ...(a.cert !== undefined ? { cert: a.cert } : {}),
              ...(a.key !== undefined ? { key: a.key } : {}),
              ...(a.tlsServerName !== undefined ? { servername: a.tlsServerName } : {}),
              rejectUnauthorized: a.insecureSkipTLSVerify !== true,
            }
          : {}),
      },
      onResponse,
    );
  }

  get(path: string, query: Query = {}, signal?: AbortSignal): Promise<{ status: number; body: unknown }> {
    return new Promise((resolve, reject) => {
      const req = this.open(path, query, (res) => {
        const parts: Buffer[] = [];
        let size = 0;
        res.on('data', (b: Buffer) => {
          size += b.length;
          if (size > MAX_BODY_BYTES) {
            req.destroy(new Error(`GET ${path}: body larger than ${MAX_BODY_BYTES} bytes`));
            return;
          }
          parts.push(b);
        });
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString('utf8')) });
          } catch {
            reject(new Error(`GET ${path}: HTTP ${res.statusCode}: not JSON`));
          }
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      signal?.addEventListener('abort', () => req.destroy(new Error('aborted')), { once: true });
      req.end();
    });
  }

  watch(path: string, query: Query, onLine: (line: string) => void): WatchHandle {
    let req: ClientRequest | undefined;
    const done = new Promise<number>((resolve, reject) => {
      req = this.open(path, query, (res) => {
        const status = res.statusCode ?? 0;
        const lines = new LineSplitter(MAX_LINE_BYTES, onLine);
        res.on('data', (b: Buffer) => {
          if (!lines.push(b))
            res.destroy(new Error(`watch ${path}: a line longer than ${MAX_LINE_BYTES} bytes`));
        });
        res.on('end', () => {
          lines.end();
          resolve(status);
        });
        res.on('error', reject);
        res.on('close', () => resolve(status));
      });
      req.on('error', reject);
      req.end();
    });
    return { done, abort: () => req?.destroy() };
  }
}

/** Splits a byte stream into lines; each byte is looked at once; at most `max` bytes held. */
export class LineSplitter {
  private parts: Buffer[] = [];
  private held = 0;

  constructor(
    private readonly max: number,
    private readonly onLine: (line: string) => void,
  ) {}

  /** false: the current line is longer than max (the caller ends the stream). */
  push(chunk: Buffer): boolean {
    let from = 0;
    for (let nl = chunk.indexOf(10, from); nl !== -1; nl = chunk.indexOf(10, from)) {
      const piece = chunk.subarray(from, nl);
      const line = this.parts.length === 0 ? piece : Buffer.concat([...this.parts, piece]);
      this.parts = [];
      this.held = 0;
      from = nl + 1;
      if (line.length > this.max) return false;
      if (line.length > 0) this.onLine(line.toString('utf8'));
    }
    if (from < chunk.length) {
      this.parts.push(chunk.subarray(from));
      this.held += chunk.length - from;
    }
    return this.held <= this.max;
  }

  /** The last line, when the stream did not end with a newline. */
  end(): void {
    if (this.held > 0) this.onLine(Buffer.concat(this.parts).toString('utf8'));
    this.parts = [];
    this.held = 0;
  }
}
