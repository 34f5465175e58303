/**
 * A large kubelet log for P6, made from the real sample logs (packages/core/src/kubelet-log/testdata): the five
 * files one after another, again and again, each copy re-stamped so the whole file is one timeline from
 * 2024-01-01 on (klog headers, journald/syslog prefixes and JSON `ts` all moved by the same amount). Written in
 * blocks, to a file or a stream (a process's stdin); memory holds one copy of the samples.
 */
import { createWriteStream, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { ROOT } from './spawn.ts';

const DATA = join(ROOT, 'packages', 'core', 'src', 'kubelet-log', 'testdata');
const KLOG = /([IWEF])(\d\d)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{6})/;
const SYSLOG = /^([A-Z][a-z]{2}) +(\d{1,2}) (\d\d):(\d\d):(\d\d)/;
const TS = /"ts":(\d+(?:\.\d+)?)/;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const p2 = (n: number) => String(n).padStart(2, '0');

/** a line cut where its stamps are: text, then a stamp and text after it, in order */
type Part = string | { kind: 'ts' | 'klog' | 'syslog'; m: RegExpExecArray };

interface Sample {
  lines: Part[][];
  first: number;
  last: number;
}

function timeOf(line: string): number {
  const j = TS.exec(line);
  if (j) return Number(j[1]);
  const k = KLOG.exec(line);
  if (k) return Date.UTC(2024, Number(k[2]) - 1, Number(k[3]), Number(k[4]), Number(k[5]), Number(k[6]));
  return Number.NaN;
}

/** The stamps of a line found once (JSON ts, klog header, syslog prefix; none overlap), so each copy is made
 * by formatting new stamps between the same pieces of text. */
function partsOf(line: string): Part[] {
  const found: { at: number; end: number; part: Part }[] = [];
  for (const [kind, re] of [
    ['ts', TS],
    ['klog', KLOG],
    ['syslog', SYSLOG],
  ] as const) {
    const m = re.exec(line);
    if (m) found.push({ at: m.index, end: m.index + m[0].length, part: { kind, m } });
  }
  found.sort((x, y) => x.at - y.at);
  const parts: Part[] = [];
  let at = 0;
  for (const f of found) {
    parts.push(line.slice(at, f.at), f.part);
    at = f.end;
  }
  parts.push(line.slice(at));
  return parts;
}

function load(): Sample[] {
  return readdirSync(DATA)
    .filter((f) => f.endsWith('.log'))
    .sort()
    .map((f) => {
      const lines = readFileSync(join(DATA, f), 'utf8').split('\n');
      if (lines.at(-1) === '') lines.pop();
      const known = lines.map(timeOf).filter((t) => !Number.isNaN(t));
      return { lines: lines.map(partsOf), first: Math.min(...known), last: Math.max(...known) };
    });
}

/** A stamp moved by shiftMs (whole seconds, so the microseconds of a klog header stay as written). */
function restamp(p: Exclude<Part, string>, shiftMs: number): string {
  const m = p.m;
  if (p.kind === 'ts') return `"ts":${(Number(m[1]) + shiftMs).toFixed(3)}`;
  if (p.kind === 'klog') {
    const [, lvl, mo, d, h, mi, sec, us] = m as unknown as string[];
    const t = new Date(
      Date.UTC(2024, Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec)) + shiftMs,
    );
    return `${lvl}${p2(t.getUTCMonth() + 1)}${p2(t.getUTCDate())} ${p2(t.getUTCHours())}:${p2(t.getUTCMinutes())}:${p2(t.getUTCSeconds())}.${us}`;
  }
  const [, mo, d, h, mi, sec] = m as unknown as string[];
  const t = new Date(
    Date.UTC(2024, MONTHS.indexOf(mo as string), Number(d), Number(h), Number(mi), Number(sec)) + shiftMs,
  );
  return `${MONTHS[t.getUTCMonth()]} ${p2(t.getUTCDate())} ${p2(t.getUTCHours())}:${p2(t.getUTCMinutes())}:${p2(t.getUTCSeconds())}`;
}

/** One copy of a sample, its lines moved by shiftMs. */
function copyOf(s: Sample, shiftMs: number): string {
  const out: string[] = [];
  for (const parts of s.lines) {
    let line = '';
    for (const p of parts) line += typeof p === 'string' ? p : restamp(p, shiftMs);
    out.push(line);
  }
  return `${out.join('\n')}\n`;
}

/**
 * Writes at least `bytes` bytes of log to `out`, waiting when it asks to, and ends it unless `end` is false;
 * returns the size written and the number of copies. Memory holds one copy of the samples.
 */
export async function streamBigLog(
  out: Writable,
  bytes: number,
  end = true,
): Promise<{ bytes: number; copies: number }> {
  const samples = load();
  let written = 0;
  let copies = 0;
  let at = Date.UTC(2024, 0, 1);
  while (written < bytes) {
    for (const s of samples) {
      const shift = Math.round((at - s.first) / 1000) * 1000;
      const text = copyOf(s, shift);
      written += Buffer.byteLength(text);
      if (!out.write(text)) await new Promise<void>((r) => out.once('drain', () => r()));
      at += s.last - s.first + 1000;
    }
    copies++;
  }
  if (end) await new Promise<void>((r) => out.end(() => r()));
  return { bytes: written, copies };
}

/** Writes at least `bytes` bytes of log to `path`; returns the size written and the number of copies. */
export function writeBigLog(path: string, bytes: number): Promise<{ bytes: number; copies: number }> {
  return streamBigLog(createWriteStream(path), bytes);
}
