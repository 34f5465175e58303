/**
 * One log, every way it is handed over: the kubelet lines of a real journald sample (03, with multi-line probe
 * output whose every line carries the prefix, as journald stores a stream) are taken out of their prefixes and
 * put behind each prefix the importer reads, and each form must give the events the bare klog lines give, line
 * for line (the node's name aside, which only some forms carry). A prefix read on header lines but not on the
 * lines that continue them shows here: the output of a failed probe gains the prefix, or is lost as another
 * program's line.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../events/trace.ts';
import { importKubeletLog } from './index.ts';
import { counted } from './test-lines.ts';

const SAMPLE = join(
  import.meta.dirname,
  'testdata',
  '03-v1.31-openshift-journald-v2-static-pods-probes-crashloop.log',
);
const HOST = 'node-a';
const MONTHS = 'Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec'.split(' ');
/** journald's short prefix as the sample has it */
const JOURNALD = /^[A-Z][a-z]{2} +\d+ \d\d:\d\d:\d\d \S+ [^\s:[]+\[\d+\]: /;
const KLOG = /^[IWEF](\d\d)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{6}) +(\d+) /;

interface Stamp {
  ms: number;
  us: string;
  pid: number;
}

/** each kubelet line of the sample without its prefix, and the stamp of the entry it belongs to */
function kubeletLines(): { lines: string[]; stamps: Stamp[] } {
  const lines = readFileSync(SAMPLE, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.replace(JOURNALD, ''));
  let last: Stamp = { ms: 0, us: '000000', pid: 1 };
  const stamps = lines.map((l) => {
    const m = KLOG.exec(l);
    if (m) {
      const [mo, d, h, mi, s] = m.slice(1, 6).map(Number) as [number, number, number, number, number];
      last = { ms: Date.UTC(2024, mo - 1, d, h, mi, s), us: m[6] as string, pid: Number(m[7]) };
    }
    return last;
  });
  return { lines, stamps };
}

const iso = (t: Stamp) => `${new Date(t.ms).toISOString().slice(0, 19)}.${t.us}Z`;
const short = (t: Stamp) => {
  const d = new Date(t.ms);
  return `${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, '0')} ${d.toISOString().slice(11, 19)}`;
};

/** each form: the prefix of a line, given its stamp and its number */
const FORMS: Record<string, (t: Stamp, i: number) => string> = {
  'journalctl -o short-precise': (t) => `${short(t)}.${t.us} ${HOST} kubelet[${t.pid}]: `,
  'journalctl -o short-iso': (t) => `${iso(t).slice(0, 19)}+0000 ${HOST} kubelet[${t.pid}]: `,
  'journalctl -o short-full': (t) =>
    `Sun ${iso(t).slice(0, 10)} ${iso(t).slice(11, 19)} UTC ${HOST} kubelet[${t.pid}]: `,
  'journalctl -o short-unix': (t) => `${t.ms / 1000}.${t.us} ${HOST} kubelet[${t.pid}]: `,
  'journalctl -o short-monotonic': (t, i) =>
    `[${String(1000 + i).padStart(6)}.000000] ${HOST} kubelet[${t.pid}]: `,
  'journalctl -o with-unit': (t) => `${short(t)} ${HOST} kubelet.service[${t.pid}]: `,
  'journalctl in a Chinese locale (the month as 5月)': (t) =>
    `${new Date(t.ms).getUTCMonth() + 1}月 ${short(t).slice(4)} ${HOST} kubelet[${t.pid}]: `,
  'RFC 5424 syslog': (t) => `<30>1 ${iso(t)} ${HOST} kubelet ${t.pid} - - `,
  'oc adm node-logs': (t) => `${HOST} ${short(t)} ${HOST} kubelet[${t.pid}]: `,
  'a node name and a colon (talosctl)': () => `${HOST}: `,
  'a node name (oc adm node-logs of a file)': () => `${HOST} `,
  'crictl logs -t': (t) => `${iso(t)} `,
  logcli: (t) => `${iso(t)} {host="${HOST}", unit="kubelet.service"} `,
};

/** a journald record of one line, as journalctl -o json writes it (strings; the time in µs) */
const journald = (l: string, t: Stamp) => ({
  __REALTIME_TIMESTAMP: String(t.ms * 1000 + Number(t.us)),
  _HOSTNAME: HOST,
  SYSLOG_IDENTIFIER: 'kubelet',
  _PID: String(t.pid),
  MESSAGE: l,
});
const pretty = (o: unknown, indent: string) =>
  JSON.stringify(o, null, '\t')
    .split('\n')
    .map((x) => indent + x)
    .join('\n');

