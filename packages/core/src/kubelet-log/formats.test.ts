/**
 * Inputs written by hand from the formats' definitions, for what the real samples do not show: the klog header
 * (`Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg`), journald's short and short-precise output and its `-r` and
 * `-o cat` forms, its JSON export (`-o json`, `json-seq`), glog's file header, syslog files, docker's json-file records, the CRI container-log format, klog JSON, CRLF, cut
 * lines, struct dumps over several lines, headers without a year, stamps out of order, several nodes in one file.
 */
import { describe, expect, it } from 'vitest';
import type { TraceEvent, TraceOf, TraceType } from '../events/trace.ts';
import { importKubeletLog, KubeletLogParser, readLinesBackward } from './index.ts';

const UID_A = '11111111-2222-3333-4444-555555555555';
const UID_B = '66666666-7777-8888-9999-000000000000';
const ADD_A = `SyncLoop (ADD, "api"): "web-0_shop(${UID_A})"`;
const PLEG_A = (cid: string, type: string) =>
  `SyncLoop (PLEG): "web-0_shop(${UID_A})", event: &pleg.PodLifecycleEvent{ID:"${UID_A}", Type:"${type}", Data:"${cid}"}`;

function of<T extends TraceType>(events: TraceEvent[], type: T): TraceOf<T>[] {
  return events.filter((e): e is TraceOf<T> => e.type === type);
}

