/**
 * One physical line of input, classified: a klog entry (text or JSON), a line of another program, a
 * continuation of the entry before it, or blank. Knows the line prefixes a kubelet log arrives with:
 * journald/syslog (`Aug 20 20:41:02[.123456] host ident[pid]: `, also `-o short-iso[-precise]`), a bare
 * `host: ` (talosctl, kubectl logs --prefix), the CRI container-log prefix (`<RFC 3339> stderr F `), docker's
 * json-file records (`{"log":…,"stream":…,"time":…}`, unwrapped by the caller), klog JSON (`{"ts":…,"msg":…}`)
 * and none (`journalctl -o cat`, a klog file). Stateless; called by KubeletLogParser for every line.
 */
import { monthOf } from './time.ts';

/** glog/klog text header: severity, MMDD hh:mm:ss.uuuuuu, thread id (the pid), file:line] */
const KLOG = /([IWEF])(\d\d)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{6}) +(\d+) ([^\s:\]]+:\d+)\] ?/;
/** the same header, tried at one position only */
const KLOG_AT = new RegExp(KLOG.source, 'y');

/** the klog header starting exactly at i, if there is one */
function klogAt(raw: string, i: number): RegExpExecArray | null {
  const c = raw.charCodeAt(i);
  if (c !== 73 && c !== 87 && c !== 69 && c !== 70) return null;
  KLOG_AT.lastIndex = i;
  return KLOG_AT.exec(raw);
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
const KUBELET_IDENT = /kubelet|hyperkube|k3s|k0s|rke2|microk8s/i;

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

const OTHER: Line = { kind: 'other' };
const BLANK: Line = { kind: 'blank' };
const NO_PREFIX: Prefix = {};

/** journald's short format, `Mmm dd hh:mm:ss[.frac] `: where the host part starts, else -1 (no regex) */
function shortStampEnd(p: string): number {
  if (p.length < 17 || p.charCodeAt(3) !== 32 || p.charCodeAt(9) !== 58 || p.charCodeAt(12) !== 58) return -1;
  let i = 15;
  if (p.charCodeAt(i) === 46) {
    i++;
    while (i < p.length && p.charCodeAt(i) >= 48 && p.charCodeAt(i) <= 57) i++;
  }
  return p.charCodeAt(i) === 32 ? i + 1 : -1;
}

/** host/identifier/pid parts of short-format prefixes already read (a log has few) */
const shortCache = new Map<string, Prefix | null>();

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
    if (hit) return hit;
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

export function classify(raw: string): Line {
  if (isBlank(raw)) return BLANK;
  // a JSON record (docker json-file, klog JSON) may carry a klog header inside its text: look at it first
  if (raw.charCodeAt(0) === 123) {
    const obj = parseObject(raw);
    if (obj) {
      if (typeof obj.log === 'string' && typeof obj.time === 'string')
        return { kind: 'docker', log: obj.log, time: obj.time };
      if ('ts' in obj && typeof obj.msg === 'string') return { kind: 'json', prefix: NO_PREFIX, obj };
    }
  }
  let m: RegExpExecArray | null;
  // a header at the start (a klog file, -o cat) or right after a syslog prefix's ": ", else anywhere
  m = klogAt(raw, 0);
  if (m === null) {
    const colon = raw.indexOf(': ');
    if (colon > 0) m = klogAt(raw, colon + 2);
    if (m === null) m = KLOG.exec(raw);
  }
  if (m) {
    const prefix = parsePrefix(raw.slice(0, m.index));
    // a header after an unknown prefix is still a kubelet line (a damaged or unusual prefix); a header
    // under another program's journald identifier (kube-proxy, …) is that program's
    if (prefix && !isKubeletIdent(prefix)) return OTHER;
    return {
      kind: 'klog',
      prefix: prefix ?? NO_PREFIX,
      level: m[1] as string,
      month: Number(m[2]),
      day: Number(m[3]),
      h: Number(m[4]),
      m: Number(m[5]),
      s: Number(m[6]),
      micros: Number(m[7]),
      pid: Number(m[8]),
      source: m[9] as string,
      text: raw.slice(m.index + m[0].length),
    };
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
