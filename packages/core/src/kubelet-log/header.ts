/**
 * One physical line of input, classified: a klog entry (text or JSON), a line of another program, a
 * continuation of the entry before it, or blank. The klog header is found at the start, after a prefix
 * (prefix.ts reads the prefixes: journald/syslog, RFC 5424, `host: `, CRI, stamps) or anywhere; JSON lines are
 * docker's json-file records (`{"log":…,"stream":…,"time":…}`, unwrapped by the caller), klog JSON
 * (`{"ts":…,"msg":…}`), or records of journald's export and log shippers (wrapped.ts: the line they carry read
 * under the prefix their fields make). Called by KubeletLogParser for every line; a klog line's result is one
 * object reused by the next call (KLOG_LINE), otherwise stateless.
 */
import { fromLogrus } from './logrus.ts';
import { NO_PREFIX, type Prefix, parsePrefix, prefixBefore, prefixOfPlain, SeenPrefixes } from './prefix.ts';
import { unwrap } from './wrapped.ts';

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

/**
 * The fields of a line's klog header when it is at the start or right after the line's prefix (its first
 * `: `): the cheap read a whole log's first pass makes of every line (blocks.ts). One object, valid until the
 * next call; undefined for a line without such a header.
 */
export function headerStamp(raw: string): Readonly<typeof hdr> | undefined {
  if (klogAt(raw, 0)) return hdr;
  const colon = raw.indexOf(': ');
  return colon > 0 && colon < 200 && klogAt(raw, colon + 2) ? hdr : undefined;
}

/** where the first klog header in the line starts, or -1 */
function klogAnywhere(raw: string): number {
  const m = KLOG.exec(raw);
  return m !== null && klogAt(raw, m.index) ? m.index : -1;
}
const QUOTED_BY_MINIKUBE = 'Found kubelet problem: ';

/** lines that start the way other daemons' logs do (logrus, ISO stamps, audit, syslog, journalctl notes) */
const FOREIGN =
  /^(?:\d{4}[-/]\d\d[-/]\d\d|time="|level=|type=\w+ msg=audit|audit|\[\s*\d+\.\d+\]|[A-Z][a-z]{2} +\d{1,2} \d\d:\d\d|-- )/;
/** the text of another logger under a kubelet's identifier (k3s' logrus, its etcd's zap JSON) */
const FOREIGN_TEXT = /^(?:time="|level=|\{"level":)/;
/**
 * The journald identifiers a kubelet writes under: kubenswrapper is OpenShift 4's kubelet, kubelite MicroK8s';
 * hyperkube, k3s, k0s, rke2, OpenShift 3's atomic-openshift-node / origin-node, KubeEdge's edgecore and MicroShift
 * run it inside them, most in one process with their other parts.
 */
const KUBELET_IDENT =
  /kubelet|kubenswrapper|kubelite|hyperkube|k3s|k0s|rke2|microk8s|openshift-node|origin-node|edgecore|microshift/i;

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
  /** `of`: the prefix of another part of a process that also runs the kubelet (the lines after it may continue it) */
  | { kind: 'other'; of?: Prefix }
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

/** for a caller that reads lines one at a time, outside an input (the direction sniffer) */
const NOTHING_SEEN = new SeenPrefixes();

/**
 * `seen`: the prefix forms this input's kubelet lines came behind so far (the caller notes each klog line's
 * prefix in it), by which a line without a header behind a node's name or a stamp alone is still read.
 */
export function classify(line: string, seen: SeenPrefixes = NOTHING_SEEN): Line {
  // minikube (`start --alsologtostderr`) quotes a node's kubelet line after its own header (a quote of its own
  // log quotes it again): the innermost line is read
  let start = 0;
  let headed = klogAt(line, 0);
  while (headed && line.startsWith(QUOTED_BY_MINIKUBE, hdr.end)) {
    start = hdr.end + QUOTED_BY_MINIKUBE.length;
    headed = klogAt(line, start);
  }
  const raw = start === 0 ? line : line.slice(start);
  if (isBlank(raw)) return BLANK;
  // a JSON record (docker json-file, klog JSON, journald's export) may carry a klog header inside its text:
  // look at it first (`journalctl -o json-seq` puts an ASCII record separator before each record)
  const c0 = raw.charCodeAt(0);
  if (c0 === 123 || c0 === 30) {
    const obj = parseObject(c0 === 30 ? raw.slice(1) : raw);
    if (obj) {
      if (typeof obj.log === 'string' && typeof obj.time === 'string')
        return { kind: 'docker', log: obj.log, time: obj.time };
      if (isKlogJson(obj)) return { kind: 'json', prefix: NO_PREFIX, obj };
      const w = unwrap(obj);
      if (w) return lineUnder(w.text, w.prefix);
      // another program's JSON (zap, logrus) with no line of a kubelet in it
      if (klogAnywhere(raw) < 0) return OTHER;
    }
  }
  // a header at the start (a klog file, -o cat) or right after a syslog prefix's ": ", else anywhere; one at
  // the start was read above (nothing since has read another: a line with one starts with its severity, no JSON)
  let at = (start === 0 ? headed : klogAt(raw, 0)) ? 0 : -1;
  if (at < 0) {
    const colon = raw.indexOf(': ');
    if (colon > 0 && klogAt(raw, colon + 2)) at = colon + 2;
    else {
      // k0s: the kubelet's line quoted inside k0s' own logger's record
      const k0s = fromLogrus(raw);
      if (k0s) {
        // k0s' own record about the kubelet, unless the kubelet printed its text (old k0s tags no stream)
        if (!k0s.printed && !klogAt(k0s.text, 0)) return OTHER;
        const prefix = k0s.before === '' ? NO_PREFIX : parsePrefix(k0s.before);
        if (!prefix) return OTHER;
        const dated =
          k0s.year === undefined ? prefix : { ...prefix, year: k0s.year, month: k0s.month as number };
        return lineUnder(k0s.text, dated);
      }
      at = klogAnywhere(raw);
    }
  }
  if (at >= 0) {
    const prefix = prefixBefore(raw, at);
    // a header after an unknown prefix is still a kubelet line (a damaged or unusual prefix); a header
    // under another program's journald identifier (kube-proxy, …) is that program's
    if (prefix && !isKubeletIdent(prefix)) return OTHER;
    // another part of the process that runs the kubelet (MicroShift): its lines, and the lines that continue them
    if (prefix?.component !== undefined && prefix.component !== 'kubelet' && prefix.component !== '???')
      return { kind: 'other', of: prefix };
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
        if (isKlogJson(obj)) return { kind: 'json', prefix, obj };
      }
    }
  }
  // no header: a journald line of a kubelet identifier continues the entry before it; another identifier
  // is another program; without a prefix it is a continuation unless it starts like another log
  const plain = prefixOfPlain(raw, seen);
  if (plain) {
    if (!isKubeletIdent(plain.prefix)) return OTHER;
    const text = syslogTabs(raw.slice(plain.at));
    // a process that hosts the kubelet (k3s, kubelite) writes its own logrus and zap lines too
    if (FOREIGN_TEXT.test(text)) return OTHER;
    return { kind: 'cont', prefix: plain.prefix, text };
  }
  if (FOREIGN.test(raw)) return OTHER;
  return { kind: 'cont', prefix: NO_PREFIX, text: raw };
}

