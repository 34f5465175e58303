/**
 * Debian's ruby-kubeclient against a server on the simulated node, through the kubeconfig the server writes,
 * the way its users call it (test/e2e/clients/ruby_client.rb): create from Kubeclient::Resource, list, get,
 * watch_pods (the legacy /api/v1/watch/... path) while pods come and go, a log, a followed log
 * (watch_pod_log), a crashed container's previous log, delete. The client has no exec. Skipped where the
 * package is not installed (.ci/run installs it).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/server-process.ts';
import { type Kubectl, runClientScript, startKubectl } from './kubectl-run.ts';

const RUBY = '/usr/bin/ruby';
const GEMS = '/usr/share/rubygems-integration/all/specifications';
const installed =
  existsSync(RUBY) && existsSync(GEMS) && readdirSync(GEMS).some((f) => f.startsWith('kubeclient-'));
const cleanups: (() => Promise<void>)[] = [];
let k: Kubectl;

beforeAll(async () => {
  if (installed) k = await startKubectl(cleanups);
});

afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const runRuby = () => runClientScript(k, RUBY, join(ROOT, 'test/e2e/clients/ruby_client.rb'));

describe.skipIf(!installed)('ruby-kubeclient', () => {
  it('creates, lists, watches, reads logs and deletes as its users write it', async () => {
    const r = await runRuby();
    expect(r.create).toEqual(['rb-web', 'rb-crash', 'rb-churn']);
    expect(r.list).toEqual(expect.arrayContaining(['rb-churn', 'rb-crash', 'rb-web']));
    expect(r.running).toBe('Running');
    expect(r.delete_churn).toBe('rb-churn');
    expect(r.log).toBe('one\ntwo\n');
    expect(r.follow).toEqual(['one', 'two']);
    expect(r.previous).toBe('boom\n');
    const watched = r.watch as [string, string][];
    expect(watched).toContainEqual(['ADDED', 'rb-web']);
    expect(watched).toContainEqual(['MODIFIED', 'rb-web']);
    expect(watched.at(-1)).toEqual(['DELETED', 'rb-churn']);
    expect(r.delete).toEqual(['rb-web', 'rb-crash']);
  }, 120_000);
});
