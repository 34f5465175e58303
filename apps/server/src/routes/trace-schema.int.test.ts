/**
 * The engine's own events fit the trace schema: a real server (buildApp on the simulated node, real HTTP over
 * a loopback socket) runs the startup examples until the trace holds every kind of event a crash loop
 * brings; each event as recorded, each line of the export and each event read back from the journal after
 * a restart passes checkTraceEvent's full check, so none is dropped as malformed on the way.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkTraceEvent, type TraceEvent, type TraceType } from '@syncscope/core/trace';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BuiltApp, buildApp } from '../app.ts';

const WANTED: TraceType[] = [
  'server.start',
  'config.update',
  'loop.iteration',
  'worker.update',
  'worker.state',
  'sync.start',
  'sync.result',
  'pleg.relist',
  'pleg.event',
  'runtime.call',
  'status.update',
  'k8s.event',
  'backoff',
];

let dataDir: string;
let built: BuiltApp | undefined;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'syncscope-trace-schema-'));
});
afterEach(async () => {
  await built?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the engine trace against its schema', () => {
  it('records, exports and reads back from the journal only events the schema accepts', async () => {
    built = await buildApp({ dataDir, examples: true, warn: () => {} });
    const refused: string[] = [];
    const seen = new Set<string>();
    const all = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`missing: ${WANTED.filter((t) => !seen.has(t))}`)),
        45_000,
      );
      const check = (ev: TraceEvent) => {
        const bad = checkTraceEvent(JSON.parse(JSON.stringify(ev)));
        if (bad) refused.push(bad);
        seen.add(ev.type);
        if (WANTED.every((t) => seen.has(t))) {
          clearTimeout(timer);
          resolve();
        }
      };
      for (const ev of built?.trace.since(0) ?? []) check(ev);
      built?.trace.subscribe(check, 'the schema check');
    });
    await all;
    expect(refused).toEqual([]);

    const base = await built.app.listen({ port: 0, host: '127.0.0.1' });
    const text = await (await fetch(`${base}/api/v1/trace/export`)).text();
    const lines = text.split('\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThan(WANTED.length);
    expect(lines.map((l) => checkTraceEvent(JSON.parse(l))).filter((m) => m !== undefined)).toEqual([]);
    const exported = lines.map((l) => (JSON.parse(l) as TraceEvent).seq);

    // the journal's reader checks each line in full: after a restart it gives back every exported event
    await built.close();
    built = await buildApp({ dataDir, examples: false, warn: () => {} });
    const again = await built.app.listen({ port: 0, host: '127.0.0.1' });
    const last = exported[exported.length - 1] as number;
    const page = (await (await fetch(`${again}/api/v1/trace?limit=100000`)).json()) as {
      items: TraceEvent[];
    };
    const before = page.items.filter((e) => e.seq <= last).map((e) => e.seq);
    expect(before).toEqual(exported);
  }, 90_000);
});
