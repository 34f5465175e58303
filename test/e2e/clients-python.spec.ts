/**
 * Debian's python3-kubernetes (the client Debian users have) against a server on the simulated node, through
 * the kubeconfig the server writes, the way its users call it (test/e2e/clients/python_client.py): create
 * from V1Pod models, list, read, a watch stream while pods come and go, a log, a followed log, a crashed
 * container's previous log, exec, delete. Skipped where the package is not installed (.ci/run installs it).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/server-process.ts';
import { type Kubectl, runClientScript, startKubectl } from './kubectl-run.ts';

const PYTHON = '/usr/bin/python3';
const installed = existsSync('/usr/lib/python3/dist-packages/kubernetes');
const cleanups: (() => Promise<void>)[] = [];
let k: Kubectl;

beforeAll(async () => {
  if (installed) k = await startKubectl(cleanups);
});

afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const runPython = () => runClientScript(k, PYTHON, join(ROOT, 'test/e2e/clients/python_client.py'));

describe.skipIf(!installed)('python3-kubernetes', () => {
  it('creates, lists, watches, reads logs, execs and deletes as its users write it', async () => {
    const r = await runPython();
    expect(r.create).toEqual(['py-web', 'py-crash', 'py-churn']);
    expect(r.list).toEqual(expect.arrayContaining(['py-churn', 'py-crash', 'py-web']));
    expect(r.running).toBe('Running');
    expect(r.delete_churn).toBe('py-churn');
    expect(r.log).toBe('one\ntwo\n');
    expect(r.follow).toBe('one\ntwo\n');
    expect(r.previous).toBe('boom\n');
    expect(r.exec).toBe('hi\n');
    const watched = r.watch as [string, string][];
    expect(watched).toContainEqual(['ADDED', 'py-web']);
    expect(watched).toContainEqual(['ADDED', 'py-churn']);
    expect(watched).toContainEqual(['MODIFIED', 'py-web']);
    expect(watched.at(-1)).toEqual(['DELETED', 'py-churn']);
    expect(r.delete).toEqual(['py-web', 'py-crash']);
  }, 120_000);
});
