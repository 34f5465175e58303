/**
 * Real kubelet lines as people paste them: behind the line numbers of `cat -n`, `nl`, `less -N` and `grep -n`,
 * the file names of `grep -H` and a grep over several files, e-mail and Markdown quoting, a table's border, a
 * stamp of `kubectl logs --timestamps` before a journald line, and several of these in one paste. Each paste is
 * made from lines of testdata/ (see its README for where each log comes from) in the exact form the tool
 * prints, and must give the events of the log as written, on the same lines of the paste.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../events/trace.ts';
import { importKubeletLog } from './index.ts';
import { of } from './test-lines.ts';

const dir = join(import.meta.dirname, 'testdata');
function lines(prefix: string, from: number, to: number): string[] {
  const all = readFileSync(join(dir, `${prefix}.log`), 'utf8').split('\n');
  return all.slice(from - 1, to);
}
/** 01: a bare klog file (Windows, pid 3312) */
const KLOG = lines('01-v1.17-windows-glog-v4-full-lifecycle', 1, 120);
/** 03: journald (kubelet.sh[2473]), with a liveness probe's multi-line output */
const JOURNALD = lines('03-v1.31-openshift-journald-v2-static-pods-probes-crashloop', 1, 886);
/** 10: journald, with whitespace-only and damaged lines kept as found */
const DAMAGED = lines('10-v1.16-1.18-journald-glog-v2-sandbox-create-failure', 1, 27);

/** the events of an import, each with the line of the paste it came from */
function eventsOf(text: string[], year: number): TraceEvent[] {
  return importKubeletLog(text.join('\n'), { year }).events;
}

/** what the tools print before line i (0-based) */
const catN = (l: string, i: number) => `${String(i + 1).padStart(6)}\t${l}`;
const lessN = (l: string, i: number) => `${String(i + 1).padStart(7)} ${l}`;
const grepN = (l: string, i: number) => `${i + 1}:${l}`;
const grepH = (l: string) => `kubelet.log:${l}`;
const quote = (l: string) => (l === '' ? '>' : `> ${l}`);

