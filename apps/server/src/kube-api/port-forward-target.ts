/**
 * What a forwarded port reaches on the simulated node: whatever listens on that port in the pod's network
 * namespace, seen from the pod's container (its loopback, as the runtime dials it inside the namespace).
 * The simulated programs have no byte streams, so the connection is played against what they are:
 *   - nothing listens: the error stream says the dial was refused, in the runtime's words;
 *   - an HTTP server (busybox httpd, nginx): every HTTP/1.x request read from the client is answered with
 *     what the server answers a GET of that path (the body `wget -q -O -` prints in the container), as
 *     `200 OK` with its length; `Connection: close` (or HTTP/1.0) ends the connection after the answer;
 *   - any other listener (`nc -l`): it takes the bytes and answers nothing, until the client closes.
 * A request head is read up to MAX_HEAD_BYTES; past that the connection ends.
 */
import type { ExecRunner } from './exec-plan.ts';
import type { ForwardStream } from './port-forward-session.ts';

const MAX_HEAD_BYTES = 16 * 1024;
/** How long one look into the container may take, in seconds. */
const LOOK_TIMEOUT_S = 10;
const REQUEST_LINE = /^([A-Z]+) (\S+) HTTP\/1\.([01])$/;

export interface ForwardTarget {
  run: ExecRunner;
  containerId: string;
  /** For the error text: the pod's name and uid. */
  pod: string;
  uid: string;
}

/** `port`'s text as the kubelet reads it: a decimal from 1 to 65535. */
function parsePort(text: string): number | undefined {
  if (!/^[0-9]{1,5}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= 1 && n <= 65535 ? n : undefined;
}

/** Serves one forwarded connection to `portText` of the target. */
export async function forwardToSim(
  t: ForwardTarget,
  portText: string,
  data: ForwardStream,
  error: ForwardStream,
): Promise<void> {
  const done = (message?: string) => {
    if (message) error.write(Buffer.from(message));
    error.end();
    data.end();
  };
  const port = parsePort(portText);
  if (port === undefined) return done(`invalid port header ${JSON.stringify(portText)}`);
  const pending: Buffer[] = [];
  let ended = false;
  data.onData = (b) => {
    if (b === null) ended = true;
    else pending.push(b);
  };
  const dial = await t
    .run(t.containerId, ['nc', '-z', '127.0.0.1', String(port)], '', LOOK_TIMEOUT_S)
    .catch((e: unknown) => ({ exitCode: -1, stderr: e instanceof Error ? e.message : String(e) }));
  if (dial.exitCode !== 0)
    return done(
      `error forwarding port ${port} to pod ${t.pod}, uid ${t.uid}: failed to connect to localhost:${port} inside the pod's network namespace: dial tcp4 127.0.0.1:${port}: connect: connection refused`,
    );

  let head = Buffer.alloc(0);
  let http = true;
  let busy = false;
  const serve = async (): Promise<void> => {
    if (busy) return;
    busy = true;
    try {
      for (;;) {
        if (http && pending.length > 0) {
          head = Buffer.concat([head, ...pending.splice(0)]);
          if (
            !REQUEST_LINE.test(head.subarray(0, head.indexOf('\r\n') >>> 0).toString('latin1')) &&
            head.includes('\r\n')
          )
            http = false;
        } else pending.length = 0;
        if (!http) {
          head = Buffer.alloc(0);
          if (ended) return done();
          return;
        }
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) {
          if (head.length > MAX_HEAD_BYTES || ended) return done();
          return;
        }
        const text = head.subarray(0, end).toString('latin1');
        const lines = text.split('\r\n');
        const m = REQUEST_LINE.exec(lines[0] ?? '') as RegExpExecArray;
        const headers = new Map(
          lines
            .slice(1)
            .map((l) => [
              l.slice(0, l.indexOf(':')).trim().toLowerCase(),
              l.slice(l.indexOf(':') + 1).trim(),
            ]),
        );
        const bodyLength = Number(headers.get('content-length') ?? '0') || 0;
        if (head.length < end + 4 + bodyLength) {
          if (ended) return done();
          return;
        }
        head = head.subarray(end + 4 + bodyLength);
        const path = (m[2] as string).startsWith('/') ? (m[2] as string) : '/';
        const r = await t.run(
          t.containerId,
          ['wget', '-q', '-O', '-', `http://127.0.0.1:${port}${path}`],
          '',
          LOOK_TIMEOUT_S,
        );
        if (r.exitCode !== 0) {
          // not an HTTP server: it reads and says nothing
          http = false;
          continue;
        }
        const body = Buffer.from(r.stdout);
        const close = m[3] === '0' || headers.get('connection')?.toLowerCase() === 'close';
        data.write(
          Buffer.from(
            `HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${body.length}\r\n${close ? 'Connection: close\r\n' : ''}\r\n`,
          ),
        );
        if (m[1] !== 'HEAD') data.write(body);
        if (close) return done();
      }
    } finally {
      busy = false;
    }
  };
  data.onData = (b) => {
    if (b === null) ended = true;
    else pending.push(b);
    void serve();
  };
  await serve();
}
