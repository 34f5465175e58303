/**
 * Nothing lost across a server restart, on the simulated node:
 *
 *  - in one process, the simulated node kept running while the server is closed and built again on the same
 *    data directory: every pod is back with its UID, running containers are adopted (no new sandbox or
 *    container, restart count unchanged), and the trace from before is still served, the restart marked by
 *    a second `server.start`;
 *  - the real command (apps/server/src/main.ts, bundled: test/support/server-bundle.ts) killed with SIGKILL
 *    and started again: the pods come back from the store and their containers are adopted from the
 *    simulated node's process, which outlived the server; the journal keeps the history and seq continues
 *    after it;
 *  - SIGTERM: the process exits within 2 s and the journal holds every event up to the last one served.
 *
 * Waiting is driven by the trace (in process: the recorder's listeners; child process: its WebSocket).
 */
import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { startSimNode } from '@syncscope/core';
import type { Pod } from '@syncscope/core/api/v1';
import { RealClock } from '@syncscope/core/clock';
import { podUIDOf, type TraceEvent } from '@syncscope/core/trace';
import { buildApp, TraceJournal } from '@syncscope/server';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { example } from '../support/harness.ts';
import { useServerBundle } from '../support/server-bundle.ts';
import {
  getJSON,
  type ListeningServer,
  spawnServer,
  startServer,
  tempDir,
  waitOnStream,
} from '../support/server-process.ts';
import { until } from '../support/until.ts';
import { type WaitableTrace, waitOnTrace as waitOn } from '../support/wait-trace.ts';

const WAIT_MS = 30_000;
const LIFECYCLE_METHODS = [
  'RunPodSandbox',
  'CreateContainer',
  'StartContainer',
  'StopContainer',
  'StopPodSandbox',
];

const cleanups: (() => Promise<void>)[] = [];
// the server's main.ts, bundled once: a start costs Node's start, not a TypeScript load of every module
beforeAll(useServerBundle);
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Resolves when pred() holds, re-checked on every event the recorder records. */
const waitOnTrace = (trace: WaitableTrace, what: string, pred: () => boolean) =>
  waitOn(trace, what, pred, WAIT_MS);

const running = (p: Pod | undefined, restarts = 0) =>
  p?.status?.phase === 'Running' &&
  p.status.containerStatuses?.[0]?.state.running !== undefined &&
  p.status.containerStatuses[0].restartCount === restarts &&
  p.status.conditions?.find((c) => c.type === 'Ready')?.status === 'True';