/** forms that wrap each line in a JSON record: the whole text, given the lines and their stamps */
const RECORDS: Record<string, (lines: string[], stamps: Stamp[]) => string> = {
  'journalctl -o json': (ls, st) => ls.map((l, i) => JSON.stringify(journald(l, st[i] as Stamp))).join('\n'),
  'journalctl -o json-pretty': (ls, st) =>
    ls.map((l, i) => pretty(journald(l, st[i] as Stamp), '')).join('\n'),
  'gcloud logging read --format=json (Cloud Logging entries, an array)': (ls, st) =>
    `[\n${ls
      .map((l, i) => {
        const { _HOSTNAME: _h, ...payload } = journald(l, st[i] as Stamp);
        const entry = {
          insertId: `id${i}`,
          jsonPayload: payload,
          resource: { type: 'k8s_node', labels: { node_name: HOST, location: 'europe-west1-b' } },
          timestamp: iso(st[i] as Stamp),
          logName: 'projects/p/logs/kubelet',
        };
        return pretty(entry, '  ');
      })
      .join(',\n')}\n]`,
  // each line of the kubelet k0s runs, Go-quoted in a record of k0s' logger (JSON's quoting is Go's here)
  "k0s (the kubelet's lines in k0s' logrus records, through journald)": (ls, st) =>
    ls
      .map((l, i) => {
        const t = st[i] as Stamp;
        const time = iso(t).slice(0, 19);
        return `${short(t)} ${HOST} k0s[777]: time="${time}Z" level=info msg=${JSON.stringify(l)} component=kubelet stream=stderr`;
      })
      .join('\n'),
  'journalctl -o verbose': (ls, st) =>
    ls
      .map((l, i) => {
        const t = st[i] as Stamp;
        const day = 'Sun Mon Tue Wed Thu Fri Sat'.split(' ')[new Date(t.ms).getUTCDay()];
        const at = `${iso(t).slice(0, 10)} ${iso(t).slice(11, 26)}`;
        const cursor = `s=0a1b2c;i=${i.toString(16)};b=3d4e;m=${i.toString(16)};t=5f6a;x=7b8c`;
        const fields = ['_TRANSPORT=stdout', 'PRIORITY=6', 'SYSLOG_IDENTIFIER=kubelet', `_PID=${t.pid}`];
        return [`${day} ${at} UTC [${cursor}]`, ...fields, `_HOSTNAME=${HOST}`, `MESSAGE=${l}`].join(
          '\n    ',
        );
      })
      .join('\n'),
  // every seventh MESSAGE as journald writes a value it cannot write as text: the name, 8 length bytes, the bytes
  // (a length byte over 0x7f does not decode as itself: that value runs to the next field)
  'journalctl -o export': (ls, st) => {
    const parts: Buffer[] = [];
    ls.forEach((l, i) => {
      const t = st[i] as Stamp;
      const head = [
        `__CURSOR=s=0a1b2c;i=${i.toString(16)}`,
        `__REALTIME_TIMESTAMP=${t.ms * 1000 + Number(t.us)}`,
      ];
      parts.push(
        Buffer.from(
          `${[...head, `_HOSTNAME=${HOST}`, 'SYSLOG_IDENTIFIER=kubelet', `_PID=${t.pid}`].join('\n')}\n`,
        ),
      );
      if (i % 7 === 3) {
        const bytes = Buffer.from(l);
        const len = Buffer.alloc(8);
        len.writeBigUInt64LE(BigInt(bytes.length));
        parts.push(Buffer.from('MESSAGE\n'), len, bytes, Buffer.from('\n_TRANSPORT=stdout\n\n'));
      } else parts.push(Buffer.from(`MESSAGE=${l}\n_TRANSPORT=stdout\n\n`));
    });
    return new TextDecoder().decode(Buffer.concat(parts)).replace(/\n\n$/, '');
  },
  'Elasticsearch hits (_source in the common schema)': (ls, st) =>
    ls
      .map((l, i) =>
        JSON.stringify({
          _index: 'logs-journald',
          _source: {
            '@timestamp': iso(st[i] as Stamp),
            message: l,
            host: { name: HOST },
            process: { pid: (st[i] as Stamp).pid },
            syslog: { identifier: 'kubelet' },
            log: { syslog: { priority: 6 } },
          },
        }),
      )
      .join('\n'),
};

/** the events without the node's name, which the bare form gives as the pid */
const strip = (events: TraceEvent[]) => events.map(({ node: _node, ...rest }) => rest);

describe('one log behind every prefix', () => {
  const { lines, stamps } = kubeletLines();
  const bare = importKubeletLog(`${lines.join('\n')}\n`, { year: 2024 });

  it('the bare lines read as the sample does', () => {
    expect(bare.summary).toMatchObject({ other: 0, nodes: ['pid 2473'] });
    // a probe's output written as `output=<` and two more lines: the continuation lines this test is about
    const probe = bare.events.find((e) => e.type === 'probe.result' && e.origin?.line === 143);
    expect(probe).toMatchObject({
      probe: 'Liveness',
      output: "/bin/bash: line 3: kill: `': not a pid or valid job spec",
    });
  });

  for (const [name, prefix] of Object.entries(FORMS)) {
    it(name, () => {
      const text = lines.map((l, i) => prefix(stamps[i] as Stamp, i) + l).join('\n');
      const got = importKubeletLog(`${text}\n`, { year: 2024 });
      expect(got.summary.other).toBe(0);
      expect(counted(got.summary)).toBe(got.summary.lines);
      expect(strip(got.events)).toEqual(strip(bare.events));
      // every form but a stamp alone names the node
      expect(got.summary.nodes).toEqual([name === 'crictl logs -t' ? 'pid 2473' : HOST]);
    });
  }

  for (const [name, form] of Object.entries(RECORDS)) {
    it(name, () => {
      const text = form(lines, stamps);
      const got = importKubeletLog(`${text}\n`, { year: 2000 });
      expect(got.summary.other).toBe(0);
      expect(counted(got.summary)).toBe(got.summary.lines);
      expect(got.summary.nodes).toEqual([HOST]);
      // a record a line of the sample: an event names its record's first line, which is record n's
      // (a record of one line: its number; one pretty-printed over many, or a journal entry of a field a line:
      // the line of its MESSAGE)
      const all = text.split('\n');
      const record = new Map<number, number>();
      all.forEach((l, i) => {
        if (all.length === lines.length || /^\s*(?:"MESSAGE"|MESSAGE=|MESSAGE$)/.test(l))
          record.set(i + 1, record.size + 1);
      });
      expect(record.size).toBe(lines.length);
      const events = got.events.map((e) => ({
        ...e,
        origin: { line: record.get(e.origin?.line ?? 0) ?? 0 },
      }));
      // the same events from the same lines, the year from the records (not the 2000 given)
      expect(strip(events)).toEqual(strip(bare.events));
    });
  }
});