describe('prefixes', () => {
  it('docker json-file records: unwrapped, year from the record, a record split at 16 KiB joined', () => {
    const rec = (log: string, time: string) => JSON.stringify({ log, stream: 'stderr', time });
    const text = [
      rec(`I0314 09:26:53.589793       1 kubelet.go:1900] ${ADD_A}\n`, '2023-03-14T09:26:53.589900000Z'),
      rec(
        'I0314 09:26:54.000001       1 kubelet.go:1945] SyncLoop (PLEG): "web-0_shop(',
        '2023-03-14T09:26:54.0Z',
      ),
      rec(
        `${UID_A})", event: &pleg.PodLifecycleEvent{ID:"${UID_A}", Type:"ContainerStarted", Data:"abc"}\n`,
        '2023-03-14T09:26:54.0Z',
      ),
    ].join('\n');
    const { events, summary } = importKubeletLog(text, { year: 2000 });
    expect(summary).toMatchObject({ lines: 3, understood: 3, nodes: ['pid 1'] });
    expect(events.map((e) => [e.type, e.origin?.line])).toEqual([
      ['config.update', 1],
      ['pleg.event', 2],
    ]);
    expect(new Date(events[0]?.time as number).toISOString()).toBe('2023-03-14T09:26:53.589Z');
  });

  it('the CRI container-log format (stderr F / P)', () => {
    const text = [
      `2024-02-29T23:59:59.100000000Z stderr F I0229 23:59:59.100000    7 kubelet.go:2421] "SyncLoop ADD" source="api" pods=["shop/web-0"]`,
      `2024-02-29T23:59:59.200000000Z stderr P I0229 23:59:59.200000    7 kubelet.go:2453] "SyncLoop (PLEG): event for pod" pod="shop/web-0" event={"ID":"${UID_A}",`,
      `2024-02-29T23:59:59.200000000Z stderr F "Type":"ContainerStarted","Data":"abc"}`,
    ].join('\n');
    const { events } = importKubeletLog(text, { year: 2000 });
    expect(events.map((e) => e.type)).toEqual(['config.update', 'pleg.event']);
    expect(events[0]).toMatchObject({ pod: 'shop/web-0', podUID: UID_A });
    expect(new Date(events[1]?.time as number).toISOString()).toBe('2024-02-29T23:59:59.200Z');
  });

  it('syslog files (RFC 3164 and high-precision ISO stamps) and journalctl short-precise', () => {
    const text = [
      `Mar  3 07:00:01 node-a kubelet[900]: I0303 07:00:01.000001     900 kubelet.go:1900] ${ADD_A}`,
      'Mar  3 07:00:01 node-a containerd[800]: time="2022-03-03T07:00:01Z" level=info msg="starting"',
      `2022-03-03T07:00:02.000002+00:00 node-a kubelet[900]: I0303 07:00:02.000002     900 kubelet.go:1945] ${PLEG_A('c1', 'ContainerStarted')}`,
      `Mar 03 07:00:03.000003 node-a kubelet[900]: I0303 07:00:03.000003     900 kubelet.go:1945] ${PLEG_A('c1', 'ContainerDied')}`,
    ].join('\n');
    const { events, summary } = importKubeletLog(text, { year: 2000 });
    expect(summary).toMatchObject({ lines: 4, understood: 3, other: 1, nodes: ['node-a'] });
    // the ISO stamp gives the year to the headers after it
    expect(new Date(events[1]?.time as number).toISOString()).toBe('2022-03-03T07:00:02.000Z');
    expect(of(events, 'pleg.event').map((e) => e.event)).toEqual(['ContainerStarted', 'ContainerDied']);
  });

  it("rsyslog's files write a continuation line's tab as #011: the probe's output block is read the same", () => {
    const probe = `I0303 07:00:01.000001     900 prober.go:107] "Probe failed" probeType="Liveness" pod="shop/web-0" podUID="${UID_A}" containerName="app" probeResult="failure" output=<`;
    const lines = [probe, '\tdial tcp 10.0.0.7:8080: connect: connection refused', ' >'];
    const bare = importKubeletLog(lines.join('\n'), { year: 2024 });
    const rsyslog = lines
      .map((l) => `Mar  3 07:00:01 node-a kubelet[900]: ${l.replace(/^\t/, '#011')}`)
      .join('\n');
    const got = importKubeletLog(rsyslog, { year: 2024 });
    const output = 'dial tcp 10.0.0.7:8080: connect: connection refused';
    expect(of(bare.events, 'probe.result')[0]?.output).toBe(output);
    expect(of(got.events, 'probe.result')[0]?.output).toBe(output);
    expect(got.summary).toMatchObject({ raw: 0, other: 0 });
  });

  it("glog's file header (--log-dir, --log-file): the year from its date, the node from its machine", () => {
    const header = (date: string, machine: string) => [
      `Log file created at: ${date}`,
      `Running on machine: ${machine}`,
      'Binary: Built with gc go1.12.12 for linux/amd64',
      'Log line format: [IWEF]mmdd hh:mm:ss.uuuuuu threadid file:line] msg',
    ];
    const text = [
      ...header('2019/12/31 23:59:58', 'gke-pool-1-abcd'),
      `I1231 23:59:59.000000    1234 kubelet.go:1908] ${ADD_A}`,
      'I0101 00:00:01.000000    1234 kubelet.go:1987] SyncLoop (housekeeping)',
      // the next rotated file, cat'ed after the first, from another machine
      ...header('2021/03/04 05:06:07', 'node-b'),
      'I0304 05:06:08.000000      77 kubelet.go:1987] SyncLoop (housekeeping)',
    ].join('\n');
    const { events, summary } = importKubeletLog(text, { year: 2024 });
    expect(summary).toMatchObject({
      lines: 11,
      understood: 11,
      other: 0,
      raw: 0,
      nodes: ['gke-pool-1-abcd', 'node-b'],
    });
    expect(events.map((e) => [e.node, new Date(e.time).toISOString()])).toEqual([
      ['gke-pool-1-abcd', '2019-12-31T23:59:59.000Z'],
      ['gke-pool-1-abcd', '2020-01-01T00:00:01.000Z'],
      ['node-b', '2021-03-04T05:06:08.000Z'],
    ]);
  });

  it('journalctl -o cat (the message only) and klog JSON with and without a host', () => {
    const cat = `I0512 04:58:17.098489    2473 kubelet.go:2421] "SyncLoop ADD" source="file" pods=["kube-system/etcd-m1"]`;
    expect(importKubeletLog(cat, { year: 2024 }).events[0]).toMatchObject({
      op: 'ADD',
      pod: 'kube-system/etcd-m1',
    });
    const json = [
      '{"ts":1715490000.5,"caller":"kubelet/kubelet.go:2421","msg":"SyncLoop ADD","v":0,"source":"api","pods":[{"name":"web-0","namespace":"shop"}]}',
      `m2: {"ts":1715490001500.25,"caller":"kubelet/pod_workers.go:1298","msg":"Error syncing pod, skipping","pod":{"name":"web-0","namespace":"shop"},"podUID":"${UID_B}","err":"failed to \\"StartContainer\\" for \\"app\\" with CrashLoopBackOff: \\"back-off 20s restarting failed container=app pod=web-0_shop(${UID_B})\\""}`,
    ].join('\n');
    const { events, summary } = importKubeletLog(json);
    expect(summary.nodes).toEqual(['unknown node', 'm2']);
    expect(events.map((e) => [e.type, e.node, e.time])).toEqual([
      ['config.update', 'unknown node', 1715490000500],
      ['sync.result', 'm2', 1715490001500.25],
      ['backoff', 'm2', 1715490001500.25],
    ]);
    expect(of(events, 'backoff')[0]).toMatchObject({ delayS: 20, container: 'app', pod: 'shop/web-0' });
  });
});

