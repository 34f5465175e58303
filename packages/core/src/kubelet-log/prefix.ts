/**
 * The prefixes a kubelet line arrives behind, read into its host, program, pid and (when the prefix has one)
 * the year and month klog headers lack: journald/syslog (`Aug 20 20:41:02[.123456] host ident[pid]: `,
 * `-o short-iso[-precise]`, `-o short-full`, `-o short-unix`, one whose start was cut), with the component
 * MicroShift names after it, syslog's RFC 5424 header, a bare `host: ` (talosctl, kubectl logs --prefix) or
 * `host ` (oc adm node-logs), the CRI container-log prefix (`<RFC 3339> stderr F `), a stamp alone (`crictl
 * logs -t`) or with Loki's labels (`logcli`). Called by classify (header.ts) with the text before a klog header;
 * the short-format prefixes of a log are few, so they are read once and remembered. prefixOfPlain reads the
 * prefix of a line without a header.
 */
import { monthOf } from './time.ts';

const SYSLOG =
  /^(?:([A-Z][a-z]{2}) +(\d{1,2}) \d\d:\d\d:\d\d(?:\.\d+)?|(\d{4})-(\d\d)-\d\d[T ][\d:.,]+(?:Z|[+-]\d\d:?\d\d)?) (\S+) ([^\s[\]:]+)(?:\[(\d+)\])?: ?$/;
/** what is left of a syslog prefix whose start was cut off */
const SYSLOG_TAIL = /(?:^|\s)(\S+) ([^\s[\]:]+)\[(\d+)\]: ?$/;
/** (a pasted log may be indented as a whole) */
const HOST_ONLY = /^\s*([\w.-]+): ?$/;
/** a host's name has a lower-case letter or a digit (a journal field's name is all capitals) */
const HOST_LETTER = /[a-z0-9]/;
/** a kubelet's own syslog tag, which a line may carry without a pid or host */
const PROGRAM_TAG = /^(?:kubelet|kubelet\.sh|kubelet-wrapper|kubenswrapper|kubelite|hyperkube)$/;
/** a node's name and a blank (`oc adm node-logs` over several nodes): a lowercase DNS name */
const HOST_WORD = /^([a-z0-9](?:[-a-z0-9.]*[a-z0-9])?) $/;
/** syslog's RFC 5424 header (rsyslog's RSYSLOG_SyslogProtocol23Format): `<pri>1 stamp host app procid msgid sd ` */
const RFC5424 = /^<\d{1,3}>\d{1,2} (\S+) (\S+) (\S+) (\S+) \S+ (?:-|\[.*\]) ?$/;
/** a stamp alone (`crictl logs -t`, `kubectl logs --timestamps`), or with Loki's labels (`logcli query`) */
const STAMPED = /^(\d{4})-(\d\d)-\d\dT\S+ (?:\{(.*)\} )?$/;
const LABEL_HOST = /\b(?:host|hostname|node|nodename|node_name)="([^"]+)"/;
/** the date in a prefix SYSLOG_TAIL read (`-o short-full`: `Tue 2024-08-20 20:41:02 UTC`; `-o short-unix`) */
const TAIL_DATE = /(\d{4})-(\d\d)-\d\d|^(\d{9,10})(?:\.\d+)? /;
const CRI = /^(\d{4})-(\d\d)-\d\dT\S+ (?:stdout|stderr) ([FP]) $/;
/** a journald or syslog prefix and a component's name (MicroShift) */
const COMPONENT = /^(.*\]: )(\S+) $/;

export interface Prefix {
  host?: string;
  ident?: string;
  pid?: number;
  /** a full date in the prefix: its year and month */
  year?: number;
  month?: number;
  /** CRI log record flagged P: the message goes on in the next record */
  partial?: boolean;
  /**
   * The component a process that runs several of the cluster's parts names before each klog header (MicroShift:
   * `microshift[pid]: kubelet I0820 …`, `???` when it cannot tell).
   */
  component?: string;
  /**
   * A prefix a line without a klog header cannot be told by alone: a node's name (`host: `, `host `), its exact
   * text; a stamp alone or with labels, 'stamp'. SeenPrefixes remembers them.
   */
  lead?: string;
}

export const NO_PREFIX: Prefix = {};

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
export function prefixBefore(raw: string, at: number): Prefix | undefined {
  if (at === 0) return NO_PREFIX;
  const st = lastHit === null ? -1 : shortStampEnd(raw, at);
  if (st > 0 && at - st === lastRest.length && raw.startsWith(lastRest, st)) return lastHit as Prefix;
  return parsePrefix(raw.slice(0, at));
}

