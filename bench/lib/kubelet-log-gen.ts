/**
 * A large kubelet log for P6, made from the real sample logs (packages/core/src/kubelet-log/testdata): the five
 * files one after another, again and again, each copy re-stamped so the whole file is one timeline from
 * 2024-01-01 on (klog headers, journald/syslog prefixes and JSON `ts` all moved by the same amount). Written in
 * blocks; memory holds one copy of the samples.
 */
import { createWriteStream, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './spawn.ts';

const DATA = join(ROOT, 'packages', 'core', 'src', 'kubelet-log', 'testdata');
const KLOG = /([IWEF])(\d\d)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{6})/;
const SYSLOG = /^([A-Z][a-z]{2}) +(\d{1,2}) (\d\d):(\d\d):(\d\d)/;
const TS = /"ts":(\d+(?:\.\d+)?)/;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const p2 = (n: number) => String(n).padStart(2, '0');

interface Sample {
  lines: string[];
  /** ms (on a 2024 calendar for klog/syslog, the epoch for JSON) of each line, NaN when it has none */
  times: number[];
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

function load(): Sample[] {
  return readdirSync(DATA)
    .filter((f) => f.endsWith('.log'))
    .sort()
    .map((f) => {
      const lines = readFileSync(join(DATA, f), 'utf8').split('\n');
      if (lines.at(-1) === '') lines.pop();
      const times = lines.map(timeOf);
      const known = times.filter((t) => !Number.isNaN(t));
      return { lines, times, first: Math.min(...known), last: Math.max(...known) };
    });
}

/** The line moved by shiftMs (whole seconds, so the microseconds of the header stay as written). */
function restamp(line: string, shiftMs: number): string {
  let out = line.replace(TS, (_, ts: string) => `"ts":${(Number(ts) + shiftMs).toFixed(3)}`);
  out = out.replace(
    KLOG,
    (_m, lvl: string, mo: string, d: string, h: string, mi: string, s: string, us: string) => {
      const t = new Date(
        Date.UTC(2024, Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) + shiftMs,
      );
      return `${lvl}${p2(t.getUTCMonth() + 1)}${p2(t.getUTCDate())} ${p2(t.getUTCHours())}:${p2(t.getUTCMinutes())}:${p2(t.getUTCSeconds())}.${us}`;
    },
  );
  out = out.replace(SYSLOG, (_m, mo: string, d: string, h: string, mi: string, s: string) => {
    const t = new Date(
      Date.UTC(2024, MONTHS.indexOf(mo), Number(d), Number(h), Number(mi), Number(s)) + shiftMs,
    );
    return `${MONTHS[t.getUTCMonth()]} ${p2(t.getUTCDate())} ${p2(t.getUTCHours())}:${p2(t.getUTCMinutes())}:${p2(t.getUTCSeconds())}`;
  });
  return out;
}

/** Writes at least `bytes` bytes of log to `path`; returns the size written and the number of copies. */
export async function writeBigLog(path: string, bytes: number): Promise<{ bytes: number; copies: number }> {
  const samples = load();
  const out = createWriteStream(path);
  let written = 0;
  let copies = 0;
  let at = Date.UTC(2024, 0, 1);
  while (written < bytes) {
    for (const s of samples) {
      const shift = Math.round((at - s.first) / 1000) * 1000;
      const text = `${s.lines.map((l) => restamp(l, shift)).join('\n')}\n`;
      written += Buffer.byteLength(text);
      if (!out.write(text)) await new Promise<void>((r) => out.once('drain', () => r()));
      at += s.last - s.first + 1000;
    }
    copies++;
  }
  await new Promise<void>((r) => out.end(() => r()));
  return { bytes: written, copies };
}