describe('journald JSON export and the kubelet under other names', () => {
  /** one record of `journalctl -o json` as journald writes it: every value a string, times in µs */
  const record = (us: number, ident: string, pid: number, message: string | number[]) =>
    JSON.stringify({
      __CURSOR: `s=1;i=${us}`,
      __REALTIME_TIMESTAMP: String(us),
      __MONOTONIC_TIMESTAMP: '123',
      _HOSTNAME: 'node-j',
      SYSLOG_IDENTIFIER: ident,
      _PID: String(pid),
      _SYSTEMD_UNIT: `${ident}.service`,
      MESSAGE: message,
    });
  // 2023-12-31T23:59:59.5Z and a second later, in the next year
  const T0 = Date.UTC(2023, 11, 31, 23, 59, 59, 500) * 1000;

  it('journalctl -o json / json-seq: MESSAGE read under _HOSTNAME, the year from __REALTIME_TIMESTAMP', () => {
    const pleg = `I0101 00:00:00.500000     900 kubelet.go:1945] ${PLEG_A('c1', 'ContainerStarted')}`;
    const text = [
      record(T0, 'kubelet', 900, `I1231 23:59:59.500000     900 kubelet.go:1900] ${ADD_A}`),
      record(T0 + 100, 'containerd', 800, 'time="2023-12-31T23:59:59Z" level=info msg="starting"'),
      // a MESSAGE that was not valid UTF-8 comes as its bytes; json-seq starts each record with RS
      `\u001e${record(T0 + 1_000_000, 'kubelet', 900, [...new TextEncoder().encode(pleg)])}`,
      record(T0 + 1_000_100, 'kubelet', 900, '  a line without a header'),
    ].join('\n');
    const { events, summary } = importKubeletLog(text, { year: 2000 });
    expect(summary).toMatchObject({ lines: 4, understood: 3, other: 1, nodes: ['node-j'] });
    expect(events.map((e) => [e.type, e.node, e.origin?.line])).toEqual([
      ['config.update', 'node-j', 1],
      ['pleg.event', 'node-j', 3],
    ]);
    expect(events.map((e) => new Date(e.time).toISOString())).toEqual([
      '2023-12-31T23:59:59.500Z',
      '2024-01-01T00:00:00.500Z',
    ]);
    expect(events[1]).toMatchObject({ podUID: UID_A, pod: 'shop/web-0', event: 'ContainerStarted' });
  });

  it('journalctl -r -o json is read oldest first', () => {
    const lines = [0, 1, 2, 3].map((i) =>
      record(
        T0 + i * 1e6,
        'kubelet',
        900,
        `I1231 23:59:5${i}.000000     900 kubelet.go:1945] ${PLEG_A(`c${i}`, 'ContainerStarted')}`,
      ),
    );
    const { events, summary } = importKubeletLog(lines.reverse().join('\n'), { year: 2023 });
    expect(summary.reversed).toBe(true);
    expect(of(events, 'pleg.event').map((e) => e.containerID)).toEqual(['c0', 'c1', 'c2', 'c3']);
  });

  it('OpenShift (kubenswrapper; 3.x: atomic-openshift-node), MicroK8s (kubelite), k3s and KubeEdge (edgecore) are kubelets; kube-proxy is not', () => {
    const line = (ident: string, s: number) =>
      `Jun  1 10:00:0${s} n1 ${ident}[100]: I0601 10:00:0${s}.000000     100 kubelet.go:1987] SyncLoop (housekeeping)`;
    const text = [
      line('kubenswrapper', 1),
      line('microk8s.daemon-kubelite', 2),
      line('k3s', 3),
      line('kube-proxy', 4),
      line('atomic-openshift-node', 5),
      line('edgecore', 6),
    ].join('\n');
    const { events, summary } = importKubeletLog(text, { year: 2024 });
    expect(summary).toMatchObject({ understood: 5, other: 1 });
    expect(events.map((e) => e.type)).toEqual(Array(5).fill('loop.iteration'));
  });
});

