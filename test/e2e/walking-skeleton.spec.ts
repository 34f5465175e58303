/**
 * The walking skeleton, end to end: the server on the simulated node (real gRPC over a unix socket), a pod
 * applied as YAML over HTTP, the kubelet's steps seen in the trace in the kubelet's order, a graceful
 * delete, and the trace over the WebSocket with resume.
 *
 * Waiting is driven by the trace: every wait re-checks its predicate when an event is recorded (the engine
 * records loop iterations and relists every second, so a predicate over engine state is re-checked too).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { podUIDOf, type TraceEvent } from '@syncscope/core/trace';
import { type BuiltApp, buildApp } from '@syncscope/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { waitOnTrace } from '../support/wait-trace.ts';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));
const WAIT_MS = 30_000;

let built: BuiltApp;
let dataDir: string;
let base: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'syncscope-e2e-'));
  built = await buildApp({ dataDir, examples: false, logger: false });
  await built.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = built.app.server.address();
  if (typeof addr !== 'object' || !addr) throw new Error('no address');
  base = `127.0.0.1:${addr.port}`;
});

afterAll(async () => {
  await built?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** Resolves when pred() holds, re-checking on every trace event; rejects after WAIT_MS with the recent trace. */
const waitFor = (what: string, pred: () => boolean): Promise<void> =>
  waitOnTrace(built.trace, what, pred, WAIT_MS);

const podEvents = (uid: string, pod: string) =>
  built.trace.since(0, (e) => podUIDOf(e) === uid || (e.type === 'runtime.call' && e.pod === pod));

type Step = { label: string; match: (e: TraceEvent) => boolean };

/** Asserts the steps occur in this order (other events may come between). */
function expectInOrder(events: TraceEvent[], steps: Step[]): void {
  let i = 0;
  for (const step of steps) {
    while (i < events.length && !step.match(events[i] as TraceEvent)) i++;
    expect(i < events.length, `trace has ${step.label} after the previous step`).toBe(true);
    i++;
  }
}

describe('walking skeleton on the simulated node', () => {
  it('runs a pod applied as YAML and terminates it gracefully', async () => {
    const yaml = await readFile(join(EXAMPLES, 'healthy.yaml'), 'utf8');
    const res = await fetch(`http://${base}/api/v1/namespaces/default/pods`, {
      method: 'POST',
      headers: { 'content-type': 'application/yaml' },
      body: yaml,
    });
    expect(res.status).toBe(201);
    const created = (await res.json()) as { metadata: { uid: string; name: string } };
    const uid = created.metadata.uid;
    const ref = 'default/healthy';

    const running = (e: TraceEvent) =>
      e.type === 'status.update' && e.podUID === uid && e.status.phase === 'Running';
    await waitFor('phase Running', () => built.trace.since(0, running).length > 0);

    const toStart: Step[] = [
      { label: 'config.update ADD', match: (e) => e.type === 'config.update' && e.op === 'ADD' },
      { label: 'worker.state →SyncPod', match: (e) => e.type === 'worker.state' && e.to === 'SyncPod' },
      { label: 'RunPodSandbox', match: (e) => e.type === 'runtime.call' && e.method === 'RunPodSandbox' },
      { label: 'CreateContainer', match: (e) => e.type === 'runtime.call' && e.method === 'CreateContainer' },
      { label: 'StartContainer', match: (e) => e.type === 'runtime.call' && e.method === 'StartContainer' },
    ];
    // after the start, the relist's event and the Running status in either order: a relist updates the pod
    // cache before it sends its events, so a sync woken meanwhile can already report Running
    expectInOrder(podEvents(uid, ref), [
      ...toStart,
      {
        label: 'pleg.event ContainerStarted',
        match: (e) => e.type === 'pleg.event' && e.event === 'ContainerStarted',
      },
    ]);
    expectInOrder(podEvents(uid, ref), [...toStart, { label: 'status.update Running', match: running }]);

    const got = (await (await fetch(`http://${base}/api/v1/namespaces/default/pods/healthy`)).json()) as {
      status: { phase: string };
    };
    expect(got.status.phase).toBe('Running');

    const del = await fetch(`http://${base}/api/v1/namespaces/default/pods/healthy?gracePeriodSeconds=1`, {
      method: 'DELETE',
    });
    expect(del.status).toBe(200);
    expect(
      ((await del.json()) as { metadata: { deletionTimestamp?: string } }).metadata.deletionTimestamp,
    ).toBeTruthy();

    const state = (to: string) => (e: TraceEvent) =>
      e.type === 'worker.state' && e.podUID === uid && e.to === to;
    await waitFor('TerminatedPod', () => built.trace.since(0, state('TerminatedPod')).length > 0);
    expectInOrder(podEvents(uid, ref), [
      { label: '→TerminatingPod', match: state('TerminatingPod') },
      { label: '→TerminatedPod', match: state('TerminatedPod') },
    ]);

    await waitFor('the pod to leave the pod list', () => built.engine.getPodByUID(uid) === undefined);
    const list = (await (await fetch(`http://${base}/api/v1/pods`)).json()) as {
      items: { metadata: { uid: string } }[];
    };
    expect(list.items.map((p) => p.metadata.uid)).not.toContain(uid);
  });

  it('streams the trace over WebSocket in seq order and resumes with ?since= without a gap', async () => {
    const first = await readStream(`ws://${base}/api/v1/trace/stream`, (seqs) => seqs.length >= 20);
    expectContiguous(first);
    const resumeFrom = first[first.length - 1] as number;
    const second = await readStream(
      `ws://${base}/api/v1/trace/stream?since=${resumeFrom}`,
      (seqs) => seqs.length >= 3,
    );
    expect(second[0]).toBe(resumeFrom + 1);
    expectContiguous(second);
  });
});

function expectContiguous(seqs: number[]): void {
  for (let i = 1; i < seqs.length; i++) expect(seqs[i]).toBe((seqs[i - 1] as number) + 1);
}

/** Connects, gathers event seqs until enough(seqs), then closes. A resync message fails the test. */
function readStream(url: string, enough: (seqs: number[]) => boolean): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const seqs: number[] = [];
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`stream ${url}: only ${seqs.length} events in ${WAIT_MS} ms`));
    }, WAIT_MS);
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data)) as { kind: string; events?: TraceEvent[]; reason?: string };
      if (msg.kind !== 'events') {
        clearTimeout(timer);
        ws.terminate();
        return reject(new Error(`unexpected ${msg.kind}: ${msg.reason ?? ''}`));
      }
      for (const e of msg.events ?? []) seqs.push(e.seq);
      if (enough(seqs)) {
        clearTimeout(timer);
        ws.close();
        resolve(seqs);
      }
    });
    ws.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}
