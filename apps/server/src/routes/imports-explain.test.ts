/**
 * GET /api/v1/imports/{id}/explain over a real kubelet log posted to the server: the per-log summary, one
 * pod's steps with the back-off window read by its rule, a copy with an edited delay marked "differs" at
 * that line, and the refusals (a bad ?steps=, an unknown id).
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importsApp } from './imports-testing.ts';

const SAMPLE = readFileSync(
  new URL(
    '../../../../packages/core/src/kubelet-log/testdata/03-v1.31-openshift-journald-v2-static-pods-probes-crashloop.log',
    import.meta.url,
  ),
  'utf8',
);
const CVO_UID = 'aba1776703037ea02e532541162536e2';

let dir: string;
let app: FastifyInstance;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'syncscope-explain-'));
  app = await importsApp(dir);
});
afterEach(async () => {
  await app.close();
  await rm(dir, { recursive: true, force: true });
});

async function post(text: string): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/imports?name=kubelet.log',
    headers: { 'content-type': 'text/plain' },
    payload: text,
  });
  expect(res.statusCode).toBe(201);
  return res.json<{ id: string }>().id;
}
const get = (url: string) => app.inject({ method: 'GET', url });

describe('GET /api/v1/imports/{id}/explain', () => {
  it('sums up the log and lists no difference for the kubelet’s own log', async () => {
    const id = await post(SAMPLE);
    const res = await get(`/api/v1/imports/${id}/explain`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.params).toMatchObject({ initialBackOffS: 10, maxBackOffS: 300, resetS: 600 });
    expect(body.counts).toMatchObject({ differs: 0, backoffWindows: 1, backoffWindowsAgreeing: 1 });
    expect(body.counts.explained + body.counts.unexplained).toBe(body.counts.steps);
    expect(body.pods.length).toBe(8);
    // by default only the differing steps are listed: none here
    expect(body.pods.flatMap((p: { steps: unknown[] }) => p.steps)).toEqual([]);
  });

  it("gives one pod's steps with ?pod=: the back-off line (637) read by the ladder", async () => {
    const id = await post(SAMPLE);
    const body = (await get(`/api/v1/imports/${id}/explain?pod=${CVO_UID}`)).json();
    expect(body.pods.map((p: { uid: string }) => p.uid)).toEqual([CVO_UID]);
    const window = body.pods[0].steps.find(
      (s: { line?: number; source: string }) => s.line === 637 && /back-off/.test(s.source),
    );
    expect(window).toMatchObject({ verdict: 'agrees', backoffMs: 10_000 });
    expect(window.model[0]).toMatch(/^window 1: in back-off 10s until 05:00:24/);
  });

  it('marks an edited delay "differs" at its line, with both values', async () => {
    const id = await post(SAMPLE.replace('back-off 10s restarting', 'back-off 40s restarting'));
    const body = (await get(`/api/v1/imports/${id}/explain?steps=differs`)).json();
    const differs = body.pods.flatMap((p: { steps: unknown[] }) => p.steps);
    expect(differs).toEqual([
      expect.objectContaining({
        line: 637,
        verdict: 'differs',
        difference: { kind: 'backoff-delay', expected: 'back-off 10s', seen: 'back-off 40s' },
      }),
    ]);
    expect(body.counts.differs).toBe(1);
  });

  it('refuses a bad ?steps= with 400 naming it, and an unknown id with 404', async () => {
    const id = await post(SAMPLE);
    const bad = await get(`/api/v1/imports/${id}/explain?steps=some`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ kind: 'Status', code: 400 });
    expect(bad.json().message).toMatch(/steps/);
    const missing = await get('/api/v1/imports/AAAAAAAAAAAAAAAAAAAAAA/explain');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ reason: 'NotFound' });
  });
});