describe('log shippers, other loggers in the same process, sections and dated prefixes', () => {
  const ADD = '"SyncLoop ADD" source="api" pods=["shop/web-0"]';
  const hdr = (s: number, msg: string, pid = 1234) =>
    `I0820 20:41:0${s}.000000 ${pid} kubelet.go:2345] ${msg}`;

  it('klog JSON: printf-style messages (v1.19-v1.22), errors without "v", a pod as text; zap JSON of others', () => {
    const text = [
      `{"ts":1724186462641.606,"msg":"SyncLoop (ADD, \\"api\\"): \\"web-0_shop(${UID_A})\\"\\n","v":0}`,
      '{"ts":1724186463641.606,"caller":"kubelet/kubelet_volumes.go:160","msg":"Orphaned pod found, but volume paths are still present on disk"}',
      '{"ts":1724186464641.606,"caller":"x/y.go:1","msg":"some message","v":2,"pod":"shop/web-0"}',
      // etcd's zap (in k3s) writes ts as a date: not klog, and never a time of NaN
      '{"level":"info","ts":"2024-08-20T20:41:03.700000Z","caller":"embed/etcd.go:277","msg":"now serving"}',
    ].join('\n');
    const { events, summary } = importKubeletLog(text, { year: 2000 });
    expect(summary).toMatchObject({ understood: 1, raw: 2, other: 1 });
    expect(events[0]).toMatchObject({ type: 'config.update', op: 'ADD', pod: 'shop/web-0', podUID: UID_A });
    expect(of(events, 'log.raw').map((e) => [e.level, e.pod, e.podUID])).toEqual([
      ['E', undefined, undefined],
      ['I', 'shop/web-0', UID_A],
    ]);
    expect(events.every((e) => Number.isFinite(e.time))).toBe(true);
  });

  it('JSON records of Fluent Bit (log, or message with its cri parser) and logcli (line, labels)', () => {
    const text = [
      JSON.stringify({ date: 1724186462.641606, log: `${hdr(2, ADD)}\n`, stream: 'stderr' }),
      JSON.stringify({ time: '2024-08-20T20:41:03Z', stream: 'stderr', logtag: 'F', message: hdr(3, ADD) }),
      JSON.stringify({
        labels: { host: 'n2', unit: 'kubelet.service' },
        line: hdr(4, ADD, 77),
        timestamp: '2024-08-20T20:41:04Z',
      }),
      JSON.stringify({
        labels: { host: 'n2', unit: 'containerd.service' },
        line: 'time="x" level=info',
        timestamp: '2024-08-20T20:41:04Z',
      }),
    ].join('\n');
    const { events, summary } = importKubeletLog(text, { year: 2000 });
    expect(summary).toMatchObject({ understood: 3, raw: 0, other: 1, nodes: ['pid 1234', 'n2'] });
    expect(events.map((e) => new Date(e.time).getUTCFullYear())).toEqual([2024, 2024, 2024]);
  });

  it('prefixes that carry the year: RFC 5424 syslog, crictl -t, logcli, journalctl -o short-full and short-unix', () => {
    const text = [
      `<30>1 2024-08-20T20:41:02.000000+00:00 n1 kubelet 1234 - - ${hdr(2, ADD)}`,
      `<30>1 2024-08-20T20:41:02.000000+00:00 n1 kube-proxy 999 - - ${hdr(2, 'x', 999)}`,
      `2024-08-20T20:41:03.000000123Z ${hdr(3, ADD, 5)}`,
      `2024-08-20T20:41:04Z {host="n3", unit="kubelet.service"} ${hdr(4, ADD, 6)}`,
      `Tue 2024-08-20 20:41:05 UTC n4 kubelet[7]: ${hdr(5, ADD, 7)}`,
      `1724186466.000000 n5 kubelet[8]: ${hdr(6, ADD, 8)}`,
    ].join('\n');
    const { events, summary } = importKubeletLog(text, { year: 2000 });
    expect(summary).toMatchObject({ understood: 5, other: 1, nodes: ['n1', 'pid 5', 'n3', 'n4', 'n5'] });
    expect(events.map((e) => new Date(e.time).getUTCFullYear())).toEqual([2024, 2024, 2024, 2024, 2024]);
  });

  it("oc adm node-logs over several nodes: each line behind its node's name, glog headers included", () => {
    const text = [
      'winworker-a Log file created at: 2024/08/20 20:00:00',
      'winworker-a Running on machine: WINWORKER-A',
      `winworker-a ${hdr(2, ADD)}`,
      `winworker-b ${hdr(3, ADD, 4321)}`,
    ].join('\n');
    const { events, summary } = importKubeletLog(text, { year: 2000 });
    expect(summary).toMatchObject({ understood: 4, nodes: ['winworker-a', 'winworker-b'], pods: 2 });
    expect(events.map((e) => new Date(e.time).getUTCFullYear())).toEqual([2024, 2024]);
  });

  it("k3s: its logrus and etcd lines under the same identifier are another program's", () => {
    const k3s = (s: number, msg: string) => `Aug 20 20:41:0${s} srv k3s[812]: ${msg}`;
    const text = [
      k3s(1, 'time="2024-08-20T20:41:01Z" level=info msg="Starting k3s"'),
      k3s(2, hdr(2, ADD, 812)),
      k3s(3, 'time="2024-08-20T20:41:03Z" level=info msg="Running kube-proxy"'),
      k3s(
        3,
        '{"level":"info","ts":"2024-08-20T20:41:03.700000Z","caller":"embed/etcd.go:277","msg":"now serving"}',
      ),
    ].join('\n');
    const { summary } = importKubeletLog(text, { year: 2024 });
    expect(summary).toMatchObject({ understood: 1, raw: 0, other: 3 });
  });

  it("k0s: the kubelet's lines inside k0s' records are read; its other components and its own words are not", () => {
    const rec = (s: number, msg: string, fields: string) =>
      `time="2024-08-20 20:41:0${s}" level=info msg=${JSON.stringify(msg)} ${fields}`;
    const text = [
      `Aug 20 20:41:01 w1 k0s[90]: ${rec(1, 'Starting to supervise', 'component=kubelet')}`,
      `Aug 20 20:41:02 w1 k0s[90]: ${rec(2, hdr(2, ADD, 4321), 'component=kubelet stream=stderr')}`,
      `Aug 20 20:41:03 w1 k0s[90]: ${rec(3, 'starting containerd', 'component=containerd stream=stderr')}`,
      `Aug 20 20:41:04 w1 k0s[90]: ${rec(4, 'Restarted (1)', 'component=kubelet')}`,
      // k0s in the foreground: no journald, the year from its record
      rec(5, hdr(5, PLEG_A('c1', 'ContainerStarted'), 4321), 'component=kubelet stream=stderr'),
    ].join('\n');
    const { events, summary } = importKubeletLog(text, { year: 2000 });
    expect(summary).toMatchObject({ understood: 2, raw: 0, other: 3, nodes: ['w1', 'pid 4321'] });
    expect(events.map((e) => [e.type, new Date(e.time).getUTCFullYear()])).toEqual([
      ['config.update', 2024],
      ['pleg.event', 2024],
    ]);
  });

  it("MicroShift names each line's component: the kubelet's are read, the others' and what continues them are not", () => {
    const ms = (s: number, rest: string) => `Oct 20 12:06:4${s} edge microshift[1389]: ${rest}`;
    const k = (s: number, lvl: string, src: string, msg: string) =>
      `${lvl}1020 12:06:4${s}.000000    1389 ${src}] ${msg}`;
    const text = [
      ms(0, `kubelet ${k(0, 'I', 'kubelet.go:2421', '"SyncLoop ADD" source="api" pods=["shop/web-0"]')}`),
      ms(
        1,
        `etcd ${k(1, 'W', 'logging.go:59', '[core] grpc: addrConn.createTransport failed to connect to {')}`,
      ),
      ms(1, '  "Addr": "localhost:2379",'),
      ms(1, '}. Err: connection error'),
      // before MicroShift 4.14 every line's component was ???
      ms(2, `??? ${k(2, 'I', 'kubelet.go:1987', 'SyncLoop (housekeeping)')}`),
      ms(3, `kube-apiserver ${k(3, 'I', 'handler.go:1', 'Adding GroupVersion')}`),
    ].join('\n');
    const { events, summary } = importKubeletLog(text, { year: 2024 });
    expect(summary).toMatchObject({ understood: 2, raw: 0, other: 4, nodes: ['edge'] });
    expect(events.map((e) => e.type)).toEqual(['config.update', 'loop.iteration']);
  });

  it("`==> name <==` sections (minikube logs, tail of several files): only the kubelet's are read", () => {
    const text = [
      '==> Last Start <==',
      'Log file created at: 2024/08/20 20:00:00',
      'Running on machine: laptop',
      hdr(1, 'minikube start', 99),
      '==> kube-apiserver [abc123] <==',
      hdr(1, ADD, 1),
      '==> kubelet <==',
      `Aug 20 20:41:02 minikube kubelet[1234]: ${hdr(2, ADD)}`,
      '==> storage-provisioner [def] <==',
      hdr(4, 'x', 1),
    ].join('\n');
    const { events, summary } = importKubeletLog(text, { year: 2024 });
    expect(summary).toMatchObject({ lines: 10, understood: 2, other: 8, nodes: ['minikube'] });
    expect(events.map((e) => [e.type, e.node])).toEqual([['config.update', 'minikube']]);
  });
});

