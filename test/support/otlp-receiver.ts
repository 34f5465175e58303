/**
 * A stand-in OpenTelemetry Collector for the tests: a real HTTP server on loopback that takes OTLP/HTTP
 * protobuf (POST /v1/traces) and decodes each request with the official OTLP proto definitions (the protobufjs
 * root generated from opentelemetry-proto that @opentelemetry/otlp-transformer ships), answering as a collector
 * does (200 with an empty ExportTraceServiceResponse). Spans are flattened with their resource's attributes;
 * ids are hex, times ms since the epoch.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import generated from '@opentelemetry/otlp-transformer/build/src/generated/root.js';

type Proto = {
  decode(b: Uint8Array): unknown;
  encode(m: object): { finish(): Uint8Array };
  toObject(m: unknown, o: object): Record<string, unknown>;
};
const v1 = (
  generated as unknown as {
    opentelemetry: { proto: { collector: { trace: { v1: Record<string, Proto> } } } };
  }
).opentelemetry.proto.collector.trace.v1;
const Request = v1.ExportTraceServiceRequest as Proto;
const Response = v1.ExportTraceServiceResponse as Proto;

interface ReceivedEvent {
  name: string;
  timeMs: number;
  attributes: Record<string, unknown>;
}

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startMs: number;
  endMs: number;
  attributes: Record<string, unknown>;
  events: ReceivedEvent[];
  /** 0 unset, 1 ok, 2 error */
  status: { code: number; message: string };
  resource: Record<string, unknown>;
  scope: string;
}

export interface OtlpReceiver {
  /** The collector's base URL, as given to --otlp-endpoint. */
  url: string;
  spans: ReceivedSpan[];
  requests: { path: string; headers: IncomingHttpHeaders }[];
  /** Resolves once `pred` holds on the spans received so far (checked on every request), or rejects. */
  waitFor(pred: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number, what?: string): Promise<void>;
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}
type KeyValue = { key: string; value?: AnyValue };

function value(v: AnyValue | undefined): unknown {
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(value);
  return undefined;
}

function attrs(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, value(kv.value)]));
}

const hex = (b: string | undefined) => Buffer.from(b ?? '', 'base64').toString('hex');
const ms = (nanos: string | undefined) => Number(BigInt(nanos ?? '0') / 1_000_000n);

/** The spans of one decoded ExportTraceServiceRequest. */
function flatten(req: Record<string, unknown>): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  type Raw = Record<string, unknown> & { attributes?: KeyValue[] };
  for (const rs of (req.resourceSpans as Raw[] | undefined) ?? []) {
    const resource = attrs((rs.resource as Raw | undefined)?.attributes);
    for (const ss of (rs.scopeSpans as Raw[] | undefined) ?? []) {
      const scope = String((ss.scope as { name?: string } | undefined)?.name ?? '');
      for (const s of (ss.spans as Raw[] | undefined) ?? []) {
        const status = (s.status as { code?: number; message?: string } | undefined) ?? {};
        out.push({
          traceId: hex(s.traceId as string),
          spanId: hex(s.spanId as string),
          parentSpanId: hex(s.parentSpanId as string | undefined),
          name: String(s.name),
          kind: Number(s.kind ?? 0),
          startMs: ms(s.startTimeUnixNano as string),
          endMs: ms(s.endTimeUnixNano as string),
          attributes: attrs(s.attributes),
          events: ((s.events as Raw[] | undefined) ?? []).map((e) => ({
            name: String(e.name),
            timeMs: ms(e.timeUnixNano as string),
            attributes: attrs(e.attributes),
          })),
          status: { code: status.code ?? 0, message: status.message ?? '' },
          resource,
          scope,
        });
      }
    }
  }
  return out;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: OtlpReceiver['requests'] = [];
  const waiters = new Set<() => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', headers: req.headers });
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const msg = Request.decode(Buffer.concat(chunks));
      spans.push(...flatten(Request.toObject(msg, { longs: String, bytes: String })));
      res.writeHead(200, { 'content-type': 'application/x-protobuf' });
      res.end(Buffer.from(Response.encode({}).finish()));
      for (const w of waiters) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests,
    waitFor(pred, timeoutMs = 30_000, what = 'spans') {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!pred(spans)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no ${what} within ${timeoutMs} ms (${spans.length} spans received)`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
