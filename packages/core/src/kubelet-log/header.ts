/**
 * One physical line of input, classified: a klog entry (text or JSON), a line of another program, a
 * continuation of the entry before it, or blank. Knows the line prefixes a kubelet log arrives with:
 * journald/syslog (`Aug 20 20:41:02[.123456] host ident[pid]: `, also `-o short-iso[-precise]`), a bare
 * `host: ` (talosctl, kubectl logs --prefix), the CRI container-log prefix (`<RFC 3339> stderr F `), docker's
 * json-file records (`{"log":…,"stream":…,"time":…}`, unwrapped by the caller), klog JSON (`{"ts":…,"msg":…}`),
 * journald's JSON export (`journalctl -o json`: `{"MESSAGE":…,"_HOSTNAME":…,…}`, its MESSAGE read as the line)
 * and none (`journalctl -o cat`, a klog file). Called by KubeletLogParser for every line; a klog line's result
 * is one object reused by the next call (KLOG_LINE), otherwise stateless.
 */
import { monthOf } from './time.ts';

/** glog/klog text header: severity, MMDD hh:mm:ss.uuuuuu, thread id (the pid), file:line] */
const KLOG = /([IWEF])(\d\d)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{6}) +(\d+) ([^\s:\]]+:\d+)\] ?/;

/**
 * The klog header last read by klogAt, its fields as numbers: one object for every line, so reading a header
 * allocates nothing but its source name. Valid until the next klogAt call.
 */
const hdr = { month: 0, day: 0, h: 0, m: 0, s: 0, micros: 0, pid: 0, srcStart: 0, srcEnd: 0, end: 0 };

