/**
 * Kubelet lines that arrive inside a JSON record of something that carried them: `journalctl -o json` (and
 * json-seq), Fluent Bit and Fluentd outputs (`log`, or `message` with the cri parser), Loki's `logcli -o jsonl`
 * (`line`), and any shipper that keeps the line in one of those fields. unwrap gives the line's text and the
 * prefix the record's own fields make: the host, the program and its pid, and the year and month of the
 * record's time (klog headers have none). Docker's json-file records (`log` and a `time` string, split at 16 KiB)
 * and klog's own JSON (`ts` a number, `msg`) are told apart before (header.ts), so they never come here.
 * Records that nest the shipped record are opened: Cloud Logging's entries (`jsonPayload` holding journald's
 * fields, or the line as `textPayload`; the node in `resource.labels.node_name`) and Elasticsearch hits
 * (`_source`, with Elastic's common schema: `host.name`, `process.pid`, `syslog.identifier`). Browser-safe;
 * called by classify for a record that is a JSON object (one line, or gathered by pretty-json.ts).
 */
import type { Prefix } from './prefix.ts';

/** where shippers keep the line, in the order tried */
const TEXT_FIELDS = ['MESSAGE', 'log', 'message', 'line', 'textPayload'] as const;
const HOST_FIELDS = ['_HOSTNAME', 'hostname', 'host', 'node', 'node_name', 'nodename'] as const;
const TIME_FIELDS = ['__REALTIME_TIMESTAMP', 'timestamp', '@timestamp', 'time', 'date'] as const;

/** journald keeps a MESSAGE that is not UTF-8 text as an array of its bytes */
function textOf(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.length > 0 && v.every((b) => typeof b === 'number'))
    return new TextDecoder().decode(new Uint8Array(v as number[]));
  return undefined;
}

type Obj = Record<string, unknown>;
/** records that keep the shipped record inside one of their fields */
const NESTS = ['jsonPayload', '_source'] as const;

function objectAt(o: Obj | undefined, ...path: string[]): Obj | undefined {
  let v: unknown = o;
  for (const k of path) v = typeof v === 'object' && v !== null ? (v as Obj)[k] : undefined;
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined;
}

function stringField(o: Record<string, unknown> | undefined, names: readonly string[]): string | undefined {
  if (!o) return undefined;
  for (const n of names) if (typeof o[n] === 'string' && o[n] !== '') return o[n] as string;
  return undefined;
}

/**
 * A record's time as ms since the epoch: journald's µs (a string), an RFC 3339 string, or a number of seconds,
 * ms, µs or ns (told by its size).
 */
function epochMs(v: unknown, micros: boolean): number | undefined {
  if (typeof v === 'string' && /^\d{4}-\d\d-\d\d[T ]/.test(v)) {
    const t = Date.parse(v);
    return Number.isFinite(t) ? t : undefined;
  }
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) return undefined;
  if (micros) return n / 1000;
  return n < 1e11 ? n * 1000 : n < 1e14 ? n : n < 1e17 ? n / 1000 : n / 1e6;
}

/** `depth`: how many nests are open (a shipper nests once; a record nested deeper is no one's) */
export function unwrap(o: Record<string, unknown>, depth = 0): { text: string; prefix: Prefix } | undefined {
  for (const n of depth < 2 ? NESTS : []) {
    const inner = objectAt(o, n);
    const got = inner && unwrap(inner, depth + 1);
    if (!got) continue;
    // what the inner record lacks, the outer one may say
    const outer = fields(o);
    got.prefix = { ...outer, ...got.prefix };
    return got;
  }
  let text: string | undefined;
  for (const f of TEXT_FIELDS) {
    text = textOf(o[f]);
    if (text !== undefined) break;
  }
  if (text === undefined) return undefined;
  return { text: text.endsWith('\n') ? text.slice(0, -1) : text, prefix: fields(o) };
}

/** the host, program, pid and date a record's own fields give */
function fields(o: Obj): Prefix {
  const prefix: Prefix = {};
  const labels = (typeof o.labels === 'object' ? o.labels : undefined) as Record<string, unknown> | undefined;
  const k8s = (typeof o.kubernetes === 'object' ? o.kubernetes : undefined) as
    | Record<string, unknown>
    | undefined;
  const host =
    stringField(o, HOST_FIELDS) ??
    stringField(labels, HOST_FIELDS) ??
    stringField(k8s, ['host']) ??
    stringField(objectAt(o, 'host'), ['name', 'hostname']) ??
    stringField(objectAt(o, 'resource', 'labels'), ['node_name', 'nodename', 'host']);
  if (host !== undefined) prefix.host = host;
  const ident =
    stringField(o, ['SYSLOG_IDENTIFIER', '_COMM']) ??
    stringField(labels, ['unit', 'job']) ??
    stringField(objectAt(o, 'syslog'), ['identifier']) ??
    stringField(objectAt(o, 'systemd'), ['unit']);
  if (ident !== undefined) prefix.ident = ident.replace(/\.service$/, '');
  const pid = Number(o._PID ?? o.SYSLOG_PID ?? objectAt(o, 'process')?.pid);
  if (Number.isInteger(pid) && pid > 0) prefix.pid = pid;
  for (const f of TIME_FIELDS) {
    const ms = o[f] === undefined ? undefined : epochMs(o[f], f === '__REALTIME_TIMESTAMP');
    if (ms === undefined) continue;
    const d = new Date(ms);
    prefix.year = d.getUTCFullYear();
    prefix.month = d.getUTCMonth() + 1;
    break;
  }
  return prefix;
}