/**
 * rsyslog writes a control character as `#` and its octal code (`$EscapeControlCharactersOnReceive`, on by
 * default), so in /var/log/syslog and /var/log/messages the tab that indents a continuation line (a `key=<`
 * block) is `#011`: those at the start are tabs again.
 */
function syslogTabs(text: string): string {
  if (text.charCodeAt(0) !== 35 || !text.startsWith('#011')) return text;
  let i = 0;
  while (text.startsWith('#011', i)) i += 4;
  return '\t'.repeat(i / 4) + text.slice(i);
}

/**
 * The line a JSON record carried (wrapped.ts), read under the prefix the record's fields make: a klog line, klog
 * JSON, or (under a kubelet's identifier) a continuation; another program's line is OTHER.
 */
function lineUnder(text: string, prefix: Prefix): Line {
  if (!isKubeletIdent(prefix)) return OTHER;
  if (isBlank(text)) return BLANK;
  if (klogAt(text, 0)) return klogLine(text, 0, prefix);
  if (text.charCodeAt(0) === 123) {
    const obj = parseObject(text);
    if (obj && isKlogJson(obj)) return { kind: 'json', prefix, obj };
  }
  if (prefix.ident === undefined && FOREIGN.test(text)) return OTHER;
  return { kind: 'cont', prefix, text };
}

/** klog's JSON format: a number `ts` (zap's other users write a date string) and a `msg` */
function isKlogJson(o: Record<string, unknown>): boolean {
  return typeof o.ts === 'number' && typeof o.msg === 'string';
}

/** deeper nesting than any record a kubelet or a log shipper writes */
const MAX_JSON_DEPTH = 256;

/**
 * Whether a JSON text nests deeper than MAX_JSON_DEPTH (brackets inside strings not counted): such a line is not
 * parsed (a parse allocates every level, 270 ms for a megabyte of brackets) and is read as text.
 */
function tooDeep(s: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

function parseObject(s: string): Record<string, unknown> | undefined {
  if (s.length > 2 * MAX_JSON_DEPTH && tooDeep(s)) return undefined;
  try {
    const v = JSON.parse(s) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