/** the value of n ASCII digits at i, or -1 */
function digits(raw: string, i: number, n: number): number {
  let v = 0;
  for (let k = i; k < i + n; k++) {
    const d = raw.charCodeAt(k) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

/** what the regular expression class \s matches */
function isSpace(c: number): boolean {
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    (c >= 0xa0 &&
      (c === 0xa0 ||
        c === 0x1680 ||
        (c >= 0x2000 && c <= 0x200a) ||
        c === 0x2028 ||
        c === 0x2029 ||
        c === 0x202f ||
        c === 0x205f ||
        c === 0x3000 ||
        c === 0xfeff))
  );
}

/**
 * Whether the klog header (KLOG) starts exactly at i; when it does, its fields are in `hdr`. Read character by
 * character, the same match as the regular expression at that position (every part of it is greedy and
 * cannot give back: a digit run ends at a non-digit, the file name at a colon, blank or bracket).
 */
function klogAt(raw: string, i: number): boolean {
  const c = raw.charCodeAt(i);
  if (c !== 73 && c !== 87 && c !== 69 && c !== 70) return false;
  if (raw.length < i + 29) return false;
  const mo = digits(raw, i + 1, 2);
  const d = digits(raw, i + 3, 2);
  if (mo < 0 || d < 0 || raw.charCodeAt(i + 5) !== 32) return false;
  const h = digits(raw, i + 6, 2);
  const m = digits(raw, i + 9, 2);
  const s = digits(raw, i + 12, 2);
  const us = digits(raw, i + 15, 6);
  if (h < 0 || m < 0 || s < 0 || us < 0) return false;
  if (raw.charCodeAt(i + 8) !== 58 || raw.charCodeAt(i + 11) !== 58 || raw.charCodeAt(i + 14) !== 46)
    return false;
  let j = i + 21;
  const n = raw.length;
  if (raw.charCodeAt(j) !== 32) return false;
  while (j < n && raw.charCodeAt(j) === 32) j++;
  const pidStart = j;
  let pid = 0;
  for (let x = raw.charCodeAt(j) - 48; j < n && x >= 0 && x <= 9; x = raw.charCodeAt(++j) - 48)
    pid = pid * 10 + x;
  if (j === pidStart || raw.charCodeAt(j) !== 32) return false;
  const srcStart = ++j;
  for (let x = raw.charCodeAt(j); j < n && x !== 58 && x !== 93 && !isSpace(x); x = raw.charCodeAt(++j));
  if (j === srcStart || raw.charCodeAt(j) !== 58) return false;
  const lineStart = ++j;
  for (let x = raw.charCodeAt(j) - 48; j < n && x >= 0 && x <= 9; x = raw.charCodeAt(++j) - 48);
  if (j === lineStart || raw.charCodeAt(j) !== 93) return false;
  hdr.srcEnd = j;
  j++;
  if (raw.charCodeAt(j) === 32) j++;
  hdr.month = mo;
  hdr.day = d;
  hdr.h = h;
  hdr.m = m;
  hdr.s = s;
  hdr.micros = us;
  hdr.pid = pid;
  hdr.srcStart = srcStart;
  hdr.end = j;
  return true;
}

/** where the first klog header in the line starts, or -1 */
function klogAnywhere(raw: string): number {
  const m = KLOG.exec(raw);
  return m !== null && klogAt(raw, m.index) ? m.index : -1;
}
const SYSLOG =
  /^(?:([A-Z][a-z]{2}) +(\d{1,2}) \d\d:\d\d:\d\d(?:\.\d+)?|(\d{4})-(\d\d)-\d\d[T ][\d:.,]+(?:Z|[+-]\d\d:?\d\d)?) (\S+) ([^\s[\]:]+)(?:\[(\d+)\])?: ?$/;
/** what is left of a syslog prefix whose start was cut off */
const SYSLOG_TAIL = /(?:^|\s)(\S+) ([^\s[\]:]+)\[(\d+)\]: ?$/;
const HOST_ONLY = /^([\w.-]+): ?$/;
const CRI = /^(\d{4})-(\d\d)-\d\dT\S+ (?:stdout|stderr) ([FP]) $/;
/** lines that start the way other daemons' logs do (logrus, ISO stamps, audit, syslog, journalctl notes) */
const FOREIGN =
  /^(?:\d{4}[-/]\d\d[-/]\d\d|time="|level=|type=\w+ msg=audit|audit|\[\s*\d+\.\d+\]|[A-Z][a-z]{2} +\d{1,2} \d\d:\d\d|-- )/;
// kubenswrapper: OpenShift 4's kubelet; kubelite: MicroK8s; hyperkube, k3s, k0s, rke2: the kubelet inside them
const KUBELET_IDENT = /kubelet|kubenswrapper|kubelite|hyperkube|k3s|k0s|rke2|microk8s/i;

export interface Prefix {
  host?: string;
  ident?: string;
  pid?: number;
  /** a full date in the prefix: its year and month */
  year?: number;
  month?: number;
  /** CRI log record flagged P: the message goes on in the next record */
  partial?: boolean;
}

export type Line =
  | {
      kind: 'klog';
      prefix: Prefix;
      level: string;
      month: number;
      day: number;
      h: number;
      m: number;
      s: number;
      micros: number;
      pid: number;
      source: string;
      text: string;
    }
  | { kind: 'json'; prefix: Prefix; obj: Record<string, unknown> }
  | { kind: 'docker'; log: string; time: string }
  | { kind: 'cont'; prefix: Prefix; text: string }
  | { kind: 'other' }
  | { kind: 'blank' };

/**
 * The klog line classify last returned: one object for every such line (most lines of a log are), valid until
 * the next classify call. Its callers read it at once.
 */
const KLOG_LINE: Extract<Line, { kind: 'klog' }> = {
  kind: 'klog',
  prefix: {},
  level: '',
  month: 0,
  day: 0,
  h: 0,
  m: 0,
  s: 0,
  micros: 0,
  pid: 0,
  source: '',
  text: '',
};
const OTHER: Line = { kind: 'other' };
const BLANK: Line = { kind: 'blank' };
const NO_PREFIX: Prefix = {};

/** journald's short format, `Mmm dd hh:mm:ss[.frac] `: where the host part starts, else -1 (no regex) */
function shortStampEnd(p: string, end = p.length): number {
  if (end < 17 || p.charCodeAt(3) !== 32 || p.charCodeAt(9) !== 58 || p.charCodeAt(12) !== 58) return -1;
  let i = 15;
  if (p.charCodeAt(i) === 46) {
    i++;
    while (i < end && p.charCodeAt(i) >= 48 && p.charCodeAt(i) <= 57) i++;
  }
  return i < end && p.charCodeAt(i) === 32 ? i + 1 : -1;
}

/** host/identifier/pid parts of short-format prefixes already read (a log has few) */
const shortCache = new Map<string, Prefix | null>();
/** the last of them, and what it was read as: the next line mostly has the same */
let lastRest = '';
let lastHit: Prefix | null = null;

/** the prefix before a klog header at `at` (parsePrefix of raw's first `at` characters) */
function prefixBefore(raw: string, at: number): Prefix | undefined {
  if (at === 0) return NO_PREFIX;
  const st = lastHit === null ? -1 : shortStampEnd(raw, at);
  if (st > 0 && at - st === lastRest.length && raw.startsWith(lastRest, st)) return lastHit as Prefix;
  return parsePrefix(raw.slice(0, at));
}

function parsePrefix(p: string): Prefix | undefined {
  if (p === '') return NO_PREFIX;
  const at = shortStampEnd(p);
  if (at > 0) {
    const rest = p.slice(at);
    let hit = shortCache.get(rest);
    if (hit === undefined) {
      const m = SYSLOG.exec(p);
      hit = m
        ? { host: m[5] as string, ident: m[6] as string, ...(m[7] ? { pid: Number(m[7]) } : {}) }
        : null;
      if (shortCache.size > 10_000) shortCache.clear();
      shortCache.set(rest, hit);
    }
    if (hit) {
      lastRest = rest;
      lastHit = hit;
      return hit;
    }
  }
  let m = SYSLOG.exec(p);
  if (m) {
    const out: Prefix = { host: m[5], ident: m[6] };
    if (m[7]) out.pid = Number(m[7]);
    if (m[3]) {
      out.year = Number(m[3]);
      out.month = Number(m[4]);
    } else if (m[1]) {
      const mo = monthOf(m[1]);
      if (mo) out.month = mo;
    }
    return out;
  }
  m = CRI.exec(p);
  if (m) return { year: Number(m[1]), month: Number(m[2]), partial: m[3] === 'P' };
  m = HOST_ONLY.exec(p);
  if (m) return { host: m[1] };
  m = SYSLOG_TAIL.exec(p);
  if (m) return { host: m[1], ident: m[2], pid: Number(m[3]) };
  return undefined;
}

const identCache = new Map<string, boolean>();
function isKubeletIdent(p: Prefix): boolean {
  if (p.ident === undefined) return true;
  let yes = identCache.get(p.ident);
  if (yes === undefined) {
    yes = KUBELET_IDENT.test(p.ident);
    if (identCache.size < 1000) identCache.set(p.ident, yes);
  }
  return yes;
}

function isBlank(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13 && c !== 11 && c !== 12) return false;
  }
  return true;
}

