/**
 * Any line in linear time, never a thrown error: lines of the shapes a kubelet writes, grown to 256 KiB in the
 * part a reader loops over (a back-off's delay, a value list, a syslog prefix, a nested JSON value, a quote of a
 * quote). Time is compared, not clocked: 256 KiB in one line may cost at most ten times what it costs in sixteen
 * lines of 16 KiB (a reader quadratic in the line would pay sixteen times as much, and 64 KiB read quadratically
 * took seconds). And a seeded fuzz of ten thousand lines built from the pieces readers act on.
 */
import { describe, expect, it } from 'vitest';
import { importKubeletLog } from './index.ts';

const H = 'I0820 20:41:02.123456    1234 kuberuntime_manager.go:1000] ';
const UID = '0b7a1e3c-1111-2222-3333-444455556666';
const OK = 'I0820 20:41:03.000000    1234 kubelet.go:2204] "SyncLoop (housekeeping)"';
/** the line after the long ones */
const LAST = 'I0820 20:41:09.000000    1234 kubelet.go:2204] "SyncLoop (housekeeping)"';
const LAST_TIME = Date.UTC(2024, 7, 20, 20, 41, 9);
const readLast = (events: { type: string; time: number }[]) =>
  events.filter((e) => e.type === 'loop.iteration' && e.time === LAST_TIME).length;

/** a line of about `n` characters, grown in the part a reader loops over */
const SHAPES: Record<string, (n: number) => string> = {
  'a back-off delay of digits': (n) =>
    `${H}"Back-off restarting failed container" err="back-off ${'1'.repeat(n)} restarting failed container=c pod=web-0_shop(${UID})"`,
  'a glog back-off delay of digits': (n) =>
    `${H}back-off ${'7'.repeat(n)} restarting failed container=c pod=web-0_shop(${UID})`,
  'a housekeeping duration of digits': (n) => `${H}"SyncLoop (housekeeping) end" duration="${'1'.repeat(n)}"`,
  'a sync error of digits': (n) =>
    `${H}Error syncing pod ${UID} ("web-0_shop(${UID})"), skipping: failed to "StartContainer" for "c" with CrashLoopBackOff: "back-off ${'3'.repeat(n)}s restarting failed container=c pod=web-0_shop(${UID})"`,
  'many quoted values': (n) => `${H}"Probe failed" ${'probeType="Liveness" '.repeat(n / 21)}`,
  'brackets opened': (n) => `${H}"Probe failed" output=${'['.repeat(n)}`,
  'braces opened': (n) => `${H}${'{'.repeat(n)}`,
  'nested brackets': (n) => `${H}"Probe failed" output=${'['.repeat(n / 2)}${']'.repeat(n / 2)}`,
  'deep JSON': (n) =>
    `{"ts":1724186462.1,"caller":"kubelet/kubelet.go:1","msg":"Probe failed","v":0,"output":${'['.repeat(n / 2)}${']'.repeat(n / 2)}}`,
  'a prefix of many segments': (n) =>
    `Aug 20 20:41:02 n1 kubelet[1]: ${'x]: '.repeat(n / 4)}kubelet ${OK.slice(0, 60)}`,
  'a cut prefix of many segments': (n) => `${'a]: '.repeat(n / 4)}x ${OK}`,
  'quotes of quotes': (n) =>
    `${'I0820 20:41:01.000000 1 start.go:1] Found kubelet problem: '.repeat(n / 60)}${OK}`,
  'a word without blanks before a header': (n) => `${'x'.repeat(n)} kubelet[1]: ${OK}`,
  unicode: (n) => `${H}"Probe failed" output="${'é😀ü'.repeat(n / 4)}"`,
  backslashes: (n) => `${H}"${'\\'.repeat(n)}`,
  'klog headers without a file': (n) => `${'I0820 20:41:02.123456 1 '.repeat(n / 24)}`,
  'pod references': (n) => `${H}"Killing unwanted pod" podName="${'a/'.repeat(n / 2)}"`,
};

/** the least of three timings of an import of each text (ms), taken in turns so a busy machine slows both alike */
function timed(a: string, b: string): [number, number] {
  let ta = Number.POSITIVE_INFINITY;
  let tb = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i++) {
    let t0 = performance.now();
    importKubeletLog(a, { year: 2024 });
    ta = Math.min(ta, performance.now() - t0);
    t0 = performance.now();
    importKubeletLog(b, { year: 2024 });
    tb = Math.min(tb, performance.now() - t0);
  }
  return [ta, tb];
}

describe('long lines', () => {
  for (const [name, shape] of Object.entries(SHAPES))
    it(`${name}: 256 KiB in one line costs what it costs in small lines, and the next line is read`, () => {
      const big = `${shape(262_144)}\n${LAST}\n`;
      const small = `${Array.from({ length: 16 }, () => shape(16_384)).join('\n')}\n${LAST}\n`;
      const { events, summary } = importKubeletLog(big, { year: 2024 });
      expect(summary.failed).toBeUndefined();
      expect(summary.tooLong).toBe(0);
      expect(readLast(events)).toBe(1);
      const [one, many] = timed(big, small);
      // linear, not quadratic (64 KiB of digits takes 10 s read quadratically, 256 KiB sixteen times that): a
      // wide margin and a 200 ms floor, since a loaded machine's timing of one fast line is mostly noise
      expect(one).toBeLessThan(10 * Math.max(many, 200));
    });

  it('ten thousand generated lines up to a megabyte: none breaks a reader, the last line is read', {
    timeout: 60_000,
  }, () => {
    let seed = 32;
    const rand = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
      return seed % n;
    };
    const pieces = [
      H,
      '"Probe failed" ',
      'output=<\n',
      '\n >',
      ' pod="ns/p" ',
      `podUID="${UID}" `,
      'err="back-off 5m0s restarting failed container=c pod=p_ns(',
      ')" ',
      'Found kubelet problem: ',
      'kubelet[12]: ',
      ']: ',
      '{"ts":1,"msg":"',
      '"}',
      '[',
      ']',
      '{',
      '}',
      '"',
      '\\',
      '12345678901234567890',
      'é😀',
      '\t',
      '…',
      '>',
      ' |  ',
    ];
    const lines: string[] = [];
    let chars = 0;
    for (let i = 0; i < 10_000; i++) {
      // most lines short, one in two hundred long, one in two thousand near a megabyte
      const long = rand(200) === 0;
      const target = long ? (rand(10) === 0 ? 900_000 : 64_000) : 200;
      let l = rand(2) === 0 ? H : '';
      const rep = pieces[rand(pieces.length)] as string;
      while (l.length < target) l += rand(4) === 0 ? rep.repeat(16) : pieces[rand(pieces.length)];
      lines.push(l);
      chars += l.length;
    }
    lines.push(LAST);
    const { events, summary } = importKubeletLog(`${lines.join('\n')}\n`, { year: 2024 });
    expect(chars).toBeGreaterThan(5_000_000);
    expect(summary.failed).toBeUndefined();
    expect(readLast(events)).toBe(1);
  });
});
