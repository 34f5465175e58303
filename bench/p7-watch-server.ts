/**
 * A small Kubernetes API server in a process of its own, for P7's API watch: `tsx bench/p7-watch-server.ts
 * <node> <pods> <changes-per-second>`. It holds <pods> pods bound to <node> (two containers each, status as a
 * kubelet writes it) and two Events per pod. GET /api/v1/pods lists them, or with watch=true streams a
 * MODIFIED of one pod's status (round robin) <changes-per-second> times a second and a BOOKMARK every 60 s;
 * GET /api/v1/events answers its EventList whatever the query (as Syncscope's own API does). Prints
 * "ready <url>"; the end of stdin stops it.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const [node = 'n1', podsText = '110', rateText = '1'] = process.argv.slice(2);
const n = Number(podsText);
let rv = 1;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const t0 = Date.now();

function podObject(i: number, tick: number) {
  const name = `obs-${i}`;
  const uid = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  const c = (cname: string) => ({
    name: cname,
    state: { running: { startedAt: iso(t0) } },
    lastState: {},
    ready: true,
    started: true,
    restartCount: 0,
    image: 'docker.io/library/busybox:latest',
    imageID: 'sha256:0000',
    containerID: `containerd://${uid}-${cname}`,
  });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid, resourceVersion: String(rv++), labels: { app: name } },
    spec: {
      nodeName: node,
      containers: ['app', 'side'].map((cname) => ({
        name: cname,
        image: 'busybox',
        command: ['sh', '-c', 'while true; do sleep 5; done'],
      })),
      terminationGracePeriodSeconds: 30,
    },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastProbeTime: iso(t0 + tick * 1000) }],
      podIP: `10.88.0.${i % 250}`,
      startTime: iso(t0),
      containerStatuses: [c('app'), c('side')],
    },
  };
}

const pods = Array.from({ length: n }, (_, i) => podObject(i, 0));
const events = pods.flatMap((p, i) =>
  ['Pulled', 'Started'].map((reason) => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${p.metadata.name}.${reason}`, namespace: 'default', resourceVersion: String(rv++) },
    involvedObject: { kind: 'Pod', namespace: 'default', name: p.metadata.name, uid: p.metadata.uid },
    reason,
    message: `${reason} container app`,
    type: 'Normal',
    count: 1 + (i % 3),
    source: { component: 'kubelet', host: node },
  })),
);
const watchers = new Set<ServerResponse>();
let tick = 0;
setInterval(() => {
  const i = tick % n;
  tick++;
  pods[i] = podObject(i, tick);
  const line = `${JSON.stringify({ type: 'MODIFIED', object: pods[i] })}\n`;
  for (const w of watchers) w.write(line);
}, 1000 / Number(rateText));
setInterval(() => {
  const line = `${JSON.stringify({ type: 'BOOKMARK', object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: String(rv) } } })}\n`;
  for (const w of watchers) w.write(line);
}, 60_000);

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  res.setHeader('content-type', 'application/json');
  if (url.pathname === '/api/v1/events') {
    res.end(JSON.stringify({ kind: 'EventList', metadata: { resourceVersion: String(rv) }, items: events }));
  } else if (url.pathname === '/api/v1/pods' && url.searchParams.get('watch') === 'true') {
    res.writeHead(200);
    watchers.add(res);
    res.on('close', () => watchers.delete(res));
  } else if (url.pathname === '/api/v1/pods') {
    res.end(JSON.stringify({ kind: 'PodList', metadata: { resourceVersion: String(rv) }, items: pods }));
  } else {
    res.statusCode = 404;
    res.end('{}');
  }
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`ready http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