/** KLOG_LINE filled from the header klogAt just read at `at` */
function klogLine(raw: string, at: number, prefix: Prefix): Line {
  const k = KLOG_LINE;
  k.prefix = prefix;
  k.level = raw[at] as string;
  k.month = hdr.month;
  k.day = hdr.day;
  k.h = hdr.h;
  k.m = hdr.m;
  k.s = hdr.s;
  k.micros = hdr.micros;
  k.pid = hdr.pid;
  k.source = raw.slice(hdr.srcStart, hdr.srcEnd);
  k.text = raw.slice(hdr.end);
  return k;
}

export function classify(raw: string): Line {
  if (isBlank(raw)) return BLANK;
  // a JSON record (docker json-file, klog JSON, journald's export) may carry a klog header inside its text:
  // look at it first (`journalctl -o json-seq` puts an ASCII record separator before each record)
  const c0 = raw.charCodeAt(0);
  if (c0 === 123 || c0 === 30) {
    const obj = parseObject(c0 === 30 ? raw.slice(1) : raw);
    if (obj) {
      if (typeof obj.log === 'string' && typeof obj.time === 'string')
        return { kind: 'docker', log: obj.log, time: obj.time };
      if ('ts' in obj && typeof obj.msg === 'string') return { kind: 'json', prefix: NO_PREFIX, obj };
      const journal = journalRecord(obj);
      if (journal) return journal;
    }
  }
  // a header at the start (a klog file, -o cat) or right after a syslog prefix's ": ", else anywhere
  let at = klogAt(raw, 0) ? 0 : -1;
  if (at < 0) {
    const colon = raw.indexOf(': ');
    if (colon > 0 && klogAt(raw, colon + 2)) at = colon + 2;
    else at = klogAnywhere(raw);
  }
  if (at >= 0) {
    const prefix = prefixBefore(raw, at);
    // a header after an unknown prefix is still a kubelet line (a damaged or unusual prefix); a header
    // under another program's journald identifier (kube-proxy, …) is that program's
    if (prefix && !isKubeletIdent(prefix)) return OTHER;
    return klogLine(raw, at, prefix ?? NO_PREFIX);
  }
  const brace = raw.indexOf('{"');
  if (brace >= 0) {
    const prefix = brace === 0 ? NO_PREFIX : parsePrefix(raw.slice(0, brace));
    if (prefix && isKubeletIdent(prefix)) {
      const obj = parseObject(raw.slice(brace));
      if (obj) {
        if (typeof obj.log === 'string' && typeof obj.time === 'string' && brace === 0)
          return { kind: 'docker', log: obj.log, time: obj.time };
        if ('ts' in obj && typeof obj.msg === 'string') return { kind: 'json', prefix, obj };
      }
    }
  }
  // no header: a journald line of a kubelet identifier continues the entry before it; another identifier
  // is another program; without a prefix it is a continuation unless it starts like another log
  const sys = SYSLOG.exec(raw.slice(0, raw.indexOf(': ') + 2));
  if (sys) {
    const prefix = parsePrefix(sys[0]) as Prefix;
    if (!isKubeletIdent(prefix)) return OTHER;
    return { kind: 'cont', prefix, text: raw.slice(sys[0].length) };
  }
  if (FOREIGN.test(raw)) return OTHER;
  return { kind: 'cont', prefix: NO_PREFIX, text: raw };
}