describe('decorated pastes', () => {
  const plain01 = eventsOf(KLOG, 2019);
  const plain03 = eventsOf(JOURNALD, 2025);

  it.each([
    ['cat -n', catN],
    ['less -N', lessN],
    ['grep -n', grepN],
    ['grep -H', grepH],
    ['grep -Hn', (l: string, i: number) => `kubelet.log:${i + 1}:${l}`],
    ['> quoted', quote],
    ['>> quoted twice', (l: string) => `>> ${l}`],
    ['a Markdown table', (l: string) => `| ${l} |`],
    ['a terminal table', (l: string) => `│ ${l} │`],
  ])('%s: a bare klog file gives its events, on its node, at its lines', (_, d) => {
    const events = eventsOf(KLOG.map(d), 2019);
    expect(new Set(events.map((e) => e.node))).toEqual(new Set(['pid 3312']));
    // a table cell's padding before the border is not the line's: compare the texts without trailing blanks
    const trim = (es: TraceEvent[]) =>
      es.map((e) => ('text' in e && typeof e.text === 'string' ? { ...e, text: e.text.trimEnd() } : e));
    expect(trim(events)).toEqual(trim(plain01));
  });

  it.each([
    ['cat -n', catN],
    ['grep -H', grepH],
    ['> quoted', quote],
    ['a Markdown table', (l: string) => `| ${l} |`],
  ])("%s: a journald log's probe output spread over lines stays the probe's output", (_, d) => {
    const events = eventsOf(JOURNALD.map(d), 2025);
    expect(events).toEqual(plain03);
    expect(of(events, 'probe.result').find((e) => e.output)?.output).toContain('not a pid or valid job spec');
  });

  it('nl numbers the lines that are not blank and leaves the blank ones blank', () => {
    let n = 0;
    const nl = (l: string) => (l.trim() === '' ? l : `${String(++n).padStart(6)}\t${l}`);
    expect(eventsOf(DAMAGED.map(nl), 2020)).toEqual(eventsOf(DAMAGED, 2020));
  });

  it('grep -H over damaged lines (whitespace only) keeps them out of the events', () => {
    expect(eventsOf(DAMAGED.map(grepH), 2020)).toEqual(eventsOf(DAMAGED, 2020));
  });

  it("grep -C with file names: a match's `name:n:`, its context's `name-n-` and the `--` between groups", () => {
    const picked = [10, 11, 12, 40, 41, 42];
    const paste: string[] = [];
    const want: string[] = [];
    picked.forEach((n, j) => {
      if (j === 3) {
        paste.push('--');
        want.push('');
      }
      const l = KLOG[n - 1] as string;
      paste.push(j % 3 === 1 ? `kubelet.log:${n}:${l}` : `kubelet.log-${n}-${l}`);
      want.push(l);
    });
    const got = eventsOf(paste, 2019);
    expect(got.map((e) => e.node)).toEqual(got.map(() => 'pid 3312'));
    expect(got).toEqual(eventsOf(want, 2019));
  });

  it('kubectl logs --timestamps (or a CI runner) before journald lines: the stamp is taken off', () => {
    let last = '';
    const stamped = JOURNALD.map((l) => {
      const m = /[IWEF](\d\d)(\d\d) (\d\d:\d\d:\d\d\.\d+)/.exec(l);
      if (m) last = `2025-${m[1]}-${m[2]}T${m[3]}Z`;
      return `${last} ${l}`;
    });
    expect(eventsOf(stamped, 2025)).toEqual(plain03);
    // and the stamp's year is the year of the lines behind it
    const other = importKubeletLog(stamped.join('\n'), { year: 2020 }).events;
    expect(new Date(other[0]?.time as number).getUTCFullYear()).toBe(2025);
  });

  it("a CI runner's stamp before `cat -n` output: both are taken off", () => {
    // the runner's clock: the line's own time, seven digits of fraction as GitHub Actions writes them
    let last = '';
    const ci = KLOG.map((l, i) => {
      const m = /[IWEF](\d\d)(\d\d) (\d\d:\d\d:\d\d\.\d+)/.exec(l);
      if (m) last = `2019-${m[1]}-${m[2]}T${m[3]}0Z`;
      return `${last} ${catN(l, i)}`;
    });
    expect(eventsOf(ci, 2019)).toEqual(plain01);
  });

  it('journalctl -o short-precise is read as a prefix already', () => {
    const precise = JOURNALD.map((l) => {
      const m = /^(\w{3} \d\d \d\d:\d\d:\d\d)( .*[IWEF]\d{4} \d\d:\d\d:\d\d(\.\d{6}))/.exec(l);
      return m ? `${m[1]}${m[3]}${l.slice((m[1] as string).length)}` : l;
    });
    expect(eventsOf(precise, 2025)).toEqual(plain03);
  });

  it('one paste of several blocks, each decorated its own way, gives the events of the log', () => {
    const forms = [catN, quote, grepH, (l: string) => `| ${l} |`, grepN];
    const size = Math.ceil(JOURNALD.length / forms.length);
    const mixed = JOURNALD.map((l, i) =>
      (forms[Math.floor(i / size)] as (l: string, i: number) => string)(l, i),
    );
    expect(eventsOf(mixed, 2025)).toEqual(plain03);
  });

  it('a plain log is read as it is: `| `, `> ` and `name:` inside a message or at a line start stay', () => {
    const uid = '0ac7a38c-74bc-4d23-ae50-2576492537e0';
    const head = KLOG[0] as string;
    const log = [
      head,
      'I0820 20:41:02.941501    3312 kubelet.go:1906] piped: "a | b > c" | tail > out',
      '| col | col |',
      '> not a quote',
      'kubelet.log:not a file name',
      '   12 not a line number',
      `I0820 20:41:03.000000    3312 kubelet.go:1906] SyncLoop (DELETE, "api"): "gcp-filestore-csi-node-glfr9_kube-system(${uid})"`,
    ];
    const events = eventsOf(log, 2019);
    const texts = of(events, 'log.raw').map((e) => e.text);
    expect(texts).toEqual([
      'piped: "a | b > c" | tail > out',
      '| col | col |\n> not a quote',
      'kubelet.log:not a file name\n   12 not a line number',
    ]);
    expect(events.every((e) => e.node === 'pid 3312')).toBe(true);
  });

  it('long runs of what looks like decorations are looked at in their first characters only', () => {
    const head = KLOG[0] as string;
    const long = [
      `${'> '.repeat(300_000)}${head}`,
      `${'a:'.repeat(300_000)}${head}`,
      `${'1:'.repeat(300_000)}${head}`,
      `| ${'| '.repeat(300_000)}${head} |`,
    ];
    const t0 = performance.now();
    const { events, summary } = importKubeletLog([...long, ...KLOG.slice(0, 20)].join('\n'), { year: 2019 });
    expect(performance.now() - t0).toBeLessThan(5_000);
    expect(summary.failed).toBeUndefined();
    const later = events.filter((e) => (e.origin?.line ?? 0) > long.length);
    const written = eventsOf(KLOG.slice(0, 20), 2019);
    expect(
      later.map(({ seq: _, origin, ...e }) => ({ ...e, line: (origin?.line ?? 0) - long.length })),
    ).toEqual(written.map(({ seq: _, origin, ...e }) => ({ ...e, line: origin?.line })));
  });
});