describe('several nodes in one file', () => {
  it('interleaved hosts are separate nodes: the same pod name on two nodes is two pods', () => {
    const line = (host: string, pid: number, s: number, msg: string) =>
      `Jun  1 10:00:0${s} ${host} kubelet[${pid}]: I0601 10:00:0${s}.000000 ${pid} kubelet.go:2421] ${msg}`;
    const text = [
      line('n1', 100, 1, '"SyncLoop ADD" source="api" pods=["shop/web-0"]'),
      line('n2', 200, 1, '"SyncLoop ADD" source="api" pods=["shop/web-0"]'),
      line(
        'n1',
        100,
        2,
        `"SyncLoop (PLEG): event for pod" pod="shop/web-0" event={"ID":"${UID_A}","Type":"ContainerStarted","Data":"c1"}`,
      ),
      line(
        'n2',
        200,
        2,
        `"SyncLoop (PLEG): event for pod" pod="shop/web-0" event={"ID":"${UID_B}","Type":"ContainerStarted","Data":"c2"}`,
      ),
    ].join('\n');
    const { events, summary } = importKubeletLog(text, { year: 2024 });
    expect(summary.nodes).toEqual(['n1', 'n2']);
    expect(summary.pods).toBe(2);
    expect(of(events, 'config.update').map((e) => [e.node, e.podUID])).toEqual([
      ['n1', UID_A],
      ['n2', UID_B],
    ]);
  });

  it('bare klog lines of two processes are two nodes, named by pid', () => {
    const text = [
      `I0601 10:00:01.000000     100 kubelet.go:1900] ${ADD_A}`,
      'I0601 10:00:01.500000     200 kubelet.go:1900] SyncLoop (ADD, "api"): "web-0_shop(other-uid)"',
    ].join('\n');
    const { events } = importKubeletLog(text, { year: 2024 });
    expect(events.map((e) => [e.node, (e as { podUID?: string }).podUID])).toEqual([
      ['pid 100', UID_A],
      ['pid 200', 'other-uid'],
    ]);
  });
});