/** a whole journald or syslog prefix (SYSLOG), or undefined */
function syslogOf(p: string): Prefix | undefined {
  const m = SYSLOG.exec(p);
  if (!m) return undefined;
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

/** what is left of a syslog prefix whose start was cut (SYSLOG_TAIL), with a date it still shows, or undefined */
function syslogTail(p: string): Prefix | undefined {
  const m = SYSLOG_TAIL.exec(p);
  if (!m) return undefined;
  const out: Prefix = { host: m[1], ident: m[2], pid: Number(m[3]) };
  const d = TAIL_DATE.exec(p);
  if (d?.[1]) {
    out.year = Number(d[1]);
    out.month = Number(d[2]);
  } else if (d?.[3]) {
    const t = new Date(Number(d[3]) * 1000);
    out.year = t.getUTCFullYear();
    out.month = t.getUTCMonth() + 1;
  }
  return out;
}

export function parsePrefix(p: string): Prefix | undefined {
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
  const syslog = syslogOf(p);
  if (syslog) return syslog;
  let m = CRI.exec(p);
  if (m) return { year: Number(m[1]), month: Number(m[2]), partial: m[3] === 'P' };
  m = HOST_ONLY.exec(p) ?? HOST_WORD.exec(p);
  if (m) {
    const word = m[1] as string;
    // syslog's tag without a pid (`kubelet: `) names the program; a field's name in capitals (`MESSAGE: `, as a
    // journal entry's listing shows it) is no host either
    if (PROGRAM_TAG.test(word)) return { ident: word };
    if (!HOST_LETTER.test(word)) return NO_PREFIX;
    return { host: word, lead: p };
  }
  const tail = syslogTail(p);
  if (tail) return tail;
  m = COMPONENT.exec(p);
  if (m) {
    // the prefix before a component's name is a journald or syslog one, read once (never a component again)
    const before = m[1] as string;
    const inner = syslogOf(before) ?? syslogTail(before);
    if (inner) return { ...inner, component: m[2] as string };
  }
  m = RFC5424.exec(p);
  if (m) {
    const out: Prefix = {};
    if (m[2] !== '-') out.host = m[2];
    if (m[3] !== '-') out.ident = m[3];
    const pid = Number(m[4]);
    if (Number.isInteger(pid) && pid > 0) out.pid = pid;
    const d = /^(\d{4})-(\d\d)-/.exec(m[1] as string);
    if (d) {
      out.year = Number(d[1]);
      out.month = Number(d[2]);
    }
    return out;
  }
  m = STAMPED.exec(p);
  if (m) {
    const out: Prefix = { year: Number(m[1]), month: Number(m[2]), lead: 'stamp' };
    const host = m[3] === undefined ? undefined : LABEL_HOST.exec(m[3]);
    if (host) out.host = host[1];
    return out;
  }
  return undefined;
}

/** the start of an RFC 5424 line: its header up to and with the structured data (`-` or `[…]…`) */
const RFC5424_START = /^<\d{1,3}>\d{1,2} \S+ \S+ \S+ \S+ \S+ (?:-|(?:\[[^\]]*\])+)(?: |$)/;
/** a stamp alone or with Loki's labels at the start of a line */
const STAMPED_START = /^\d{4}-\d\d-\d\dT\S+ (?:\{[^}]*\} )?/;

/**
 * The prefix of a line without a klog header (the next line of a multi-line message, a line the kubelet wrote
 * without one): journald and syslog records, whose program and pid every such line repeats, and RFC 5424
 * records are read as they are; a node's name or a stamp alone only when the kubelet lines of the same input
 * came behind that very form (SeenPrefixes), since a message's own line may start the same way. The prefix
 * and where the text after it starts, or undefined.
 */
export function prefixOfPlain(raw: string, seen: SeenPrefixes): { prefix: Prefix; at: number } | undefined {
  // a stamp first, when this input's lines have one: an ISO stamp and a message's `word word: ` read as syslog
  const stamped = seen.stamp(raw);
  if (stamped) return stamped;
  const colon = raw.indexOf(': ');
  if (colon > 0) {
    const p = raw.slice(0, colon + 2);
    if (SYSLOG.test(p) || SYSLOG_TAIL.test(p)) {
      const prefix = parsePrefix(p);
      if (prefix) return { prefix, at: p.length };
    }
  }
  const c0 = raw.charCodeAt(0);
  if (c0 === 60) {
    const m = RFC5424_START.exec(raw);
    const prefix = m && parsePrefix(m[0]);
    if (m && prefix) return { prefix, at: m[0].length };
  }
  return seen.host(raw);
}

/**
 * The prefix forms of one input that prefixOfPlain cannot read alone, remembered from its kubelet lines (the
 * reader notes every klog line's prefix). Memory: a few hundred node names at most.
 */
export class SeenPrefixes {
  private readonly leads = new Set<string>();
  private stamped = false;

  note(p: Prefix): void {
    const lead = p.lead;
    if (lead === undefined) return;
    if (lead === 'stamp') this.stamped = true;
    else if (this.leads.size < 512) this.leads.add(lead);
  }

  /** a node's name this input's kubelet lines came behind, at the start of raw */
  host(raw: string): { prefix: Prefix; at: number } | undefined {
    if (this.leads.size === 0) return undefined;
    const sp = raw.indexOf(' ');
    const lead = sp > 0 ? raw.slice(0, sp + 1) : '';
    return this.leads.has(lead) ? { prefix: parsePrefix(lead) as Prefix, at: lead.length } : undefined;
  }

  /** a stamp (with labels) at the start of raw, when this input's kubelet lines came behind one */
  stamp(raw: string): { prefix: Prefix; at: number } | undefined {
    if (!this.stamped || raw.charCodeAt(4) !== 45) return undefined;
    const m = STAMPED_START.exec(raw);
    const prefix = m && parsePrefix(m[0]);
    return m && prefix ? { prefix, at: m[0].length } : undefined;
  }
}
