/**
 * "Replay a file" tells a kubelet log from a Syncscope trace by the file's first bytes: lines of the importer's
 * real sample logs (a klog file, journald, klog JSON behind a node's name), the same lines as journald's export
 * and JSON forms, docker's json-file, gzip and UTF-16 are logs; the node's trace export (one whose events quote a
 * kubelet's line too) and a file that is neither are traces (the trace import says what is wrong with them).
 * The sample files themselves are opened in the browser (test/browser/log-open.spec.ts).
 */
import { classify, importKubeletLog } from '@syncscope/core/kubelet-log';
import { describe, expect, it } from 'vitest';
import { fileKind, kindOfHead } from './file-kind.ts';

/** the first lines of the samples in packages/core/src/kubelet-log/testdata */
const SAMPLES = {
  '01 klog file': [
    'I0820 20:41:01.125791    3312 kubelet.go:1987] SyncLoop (housekeeping)',
    'I0820 20:41:02.641606    3312 config.go:303] Setting pods for source api',
  ],
  '03 journald, structured': [
    'May 12 04:58:17 localhost.localdomain kubelet.sh[2473]: I0512 04:58:17.098489    2473 kubelet.go:2421] "SyncLoop ADD" source="file" pods=["default/bootstrap-machine-config-operator-localhost.localdomain"]',
    'May 12 04:58:17 localhost.localdomain kubelet.sh[2473]: I0512 04:58:17.098550    2473 kubelet_node_status.go:401] "Setting node annotation to enable volume controller attach/detach"',
  ],
  '07 klog JSON behind the node': [
    'sanji: {"ts":1746935588357.0508,"caller":"record/event.go:359","msg":"Server rejected event (will not retry!)","v":0}',
  ],
  '09 journald, glog': [
    'Jan 30 23:23:40 aks-agentpool-57418505-vmss000000 kubelet[4382]: I0130 23:23:40.383506    4382 container_manager_linux.go:457] [ContainerManager]: Discovered runtime cgroups name: /system.slice/docker.service',
  ],
};
const KLOG = (SAMPLES['01 klog file'][0] as string).replace(
  'SyncLoop (housekeeping)',
  '"SyncLoop ADD" pods=["default/web-0"]',
);
const bytes = (s: string) => new TextEncoder().encode(s);
const utf16le = (s: string) => {
  const b = new Uint8Array(2 + s.length * 2);
  b.set([0xff, 0xfe]);
  for (let i = 0; i < s.length; i++) {
    b[2 + 2 * i] = s.charCodeAt(i) & 0xff;
    b[3 + 2 * i] = s.charCodeAt(i) >> 8;
  }
  return b;
};
const gzip = (s: string) =>
  new Response(new Blob([s]).stream().pipeThrough(new CompressionStream('gzip'))).blob();

describe('fileKind', () => {
  it.each(Object.entries(SAMPLES))('reads the lines of sample %s as a kubelet log', async (_, lines) => {
    expect(await fileKind(new Blob([`${lines.join('\n')}\n`]))).toBe('kubelet-log');
  });

  it('reads a log larger than the part it looks at, gzip-compressed, and as UTF-16', async () => {
    const text = `${SAMPLES['03 journald, structured'].join('\n')}\n`.repeat(1_000);
    expect(text.length).toBeGreaterThan(64 * 1024);
    expect(await fileKind(new Blob([text]))).toBe('kubelet-log');
    expect(await fileKind(await gzip(text))).toBe('kubelet-log');
    expect(await fileKind(new Blob([utf16le(text)]))).toBe('kubelet-log');
  });

  it('reads journald’s export and JSON forms and docker’s json-file as kubelet logs', () => {
    const forms = {
      export: `__CURSOR=s=1;i=1\n__REALTIME_TIMESTAMP=1732701601000000\n_HOSTNAME=node-a\nSYSLOG_IDENTIFIER=kubelet\n_PID=4321\nMESSAGE=${KLOG}\n_TRANSPORT=stdout\n`,
      json: JSON.stringify({
        _HOSTNAME: 'node-a',
        SYSLOG_IDENTIFIER: 'kubelet',
        _PID: '4321',
        MESSAGE: KLOG,
      }),
      docker: JSON.stringify({ log: `${KLOG}\n`, stream: 'stderr', time: '2024-11-27T10:00:01.000000001Z' }),
    };
    for (const [form, text] of Object.entries(forms))
      expect(kindOfHead(bytes(`${text}\n`), true), form).toBe('kubelet-log');
  });

  it('reads a trace export as a trace, even one whose events quote a kubelet’s line', async () => {
    const { events } = importKubeletLog(SAMPLES['01 klog file'].join('\n'), { year: 2019 });
    // a raw line that quotes another kubelet's line: the importer's classifier alone would call it a log line
    const quoting = { ...events.find((e) => e.type === 'log.raw'), text: `Found kubelet problem: ${KLOG}` };
    expect(classify(JSON.stringify(quoting)).kind).toBe('klog');
    const ndjson = [quoting, ...events].map((e, i) => JSON.stringify({ ...e, seq: i + 1 })).join('\n');
    expect(await fileKind(new Blob([ndjson]))).toBe('trace');
  });

  it('leaves a file that is neither to the trace import', () => {
    expect(kindOfHead(bytes('not a log\n{"nope": 1}\n'), true)).toBe('trace');
    expect(kindOfHead(bytes(''), true)).toBe('trace');
    const zap = JSON.stringify({ level: 'info', ts: '2024-11-27T10:00:01Z', msg: 'etcd started' });
    expect(kindOfHead(bytes(`${zap}\n`), true)).toBe('trace');
  });
});