describe('damaged and unusual text', () => {
  it('CRLF line ends', () => {
    const text = `I0601 10:00:01.000000     1 kubelet.go:1900] ${ADD_A}\r\nI0601 10:00:02.000000     1 kubelet.go:1987] SyncLoop (housekeeping)\r\n`;
    const { events } = importKubeletLog(text, { year: 2024 });
    expect(events[0]).toMatchObject({ pod: 'shop/web-0', podUID: UID_A });
    expect(events[1]).toMatchObject({ type: 'loop.iteration', source: 'housekeeping' });
  });

  it('a line cut in the middle of a message is kept raw; a cut header continues nothing it should not', () => {
    const text = [
      `I0601 10:00:01.000000     1 kubelet.go:1945] SyncLoop (PLEG): "web-0_shop(${UID_A})", event: &pleg.PodLifecy`,
      'I0601 10:00:0',
      `I0601 10:00:03.000000     1 kubelet.go:1900] ${ADD_A}`,
    ].join('\n');
    const { events, summary } = importKubeletLog(text, { year: 2024 });
    expect(events.map((e) => e.type)).toEqual(['log.raw', 'log.raw', 'config.update']);
    expect(summary).toMatchObject({ lines: 3, raw: 2, understood: 1 });
  });

  it('a Go struct printed over several lines stays one entry with its first line number', () => {
    const text = [
      'I0601 10:00:01.000000     1 kuberuntime_manager.go:783] Creating container &Container{Name:app,Image:busybox,',
      'Command:[sh -c sleep 10],',
      '  Env:[]EnvVar{},',
      '}',
      `I0601 10:00:02.000000     1 kubelet.go:1900] ${ADD_A}`,
    ].join('\n');
    const { events, summary } = importKubeletLog(text, { year: 2024 });
    expect(summary).toMatchObject({ lines: 5, raw: 4, understood: 1 });
    expect(events[0]).toMatchObject({ type: 'log.raw', origin: { line: 1 } });
    expect((events[0] as TraceOf<'log.raw'>).text.split('\n')).toHaveLength(4);
  });

  it('headers without a year: --year, --tz, and the turn of the year', () => {
    const text = [
      'I1231 23:59:59.500000     1 kubelet.go:1987] SyncLoop (housekeeping)',
      'I0101 00:00:01.500000     1 kubelet.go:1987] SyncLoop (housekeeping)',
    ].join('\n');
    const utc = importKubeletLog(text, { year: 2023 }).events.map((e) => new Date(e.time).toISOString());
    expect(utc).toEqual(['2023-12-31T23:59:59.500Z', '2024-01-01T00:00:01.500Z']);
    const ny = importKubeletLog(text, { year: 2023, tz: 'America/New_York' }).events.map((e) =>
      new Date(e.time).toISOString(),
    );
    expect(ny).toEqual(['2024-01-01T04:59:59.500Z', '2024-01-01T05:00:01.500Z']);
  });

  it('stamps a little out of order come out in time order, numbered from 1', () => {
    const text = [
      'I0601 10:00:02.000000     1 kubelet.go:1987] SyncLoop (housekeeping)',
      `I0601 10:00:01.000000     1 kubelet.go:1900] ${ADD_A}`,
      'I0601 10:00:03.000000     1 kubelet.go:1987] SyncLoop (housekeeping)',
    ].join('\n');
    const { events } = importKubeletLog(text, { year: 2024 });
    expect(events.map((e) => [e.seq, e.origin?.line])).toEqual([
      [1, 2],
      [2, 1],
      [3, 3],
    ]);
  });
});

