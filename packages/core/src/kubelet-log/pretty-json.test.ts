/**
 * Records pretty-printed over many lines (`journalctl -o json-pretty`, `gcloud logging read --format=json`):
 * what happens at their edges. The forms themselves, on a whole real log, are in same-events.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { importKubeletLog } from './index.ts';
import { counted } from './test-lines.ts';

const UID = '11111111-2222-3333-4444-555555555555';
const add = (s: number) =>
  `I0820 20:41:0${s}.000000    1234 kubelet.go:2421] "SyncLoop ADD" source="api" pods=["shop/web-${s}"]`;
/** a record as journalctl -o json-pretty prints it: a tab before each field */
const record = (s: number, message = add(s)) =>
  [
    '{',
    `\t"__REALTIME_TIMESTAMP" : "${Date.UTC(2024, 7, 20, 20, 41, s) * 1000}",`,
    '\t"_HOSTNAME" : "n1",',
    '\t"SYSLOG_IDENTIFIER" : "kubelet",',
    '\t"_PID" : "1234",',
    `\t"MESSAGE" : ${JSON.stringify(message)}`,
    '}',
  ].join('\n');

describe('pretty-printed JSON records', () => {
  it('reads each record as one entry numbered by the line of its MESSAGE, the year from the record', () => {
    const { events, summary } = importKubeletLog(`${record(1)}\n${record(2)}\n`, { year: 2000 });
    expect(events.map((e) => [e.type, e.origin?.line, new Date(e.time).getUTCFullYear(), e.node])).toEqual([
      ['config.update', 6, 2024, 'n1'],
      ['config.update', 13, 2024, 'n1'],
    ]);
    expect(summary).toMatchObject({ lines: 14, understood: 14, other: 0 });
  });

  it('an array of records: its brackets and commas are counted, not read', () => {
    const text = `[\n${record(1).replace(/^/gm, '  ')},\n${record(2).replace(/^/gm, '  ')}\n]\n`;
    const { events, summary } = importKubeletLog(text, { year: 2000 });
    expect(events.map((e) => e.origin?.line)).toEqual([7, 14]);
    expect(summary.lines).toBe(16);
    expect(counted(summary)).toBe(16);
  });

  it('a record larger than a line may be is skipped and counted; the next one is read', () => {
    // no line of it is over the limit, the record is
    const big = record(1, `${add(1)} ${'x'.repeat(3000)}`).replace('{', `{\n\t"_X" : "${'y'.repeat(3000)}",`);
    const { events, summary } = importKubeletLog(`${big}\n${record(2)}\n`, { maxLineChars: 4000 });
    expect(events.map((e) => e.origin?.line)).toEqual([14]);
    expect(summary).toMatchObject({ lines: 15, other: 8, understood: 7, tooLong: 0 });
  });

  it('a record cut off by the end of the input is counted as skipped', () => {
    const cut = record(2).split('\n').slice(0, 4).join('\n');
    const { events, summary } = importKubeletLog(`${record(1)}\n${cut}`, { year: 2000 });
    expect(events).toHaveLength(1);
    expect(summary).toMatchObject({ lines: 11, understood: 7, other: 4 });
  });

  it('a multi-line message inside a record keeps its lines', () => {
    const msg = `I0820 20:41:03.000000    1234 prober.go:107] "Probe failed" probeType="Liveness" pod="shop/web-1" podUID="${UID}" containerName="app" probeResult="failure" output=<\n\tconnection refused\n >`;
    const { events } = importKubeletLog(`${record(1)}\n${record(3, msg)}\n`, { year: 2000 });
    expect(events.find((e) => e.type === 'probe.result')).toMatchObject({
      probe: 'Liveness',
      result: 'Failure',
      output: 'connection refused',
      origin: { line: 13 },
    });
  });

  it('a log that starts with a lone brace but holds no record is read line by line, nothing lost', () => {
    const text = `{\n${add(1)}\n  "x": 1\n${add(2)}\n`;
    const { events, summary } = importKubeletLog(text, { year: 2000 });
    expect(events.filter((e) => e.type === 'config.update').map((e) => e.origin?.line)).toEqual([2, 4]);
    expect(summary.lines).toBe(4);
    expect(counted(summary)).toBe(4);
  });

  it('a log that does not start with a lone brace is read line by line', () => {
    const text = `${add(1)}\n{\n${add(2)}\n}\n`;
    const { events } = importKubeletLog(text, { year: 2000 });
    expect(events.filter((e) => e.type === 'config.update').map((e) => e.origin?.line)).toEqual([1, 3]);
  });
});
