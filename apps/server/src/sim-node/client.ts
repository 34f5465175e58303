/**
 * The server's side of the simulated node's control channel (protocol.ts): one request per call over the
 * node's unix socket, each with a wall-time deadline (the node answers at once; only a dead or wedged node
 * makes a caller wait, and then no longer than the deadline).
 *
 * Callers: link.ts (info, heartbeat, stop), the fault routes through `faults`, the prober through `prober`,
 * the speed route through `setSpeed`. A node that cannot be reached is reported as the CRI would report
 * it, a CriError UNAVAILABLE, so the routes answer 503 as for a runtime outage; a fault the node refuses
 * is an Error with the node's reason.
 */
import { request } from 'node:http';
import type { RealClockState } from '@syncscope/core/clock';
import { CriError, GrpcCode } from '@syncscope/core/cri';
import type { HttpProbeAnswer, NetProber, TcpProbeAnswer } from '@syncscope/core/kubelet/prober/net-prober';
import type { ExecResult, SimFaults } from '../sim-control.ts';
import { FAULT_METHODS, type FaultMethod, type NodeInfo } from './protocol.ts';

/** Deadline of a control request when the caller gives none. */
const CONTROL_TIMEOUT_MS = 5_000;

interface Answer {
  status: number;
  body: unknown;
}

/** Thrown when the control socket does not answer (no file, nobody listening, timed out). */
class NodeUnreachable extends CriError {
  constructor(what: string, cause: string) {
    super(what, GrpcCode.UNAVAILABLE, `simulated node not reachable: ${cause}`);
  }
}

export class SimNodeClient {
  constructor(readonly socketPath: string) {}

  /** One request; resolves with any HTTP answer, rejects with NodeUnreachable when there is none. */
  request(method: string, path: string, body?: unknown, timeoutMs = CONTROL_TIMEOUT_MS): Promise<Answer> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          socketPath: this.socketPath,
          method,
          path,
          agent: false,
          headers: {
            connection: 'close',
            ...(payload === undefined
              ? {}
              : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', (e) => reject(new NodeUnreachable(path, e.message)));
          res.on('end', () => {
            clearTimeout(timer);
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown;
            try {
              parsed = text === '' ? undefined : JSON.parse(text);
            } catch {
              parsed = { message: text };
            }
            resolve({ status: res.statusCode ?? 0, body: parsed });
          });
        },
      );
      const timer = setTimeout(() => {
        req.destroy(new Error(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      req.on('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(new NodeUnreachable(path, e.code ? `${e.code} ${this.socketPath}` : e.message));
      });
      req.end(payload);
    });
  }

  /** A 2xx answer's body, or an Error carrying the node's message. */
  private async ok<T>(method: string, path: string, body?: unknown, timeoutMs?: number): Promise<T> {
    const res = await this.request(method, path, body, timeoutMs);
    if (res.status >= 200 && res.status < 300) return res.body as T;
    const message = (res.body as { message?: unknown } | undefined)?.message;
    throw new Error(typeof message === 'string' ? message : `simulated node answered ${res.status}`);
  }

  info(timeoutMs?: number): Promise<NodeInfo> {
    return this.ok('GET', '/info', undefined, timeoutMs);
  }

  async heartbeat(): Promise<void> {
    await this.ok('POST', '/heartbeat');
  }

  setSpeed(speed: number): Promise<RealClockState> {
    return this.ok('PUT', '/clock', { speed });
  }

  /** Asks the node to stop; resolves once it has stopped its containers and closed its sockets. */
  async stop(timeoutMs?: number): Promise<void> {
    await this.ok('POST', '/stop', undefined, timeoutMs);
  }

  /** Runs `cmd` in a running container to its end, `stdin` read whole (POST /exec). */
  exec(containerId: string, cmd: string[], stdin: string, timeoutS: number): Promise<ExecResult> {
    return this.ok('POST', '/exec', { containerId, cmd, stdin, timeoutS }, (timeoutS + 5) * 1000);
  }

  /** One fault-layer call; the answer is the method's return value (a description, or `active`'s list). */
  async fault(method: FaultMethod, args: (string | number | undefined)[]): Promise<unknown> {
    const res = await this.ok<{ detail: unknown }>('POST', `/faults/${method}`, { args });
    return res.detail;
  }

  /** The node's fault layer, each call a request. */
  get faults(): SimFaults {
    const out: Partial<Record<FaultMethod, (...args: (string | number | undefined)[]) => Promise<unknown>>> =
      {};
    for (const m of FAULT_METHODS) out[m] = (...args) => this.fault(m, args);
    return out as unknown as SimFaults;
  }

  /** HTTP and TCP probes answered by the node's simulated pod network; never rejects (NetProber). */
  get prober(): NetProber {
    const probe = async <T>(
      path: string,
      body: object,
      timeoutMs: number,
    ): Promise<T | { error: string }> => {
      try {
        return await this.ok<T>('POST', path, { ...body, timeoutMs }, timeoutMs + CONTROL_TIMEOUT_MS);
      } catch (e) {
        return { error: e instanceof Error ? e.message : String(e) };
      }
    };
    return {
      http: (url, timeoutMs) => probe<HttpProbeAnswer>('/probe/http', { url }, timeoutMs),
      tcp: (host, port, timeoutMs) => probe<TcpProbeAnswer>('/probe/tcp', { host, port }, timeoutMs),
    };
  }
}
