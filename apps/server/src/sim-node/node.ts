/**
 * The simulated node as a process of its own: the SimRuntime served over CRI gRPC on `<dataDir>/sim.sock`,
 * plus its control channel on `<dataDir>/sim-control.sock` (protocol.ts). It outlives the server that
 * started it, so a server killed with -9 finds its containers still running when it starts again, as a
 * kubelet finds containerd's. Its records are kept in `<dataDir>/sim-state.json` (sim-persist.ts): a node that
 * dies and is started again on the directory adopts them, its running containers running on under their IDs.
 *
 * Called by main.ts (the process the server spawns) and by the benchmarks' node process. The node stops
 * when asked (POST /stop, a server's clean shutdown), on SIGTERM/SIGINT (main.ts), or by itself once no
 * request came for idleStopMs, or once its control socket is gone (the data directory removed or unmounted:
 * no server can reach the node again). Stopping ends every container at once and removes both sockets;
 * `stopped` then resolves with the reason and the caller exits.
 */
import { chmod, mkdir, realpath, rm, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { SimNetProber, type SimNode, startSimNode } from '@syncscope/core';
import { RealClock, type RealClockState } from '@syncscope/core/clock';
import { CriError } from '@syncscope/core/cri';
import { SimNodeClient } from './client.ts';
import {
  CONTROL_SOCKET,
  FAULT_METHODS,
  type FaultMethod,
  type NodeInfo,
  SIM_SOCKET,
  SIM_STATE_FILE,
} from './protocol.ts';

export interface NodeProcessOptions {
  dataDir: string;
  /** Stop after this long without a request; 0 never. */
  idleStopMs: number;
  /** One line of the node's own log (main.ts: stdout, which the server sends to sim-node.log). */
  log(line: string): void;
  /** The clock to start on (a respawned node takes its server's); default the wall clock at speed 1. */
  clock?: RealClockState;
}

export interface NodeProcess {
  info(): NodeInfo;
  /** Stops the node (idempotent); resolves once containers are gone and the sockets removed. */
  stop(reason: string): Promise<void>;
  /** Resolves with the reason once the node has stopped, however it was asked to. */
  stopped: Promise<string>;
}

const MAX_BODY = 64 * 1024;
/** How often the node checks that its control socket is still the one it made. */
export const SOCKET_CHECK_MS = 1_000;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function startNodeProcess(opts: NodeProcessOptions): Promise<NodeProcess> {
  await mkdir(opts.dataDir, { recursive: true });
  const dataDir = await realpath(opts.dataDir);
  const controlPath = join(dataDir, CONTROL_SOCKET);
  // Another node answering here serves this directory already: never take its sockets over.
  const other = await new SimNodeClient(controlPath).info(2_000).catch(() => undefined);
  if (other) throw new Error(`a simulated node (pid ${other.pid}) already serves ${dataDir}`);
  await rm(controlPath, { force: true });

  const clock = new RealClock();
  if (opts.clock) clock.setState(opts.clock);
  // a node that died (kill -9, a crash) left its containers' state here: they run on, as under containerd
  // restarted beside shims that outlived it
  const sim: SimNode = await startSimNode({
    socketPath: join(dataDir, SIM_SOCKET),
    clock,
    statePath: join(dataDir, SIM_STATE_FILE),
    warn: opts.log,
  });
  const prober = new SimNetProber(sim.runtime.net);
  const startedAt = Date.now();
  let heartbeats = 0;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  let stopping: Promise<void> | undefined;
  let resolveStopped: (reason: string) => void = () => {};
  const stopped = new Promise<string>((r) => {
    resolveStopped = r;
  });

  const info = (): NodeInfo => ({
    dataDir,
    pid: process.pid,
    endpoint: sim.endpoint,
    clock: clock.state,
    idleStopMs: opts.idleStopMs,
    heartbeats,
    startedAt,
  });

  const touch = () => {
    if (opts.idleStopMs <= 0 || stopping) return;
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = setTimeout(
      () => void stop(`no request from a server for ${opts.idleStopMs / 1000} s`),
      opts.idleStopMs,
    );
  };

  const handle = async (req: IncomingMessage, body: unknown): Promise<unknown> => {
    const path = req.url ?? '/';
    const args = (body ?? {}) as Record<string, unknown>;
    if (req.method === 'GET' && path === '/info') return info();
    if (req.method === 'POST' && path === '/heartbeat') {
      heartbeats++;
      return { heartbeats };
    }
    if (req.method === 'PUT' && path === '/clock') {
      const speed = args.speed;
      if (typeof speed !== 'number' || !(speed > 0) || !Number.isFinite(speed))
        throw new HttpError(400, 'speed must be a number > 0');
      clock.setSpeed(speed);
      return clock.state;
    }
    if (req.method === 'POST' && path.startsWith('/faults/')) {
      const method = path.slice('/faults/'.length) as FaultMethod;
      if (!FAULT_METHODS.includes(method)) throw new HttpError(404, `no fault "${method}"`);
      const list = Array.isArray(args.args) ? args.args : [];
      if (!list.every((a) => a === null || typeof a === 'string' || typeof a === 'number'))
        throw new HttpError(400, 'args must be strings and numbers');
      const fault = sim.runtime.faults[method] as (...a: unknown[]) => string;
      try {
        return {
          detail: fault.apply(
            sim.runtime.faults,
            list.map((a) => a ?? undefined),
          ),
        };
      } catch (e) {
        throw new HttpError(409, e instanceof Error ? e.message : String(e));
      }
    }
    if (req.method === 'POST' && path === '/probe/http') {
      if (typeof args.url !== 'string') throw new HttpError(400, 'url must be a string');
      return prober.http(args.url, Number(args.timeoutMs) || 1_000);
    }
    if (req.method === 'POST' && path === '/probe/tcp') {
      if (typeof args.host !== 'string' || typeof args.port !== 'number')
        throw new HttpError(400, 'host must be a string and port a number');
      return prober.tcp(args.host, args.port, Number(args.timeoutMs) || 1_000);
    }
    if (req.method === 'POST' && path === '/exec') {
      const { containerId, cmd, stdin, timeoutS } = args;
      if (typeof containerId !== 'string' || !Array.isArray(cmd) || !cmd.every((w) => typeof w === 'string'))
        throw new HttpError(400, 'containerId must be a string and cmd a list of strings');
      const r = await sim.runtime
        .execSync(containerId, cmd, Number(timeoutS) || 0, typeof stdin === 'string' ? stdin : '')
        .catch((e: unknown) => {
          throw new HttpError(409, e instanceof CriError ? e.details : String(e));
        });
      return { stdout: r.stdout.toString(), stderr: r.stderr.toString(), exitCode: r.exit_code };
    }
    if (req.method === 'POST' && path === '/stop') {
      await stop('asked by the server');
      return { stopped: true };
    }
    throw new HttpError(404, `no ${req.method} ${path}`);
  };

  const control = createServer((req: IncomingMessage, res: ServerResponse) => {
    touch();
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => {
      const reply = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
        res.end(JSON.stringify(value ?? null));
      };
      void (async () => {
        try {
          if (size > MAX_BODY) throw new HttpError(413, 'body too large');
          const text = Buffer.concat(chunks).toString('utf8');
          const body = text === '' ? undefined : (JSON.parse(text) as unknown);
          reply(200, await handle(req, body));
        } catch (e) {
          const status = e instanceof HttpError ? e.status : e instanceof SyntaxError ? 400 : 500;
          reply(status, { message: e instanceof Error ? e.message : String(e) });
        }
      })();
    });
  });
  await new Promise<void>((resolve, reject) => {
    control.once('error', reject);
    control.listen(controlPath, () => {
      control.off('error', reject);
      resolve();
    });
  });
  // Only this user may drive the node (and so start and kill its containers).
  await chmod(controlPath, 0o600);
  touch();
  const ino = (await stat(controlPath)).ino;
  const socketCheck = setInterval(() => {
    stat(controlPath).then(
      (st) => {
        // the other node has read the state file: it is its own now
        if (st.ino !== ino)
          void stop(`${controlPath} was replaced: another node serves the directory`, { keepState: true });
      },
      () => void stop(`${controlPath} is gone: no server can reach this node`),
    );
  }, SOCKET_CHECK_MS);
  socketCheck.unref();
  opts.log(
    `simulated node pid ${process.pid} serving ${dataDir}: CRI ${sim.endpoint}, control ${controlPath}`,
  );

  const stop = (reason: string, closing: { keepState?: boolean } = {}): Promise<void> => {
    stopping ??= (async () => {
      if (idleTimer) clearTimeout(idleTimer);
      clearInterval(socketCheck);
      opts.log(`stopping: ${reason}`);
      await sim.close(closing); // every container ends, the CRI socket is removed
      // `stopped` waits for the last control answer (the one to POST /stop) to be sent
      control.close(() => {
        opts.log('stopped');
        resolveStopped(reason);
      });
      control.closeIdleConnections();
      await rm(controlPath, { force: true });
    })();
    return stopping;
  };

  return { info, stop, stopped };
}