describe('journalctl -r (newest first)', () => {
  const forward = [
    `Jun 01 10:00:01 n1 kubelet[5]: I0601 10:00:01.000000       5 kubelet.go:2421] "SyncLoop ADD" source="api" pods=["shop/web-0"]`,
    `Jun 01 10:00:02 n1 kubelet[5]: I0601 10:00:02.000000       5 prober.go:107] "Probe failed" probeType="Liveness" pod="shop/web-0" podUID="${UID_A}" containerName="app" probeResult="failure" output=<`,
    'Jun 01 10:00:02 n1 kubelet[5]: \tcat: /tmp/healthy: No such file or directory',
    'Jun 01 10:00:02 n1 kubelet[5]:  >',
    `Jun 01 10:00:03 n1 kubelet[5]: I0601 10:00:03.000000       5 kubelet.go:2453] "SyncLoop (PLEG): event for pod" pod="shop/web-0" event={"ID":"${UID_A}","Type":"ContainerStarted","Data":"c1"}`,
    `Jun 01 10:00:04 n1 kubelet[5]: I0601 10:00:04.000000       5 kubelet.go:2453] "SyncLoop (PLEG): event for pod" pod="shop/web-0" event={"ID":"${UID_A}","Type":"ContainerDied","Data":"c1"}`,
  ];
  const reversed = `-- Journal begins at Sat 2024-06-01 09:00:00 UTC. --\n${[...forward].reverse().join('\n')}\n`;
  const shape = (events: TraceEvent[]) => events.map((e) => [e.type, (e as { output?: string }).output]);

  it('is detected and read oldest first; continuation lines that came before their header join it', () => {
    const a = importKubeletLog(forward.join('\n'), { year: 2024 });
    const b = importKubeletLog(reversed, { year: 2024 });
    expect(b.summary.reversed).toBe(true);
    expect(shape(b.events)).toEqual(shape(a.events));
    expect(of(b.events, 'probe.result')[0]?.output).toBe('cat: /tmp/healthy: No such file or directory');
    // line numbers are those of the file as given: the probe's header is its 6th line, after its continuations
    expect(of(b.events, 'probe.result')[0]?.origin?.line).toBe(6);
    expect(of(b.events, 'config.update')[0]?.origin?.line).toBe(7);
  });

  it('can be read backwards from a seekable source with bounded memory, to the same events', async () => {
    const bytes = new TextEncoder().encode(reversed);
    const read = async (s: number, e: number) => bytes.subarray(s, e);
    const events: TraceEvent[] = [];
    const p = new KubeletLogParser({ onEvent: (ev) => events.push(ev), year: 2024, reversed: false });
    for await (const l of readLinesBackward(read, bytes.length, 64)) p.feedLine(l.text, l.no);
    p.end();
    expect(events).toEqual(importKubeletLog(reversed, { year: 2024 }).events);
  });
});