/**
 * A record of `journalctl -o json` (or json-seq, json-sse's data): its MESSAGE read as a line under the prefix its
 * fields give (_HOSTNAME, SYSLOG_IDENTIFIER or _COMM, _PID; the year and month of __REALTIME_TIMESTAMP, µs since
 * the epoch). A MESSAGE journald could not keep as UTF-8 text is an array of its bytes. Undefined for an object
 * that is not a journal record.
 */
function journalRecord(o: Record<string, unknown>): Line | undefined {
  const m = o.MESSAGE;
  if (o.__REALTIME_TIMESTAMP === undefined && o._HOSTNAME === undefined) return undefined;
  const text =
    typeof m === 'string'
      ? m
      : Array.isArray(m) && m.every((b) => typeof b === 'number')
        ? new TextDecoder().decode(new Uint8Array(m as number[]))
        : undefined;
  if (text === undefined) return undefined;
  const prefix: Prefix = {};
  if (typeof o._HOSTNAME === 'string') prefix.host = o._HOSTNAME;
  const ident = o.SYSLOG_IDENTIFIER ?? o._COMM;
  if (typeof ident === 'string') prefix.ident = ident;
  const pid = Number(o._PID ?? o.SYSLOG_PID);
  if (Number.isInteger(pid) && pid > 0) prefix.pid = pid;
  const us = Number(o.__REALTIME_TIMESTAMP);
  if (us > 0) {
    const d = new Date(us / 1000);
    prefix.year = d.getUTCFullYear();
    prefix.month = d.getUTCMonth() + 1;
  }
  if (!isKubeletIdent(prefix)) return OTHER;
  const line = text.endsWith('\n') ? text.slice(0, -1) : text;
  if (isBlank(line)) return BLANK;
  if (klogAt(line, 0)) return klogLine(line, 0, prefix);
  if (line.charCodeAt(0) === 123) {
    const obj = parseObject(line);
    if (obj && 'ts' in obj && typeof obj.msg === 'string') return { kind: 'json', prefix, obj };
  }
  return { kind: 'cont', prefix, text: line };
}

function parseObject(s: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(s) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