describe('restart on the same data directory', () => {
  it('adopts the running containers of a simulated node kept alive across close and build', async () => {
    const dataDir = await tempDir('syncscope-persist-', cleanups);
    const clock = new RealClock();
    const sim = await startSimNode({ socketPath: join(dataDir, 'node.sock'), clock });
    cleanups.push(() => sim.close());
    const opts = { dataDir, examples: false, logger: false as const, clock, sim, warn: () => {} };

    // --- first run: a pod whose container has restarted once, and a pod deleted to the end
    const first = await buildApp(opts);
    await first.app.listen({ port: 0, host: '127.0.0.1' });
    const post = async (base: string, manifest: string) => {
      const res = await fetch(`${base}/api/v1/namespaces/default/pods`, {
        method: 'POST',
        headers: { 'content-type': 'application/yaml' },
        body: manifest,
      });
      expect(res.status).toBe(201);
      return (await res.json()) as Pod;
    };
    const base1 = `http://127.0.0.1:${(first.app.server.address() as { port: number }).port}`;
    const healthy = await post(base1, await example('healthy.yaml'));
    const gone = await post(base1, (await example('healthy.yaml')).replace('name: healthy', 'name: gone'));
    const uid = healthy.metadata.uid as string;
    const goneUID = gone.metadata.uid as string;
    expect(first.store.load().map((p) => p.metadata.uid)).toEqual(expect.arrayContaining([uid, goneUID]));

    await waitOnTrace(first.trace, 'healthy Running', () => running(first.engine.getPodByUID(uid)));
    const [ctr] = await sim.runtime.listContainers({ label_selector: { 'io.kubernetes.pod.uid': uid } });
    sim.runtime.faults.exitContainer(ctr?.id as string, 1);
    await waitOnTrace(first.trace, 'healthy restarted once', () => running(first.engine.getPodByUID(uid), 1));

    const del = await fetch(`${base1}/api/v1/namespaces/default/pods/gone?gracePeriodSeconds=0`, {
      method: 'DELETE',
    });
    expect(del.status).toBe(200);
    // grace 0: the API object goes at once (DELETE with grace 0, then REMOVE), and with it its record
    expect(first.store.load().some((p) => p.metadata.uid === goneUID)).toBe(false);
    await waitOnTrace(first.trace, 'gone removed', () => first.engine.getPodByUID(goneUID) === undefined);
    expect(first.store.load().map((p) => p.metadata.uid)).toEqual([uid]);

    const before = first.engine.getPodByUID(uid) as Pod;
    await first.close();
    // the node and the history as the first run left them: what its last calls did (a removal in flight
    // when it stopped) is part of it
    // the kept pod's sandboxes and containers (the deleted pod's may still be cleaned up by the next run)
    const kept = { label_selector: { 'io.kubernetes.pod.uid': uid } };
    const containersNow = async () =>
      (await sim.runtime.listContainers(kept)).map((c) => `${c.id}:${c.state}`).sort();
    const sandboxesNow = async () =>
      (await sim.runtime.listPodSandbox(kept)).map((s) => `${s.id}:${s.state}`).sort();
    const containersBefore = await containersNow();
    const sandboxesBefore = await sandboxesNow();
    expect(containersBefore.length).toBeGreaterThan(0);
    const lastSeqBefore = first.trace.next - 1;
    const seqsBefore = first.trace.since(0).map((e) => e.seq);

    // --- second run on the same node and data directory
    const second = await buildApp(opts);
    cleanups.push(() => second.close());
    expect(second.restored).toBe(1);
    const start = second.trace.since(lastSeqBefore)[0];
    expect(start?.type).toBe('server.start');
    expect(start?.seq).toBe(lastSeqBefore + 1);
    const back = second.engine.getPodByUID(uid);
    expect(back?.metadata.creationTimestamp).toBe(before.metadata.creationTimestamp);
    expect(second.engine.getPodByUID(goneUID)).toBeUndefined();

    // adopted: Running again with the same container and restart count, after a sync and two relists past it
    // (the PLEG's first events may be coalesced into the first sync, as the pod worker does: one sync can be all)
    const firstSync = () =>
      second.trace.since(lastSeqBefore, (e) => e.type === 'sync.result' && e.podUID === uid)[0]?.seq;
    const relistsAfter = (seq: number) => second.trace.since(seq, (e) => e.type === 'pleg.relist').length;
    await waitOnTrace(second.trace, 'healthy adopted, synced, and two relists after', () => {
      const p = second.engine.getPodByUID(uid);
      const synced = firstSync();
      return running(p, 1) && synced !== undefined && relistsAfter(synced) >= 2;
    });
    const after = second.engine.getPodByUID(uid) as Pod;
    expect(after.status?.containerStatuses?.[0]?.containerID).toBe(
      before.status?.containerStatuses?.[0]?.containerID,
    );
    expect(after.status?.podIP).toBe(before.status?.podIP);
    const calls = second.trace
      .since(lastSeqBefore, (e) => e.type === 'runtime.call' && e.podUID === uid)
      .map((e) => (e as Extract<TraceEvent, { type: 'runtime.call' }>).method);
    expect(calls.filter((m) => LIFECYCLE_METHODS.includes(m))).toEqual([]);
    expect(await containersNow()).toEqual(containersBefore);
    expect(await sandboxesNow()).toEqual(sandboxesBefore);

    // the history from before is still served, over HTTP too, in one seq order with the restart in it
    await second.app.listen({ port: 0, host: '127.0.0.1' });
    const base2 = `http://127.0.0.1:${(second.app.server.address() as { port: number }).port}`;
    const page = (await (await fetch(`${base2}/api/v1/trace?since=0&limit=100000`)).json()) as {
      items: TraceEvent[];
      oldest: number;
    };
    expect(page.oldest).toBe(1);
    expect(page.items.slice(0, seqsBefore.length).map((e) => e.seq)).toEqual(seqsBefore);
    expect(page.items.filter((e) => e.type === 'server.start').map((e) => e.seq)).toEqual([
      1,
      lastSeqBefore + 1,
    ]);
    const goneHistory = page.items.filter((e) => podUIDOf(e) === goneUID && e.type === 'config.update');
    expect(goneHistory.map((e) => (e as Extract<TraceEvent, { type: 'config.update' }>).op)).toEqual([
      'ADD',
      'DELETE',
      'REMOVE',
    ]);
  });
});

// ---- the real command in a child process ----------------------------------------------------------------

async function applyHealthy(base: string): Promise<string> {
  const res = await fetch(`${base}/api/v1/namespaces/default/pods`, {
    method: 'POST',
    headers: { 'content-type': 'application/yaml' },
    body: await example('healthy.yaml'),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as Pod).metadata.uid as string;
}

const podRunning = async (base: string) =>
  running(await getJSON<Pod>(`${base}/api/v1/namespaces/default/pods/healthy`).catch(() => undefined));

/** Every event in the journal directory, read as the server reads it at boot. */
async function readJournal(dir: string): Promise<TraceEvent[]> {
  const j = new TraceJournal({ dir, warn: () => {} });
  await j.open();
  return j.read(0);
}

/** Resolves once the journal on disk holds an event matching pred (the writer flushes every 100 ms). */
async function waitOnDisk(dir: string, what: string, pred: (ev: TraceEvent) => boolean): Promise<void> {
  await until(
    `the journal to hold ${what}`,
    async () => {
      const names = (await readdir(dir)).filter((n) => n.endsWith('.ndjson'));
      const texts = await Promise.all(names.map((n) => readFile(join(dir, n), 'utf8')));
      return texts
        .join('')
        .split('\n')
        .some((line) => line.endsWith('}') && pred(JSON.parse(line) as TraceEvent));
    },
    WAIT_MS,
  );
}

describe('the server process', () => {
  it('after kill -9 brings the pods back from the store and continues the journal', async () => {
    const dataDir = await tempDir('syncscope-persist-', cleanups);
    const one = await startServer(dataDir, cleanups);
    const uid = await applyHealthy(one.base);
    await waitOnStream(one.base, 'healthy Running', () => podRunning(one.base));
    const containerID = async (base: string) =>
      (await getJSON<Pod>(`${base}/api/v1/namespaces/default/pods/healthy`)).status?.containerStatuses?.[0]
        ?.containerID;
    const idBefore = await containerID(one.base);
    const synced = (ev: TraceEvent) => ev.type === 'sync.result' && ev.podUID === uid;
    await waitOnDisk(join(dataDir, 'trace'), 'a sync of the pod', synced);
    one.proc.kill('SIGKILL');
    expect((await one.exited).signal).toBe('SIGKILL');
    const onDisk = await readJournal(join(dataDir, 'trace'));
    const lastBefore = (onDisk[onDisk.length - 1] as TraceEvent).seq;

    const two = await startServer(dataDir, cleanups);
    const pods = await getJSON<{ items: Pod[] }>(`${two.base}/api/v1/pods`);
    expect(pods.items.map((p) => `${p.metadata.name}/${p.metadata.uid}`)).toEqual([`healthy/${uid}`]);
    // the simulated node outlived the server: its container is adopted, not started again (the status is
    // served as last reported at once, as an API server keeps it: wait for the new server's own sync)
    const syncedAgain = async () =>
      (
        await getJSON<{ items: TraceEvent[] }>(`${two.base}/api/v1/trace?since=${lastBefore}&limit=100000`)
      ).items.some(synced);
    await waitOnStream(
      two.base,
      'healthy synced and Running again',
      async () => (await syncedAgain()) && (await podRunning(two.base)),
    );
    expect(await containerID(two.base)).toBe(idBefore);

    const page = await getJSON<{ items: TraceEvent[]; oldest: number }>(
      `${two.base}/api/v1/trace?limit=100000`,
    );
    const seqs = page.items.map((e) => e.seq);
    expect(seqs.slice(0, lastBefore)).toEqual(onDisk.map((e) => e.seq));
    expect(seqs.every((s, i) => i === 0 || s > (seqs[i - 1] as number))).toBe(true);
    // the new run starts above the seqs the first one reserved: maybe a gap, never a seq given twice
    const starts = page.items.filter((e) => e.type === 'server.start').map((e) => e.seq);
    expect(starts).toHaveLength(2);
    expect(starts[0]).toBe(1);
    expect(starts[1]).toBeGreaterThan(lastBefore);
    expect(page.items.filter(synced).some((e) => e.seq < lastBefore)).toBe(true);

    // the export streams the same history from the journal
    const exported = (await (await fetch(`${two.base}/api/v1/trace/export?podUID=${uid}`)).text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as TraceEvent);
    // a pod's export carries the server restarts too (both server.start markers), then the pod's own history
    expect(exported.filter((e) => e.type === 'server.start').map((e) => e.seq)).toEqual(starts);
    expect(exported.find((e) => e.type !== 'server.start')?.type).toBe('config.update');
    expect(exported.some((e) => e.seq > lastBefore && synced(e))).toBe(true);
  });

  it('exits within 2 s of SIGTERM with every event in the journal', async () => {
    const dataDir = await tempDir('syncscope-persist-', cleanups);
    const child = await startServer(dataDir, cleanups);
    await applyHealthy(child.base);
    await waitOnStream(child.base, 'healthy Running', () => podRunning(child.base));
    const { next } = await getJSON<{ next: number }>(`${child.base}/api/v1/trace?podUID=none`);

    const t0 = performance.now();
    child.proc.kill('SIGTERM');
    const exit = await child.exited;
    const ms = performance.now() - t0;
    expect(exit.code, child.stderr()).toBe(0);
    expect(ms).toBeLessThan(2_000);

    const seqs = (await readJournal(join(dataDir, 'trace'))).map((e) => e.seq);
    expect(seqs.length).toBeGreaterThanOrEqual(next);
    expect(seqs.slice(0, next)).toEqual(Array.from({ length: next }, (_, i) => i + 1));
    console.log(
      `SIGTERM → exit in ${ms.toFixed(0)} ms; journal ${seqs.length} events (served up to ${next})`,
    );
  });
});

// ---- crashes and damage: seqs are never reissued, a damaged journal is set aside and named ----------------

/**
 * Streams the trace from seq 0 and SIGKILLs the server on the `afterLive`-th message that comes after the
 * one carrying this run's `server.start` (the `runStarts`-th one): the newest events it holds were served
 * at most one stream batch (50 ms) ago, so some are usually not in the journal yet. Every event received
 * is put into `seen`.
 */
async function streamThenKill(
  child: ListeningServer,
  runStarts: number,
  afterLive: number,
  seen: Map<number, TraceEvent>,
): Promise<void> {
  const ws = new WebSocket(`${child.base.replace('http', 'ws')}/api/v1/trace/stream?since=0`);
  let starts = 0;
  let live = -1;
  ws.on('message', (data: Buffer) => {
    const msg = JSON.parse(data.toString()) as { kind: string; events?: TraceEvent[] };
    for (const ev of msg.events ?? []) {
      seen.set(ev.seq, ev);
      if (ev.type === 'server.start') starts++;
    }
    if (live >= 0) live++;
    else if (starts === runStarts) live = 0;
    if (live === afterLive) child.proc.kill('SIGKILL');
  });
  ws.on('error', () => {});
  expect((await child.exited).signal).toBe('SIGKILL');
  ws.terminate();
}

describe('a crash and a damaged journal', () => {
  it('never gives a seq served before kill -9 to another event after it', async () => {
    const dataDir = await tempDir('syncscope-persist-', cleanups);
    const traceDir = join(dataDir, 'trace');
    const seen = new Map<number, TraceEvent>();
    let unwrittenButServed = 0;
    // runs 1 and 2 write the journal every 100 ms, so a kill lands wherever it falls; run 3 writes it only
    // every 60 s, so its kill always lands after events were served and before they were written
    for (let run = 1; run <= 3; run++) {
      const env: Record<string, string> = run === 3 ? { JOURNAL_FLUSH_MS: '60000' } : {};
      const child = await startServer(dataDir, cleanups, env);
      // the previous runs' events are served unchanged, and this run's are above every seq seen before
      const before = Math.max(0, ...seen.keys());
      const page = await getJSON<{ items: TraceEvent[] }>(`${child.base}/api/v1/trace?since=0&limit=100000`);
      const thisRun = page.items.filter((e) => e.seq > before);
      expect(thisRun[0]?.type).toBe('server.start');
      for (const ev of page.items.filter((e) => e.seq <= before)) expect(ev).toEqual(seen.get(ev.seq));
      if (run === 1) await applyHealthy(child.base);

      await streamThenKill(child, run, 3, seen);
      const onDisk = await readJournal(traceDir);
      const lastOnDisk = onDisk[onDisk.length - 1]?.seq ?? 0;
      const served = [...seen.keys()].filter((s) => s > lastOnDisk).length;
      console.log(
        `run ${run}: served up to ${Math.max(...seen.keys())}, on disk ${lastOnDisk} (${served} not)`,
      );
      if (run === 3) unwrittenButServed = served;
    }
    // the case that matters happened: a client held seqs the journal never got
    expect(unwrittenButServed).toBeGreaterThan(0);
    const last = await startServer(dataDir, cleanups);
    const max = Math.max(...seen.keys());
    const page = await getJSON<{ items: TraceEvent[] }>(`${last.base}/api/v1/trace?since=${max}&limit=10`);
    expect(page.items[0]?.type).toBe('server.start');
    expect(page.items[0]?.seq).toBeGreaterThan(max);
  });

  it('sets a damaged journal aside, names every damaged file, starts, and serves what is whole', async () => {
    const dataDir = await tempDir('syncscope-persist-', cleanups);
    const traceDir = join(dataDir, 'trace');
    const j = new TraceJournal({ dir: traceDir, segmentBytes: 1024, warn: () => {} });
    await j.open();
    j.append({ seq: 1, time: 1, type: 'server.start', version: 'old', runtime: 'simulated', endpoint: '' });
    j.append({
      seq: 2,
      time: 2,
      type: 'config.update',
      op: 'ADD',
      source: 'api',
      podUID: 'u1',
      pod: 'default/ghost',
    });
    for (let seq = 3; seq <= 40; seq++)
      j.append({ seq, time: seq, type: 'loop.skipped', errors: [], backoffMs: seq });
    await j.close();
    const segments = (await readdir(traceDir)).filter((n) => n.endsWith('.ndjson')).sort();
    expect(segments.length).toBeGreaterThanOrEqual(3);
    // garbage between two good lines of the first segment
    const first = join(traceDir, segments[0] as string);
    const lines = (await readFile(first, 'utf8')).split('\n');
    const badAt = Buffer.byteLength(lines.slice(0, 3).join('\n')) + 1;
    lines.splice(3, 0, '\u0000\u0000garbage');
    await writeFile(first, lines.join('\n'));
    // a directory where a segment should be, and a torn tail on the newest segment
    const second = Number((segments[1] as string).slice(6, 22));
    const bogus = join(traceDir, `trace-${String(second - 1).padStart(16, '0')}.ndjson`);
    await mkdir(bogus);
    const newest = join(traceDir, segments.at(-1) as string);
    await appendFile(newest, '{"seq":41,"time":41,"type":"loop.ski');

    const child = await startServer(dataDir, cleanups);
    const warned = child.stderr();
    expect(warned).toContain(`${bogus} cannot be read (EISDIR`);
    expect(warned).toContain(`${first}: 1 bad record skipped, at byte ${badAt}`);
    expect(warned).toMatch(
      new RegExp(`${newest}: cut 36 bytes after the last whole event at byte \\d+; a copy is in`),
    );
    expect(warned).toContain(
      `pod store: ${join(dataDir, 'store', 'pods')} is missing, but the trace journal ${traceDir} shows 1 pod never removed (default/ghost)`,
    );
    expect(warned).not.toMatch(/\n\s+at /); // no stack
    const damaged = (await readdir(join(traceDir, 'damaged'))).sort();
    expect(damaged).toHaveLength(2);
    expect(damaged.some((n) => n.startsWith(basename(bogus)))).toBe(true);
    const tail = damaged.find((n) => n.startsWith(basename(newest)) && n.endsWith('.tail')) as string;
    expect(await readFile(join(traceDir, 'damaged', tail), 'utf8')).toBe(
      '{"seq":41,"time":41,"type":"loop.ski',
    );

    const page = await getJSON<{ items: TraceEvent[] }>(`${child.base}/api/v1/trace?since=0&limit=100000`);
    expect(page.items.slice(0, 40).map((e) => e.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(page.items[40]?.type).toBe('server.start');
    const metrics = await (await fetch(`${child.base}/metrics`)).text();
    expect(metrics).toMatch(/^syncscope_journal_bad_records_total 1$/m);
  });

  it('refuses a journal flush interval that is not 1..60000 ms, naming the flag', async () => {
    const dataDir = await tempDir('syncscope-persist-', cleanups);
    // side by side: each exits before it would take the data dir's lock
    const bads = ['0', '60001', '1.5', 'soon'];
    const children = bads.map((bad) => spawnServer(dataDir, cleanups, {}, ['--journal-flush-ms', bad]));
    for (const [i, c] of children.entries()) {
      expect((await c.exited).code).toBe(2);
      expect(c.stderr()).toContain(`--journal-flush-ms must be 1..60000 milliseconds, got ${bads[i]}`);
    }
  });

  it('exits 1 with one line when the data dir is not a directory or is read-only', async () => {
    const dataDir = await tempDir('syncscope-persist-', cleanups);
    const file = join(dataDir, 'a-file');
    await writeFile(file, 'not a directory');
    const notDir = spawnServer(file, cleanups);
    expect((await notDir.exited).code).toBe(1);
    expect(notDir.stderr()).toBe(`syncscope: data dir ${file} is not a directory\n`);

    if (process.getuid?.() !== 0) return; // a read-only mount needs root (CI runs as root)
    const ro = join(dataDir, 'ro');
    await mkdir(ro);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', ro]);
    cleanups.push(async () => {
      execFileSync('umount', [ro]);
    });
    const readOnly = spawnServer(ro, cleanups);
    expect((await readOnly.exited).code).toBe(1);
    expect(readOnly.stderr()).toBe(
      `syncscope: data dir ${ro} is not writable: EROFS: read-only file system\n`,
    );
  });
});
