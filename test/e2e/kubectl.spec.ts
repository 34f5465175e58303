/**
 * The real kubectl (the one on PATH: v1.32 here, Debian's kubernetes-client 1.20 on a fresh CI machine)
 * against the real server process on the simulated node, with a token, through the kubeconfig the server
 * writes into its data dir (https with the server's own certificate: kubectl sends a token only over TLS).
 * Reading only: get (table, wide, yaml, json, selectors, -A), describe pod and node, logs, events, and a bad
 * selector's message. kubectl runs with HOME in a temp dir, so nothing under ~/.kube is read or written.
 *
 * Pods are created over HTTP; the server is another process, so waiting is polling with a deadline.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Pod } from '@syncscope/core/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { type ListeningServer, startServer, tempDir } from '../support/server-process.ts';
import { until } from '../support/until.ts';

const TOKEN = 'kubectl-e2e-token-0123456789';
const NODE = 'kube-e2e';
const DEADLINE_MS = 40_000;
const POLL_MS = 200;

const cleanups: (() => Promise<void>)[] = [];
let server: ListeningServer;
let kubeconfig = '';
let home = '';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function kubectl(args: string[], config: string[] = ['--kubeconfig', kubeconfig]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      'kubectl',
      [...config, '--request-timeout', '15s', ...args],
      { env: { PATH: process.env.PATH, HOME: home, KUBECONFIG: '' }, timeout: 30_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

async function ok(args: string[]): Promise<string> {
  const r = await kubectl(args);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

const poll = <T>(what: string, get: () => Promise<T | undefined>): Promise<T> =>
  until(what, get, DEADLINE_MS, POLL_MS);

async function create(
  ns: string,
  name: string,
  labels: Record<string, string>,
  containers: [string, string][],
  restartPolicy = 'Always',
) {
  const res = await fetch(`${server.base}/api/v1/namespaces/${ns}/pods`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, labels },
      spec: {
        restartPolicy,
        terminationGracePeriodSeconds: 1,
        containers: containers.map(([n, cmd]) => ({ name: n, image: 'busybox', command: ['sh', '-c', cmd] })),
      },
    }),
  });
  expect(res.status).toBe(201);
}

const rows = (out: string) =>
  out
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s{2,}/));

beforeAll(async () => {
  const dir = await tempDir('syncscope-kubectl-', cleanups);
  home = join(dir, 'home');
  mkdirSync(home);
  server = await startServer(join(dir, 'data'), cleanups, { SYNCSCOPE_TOKEN: TOKEN }, ['--node-name', NODE]);
  kubeconfig = join(dir, 'data', 'kubeconfig');
  await poll('the kubeconfig', async () => (existsSync(kubeconfig) ? true : undefined));
  await create('default', 'web', { app: 'web', tier: 'front' }, [
    ['app', 'echo one; echo two; echo three; sleep 3600'],
    ['side', 'echo side-1; sleep 3600'],
  ]);
  await create('default', 'crash', { app: 'crash' }, [['app', 'echo boom; exit 1']]);
  await fetch(`${server.base}/api/v1/namespaces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ metadata: { name: 'batch' } }),
  });
  await create('batch', 'job', { app: 'job' }, [['main', 'echo done']], 'Never');
  // web running, crash restarted once, job completed
  await poll('the pods to settle', async () => {
    const list = JSON.parse(await ok(['get', 'pods', '-A', '-o', 'json'])) as { items: Pod[] };
    const by = new Map(list.items.map((p) => [p.metadata.name, p]));
    const crash = by.get('crash')?.status?.containerStatuses?.[0];
    const ready = by.get('web')?.status?.containerStatuses?.every((c) => c.ready);
    return ready && (crash?.restartCount ?? 0) >= 1 && by.get('job')?.status?.phase === 'Succeeded'
      ? true
      : undefined;
  });
});

afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('kubectl get', () => {
  it('prints pods as a table, wide, for all namespaces', async () => {
    const table = rows(await ok(['get', 'pods']));
    expect(table[0]).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    const web = table.find((r) => r[0] === 'web');
    expect(web?.slice(0, 3)).toEqual(['web', '2/2', 'Running']);
    expect(table.map((r) => r[0])).toEqual(['NAME', 'crash', 'web']);
    const wide = await ok(['get', 'pods', '-o', 'wide']);
    expect(wide.split('\n')[0]).toMatch(/IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES/);
    expect(rows(wide).find((r) => r[0] === 'web')).toContain(NODE);
    const all = rows(await ok(['get', 'pods', '-A']));
    expect(all[0]?.[0]).toBe('NAMESPACE');
    expect(all.find((r) => r[1] === 'job')?.slice(0, 4)).toEqual(['batch', 'job', '0/1', 'Completed']);
  });

  it('prints yaml and json with resourceVersion and the node', async () => {
    const pod = parseYaml(await ok(['get', 'pod', 'web', '-o', 'yaml'])) as Pod;
    expect(pod.kind).toBe('Pod');
    expect(pod.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(pod.spec.nodeName).toBe(NODE);
    const list = JSON.parse(await ok(['get', 'pods', '-o', 'json'])) as { kind: string; items: Pod[] };
    expect(list.kind).toBe('List');
    expect(list.items.map((p) => p.metadata.name)).toEqual(['crash', 'web']);
  });

  it('selects by labels and fields', async () => {
    const names = async (args: string[]) =>
      (await ok(['get', 'pods', '-A', '-o', 'name', ...args])).trim().split('\n').filter(Boolean);
    expect(await names(['-l', 'app=web'])).toEqual(['pod/web']);
    expect(await names(['-l', 'app in (web,job)'])).toEqual(['pod/job', 'pod/web']);
    expect(await names(['-l', 'app!=web,!tier'])).toEqual(['pod/job', 'pod/crash']);
    expect(await names(['--field-selector', 'status.phase=Succeeded'])).toEqual(['pod/job']);
    expect(await names(['--field-selector', `spec.nodeName=${NODE},metadata.namespace=default`])).toEqual([
      'pod/crash',
      'pod/web',
    ]);
  });

  it("refuses a bad selector with the API server's message", async () => {
    const r = await kubectl(['get', 'pods', '-l', 'app in web']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("unable to parse requirement: found 'web' expected: '('");
    const f = await kubectl(['get', 'pods', '--field-selector', 'spec.foo=x']);
    expect(f.stderr).toContain('field label not supported: spec.foo');
  });

  it('lists namespaces, the node and events', async () => {
    expect(rows(await ok(['get', 'ns'])).map((r) => r.slice(0, 2))).toEqual([
      ['NAME', 'STATUS'],
      ['batch', 'Active'],
      ['default', 'Active'],
      ['kube-node-lease', 'Active'],
      ['kube-public', 'Active'],
      ['kube-system', 'Active'],
    ]);
    const nodes = rows(await ok(['get', 'nodes']));
    expect(nodes[0]).toEqual(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    expect(nodes[1]?.[0]).toBe(NODE);
    expect(nodes[1]?.[1]).toBe('Ready');
    expect(nodes[1]?.[4]).toBe('v1.32.10');
    const events = await ok(['get', 'events']);
    expect(events.split('\n')[0]).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE/);
    expect(events).toMatch(/Started\s+pod\/web/);
  });
});

describe('kubectl describe', () => {
  it('shows a pod with its Events', async () => {
    const out = await ok(['describe', 'pod', 'crash']);
    expect(out).toMatch(/^Name:\s+crash$/m);
    expect(out).toMatch(new RegExp(`^Node:\\s+${NODE}`, 'm'));
    const events = out.slice(out.indexOf('Events:'));
    expect(events).toMatch(/Normal\s+Started\s+.*kubelet\s+Started container app/);
  });

  it('shows the node with its conditions and the pods on it', async () => {
    const out = await ok(['describe', 'node', NODE]);
    expect(out).toMatch(/Ready\s+True\s+.*KubeletReady\s+kubelet is posting ready status/);
    expect(out).toMatch(/Kubelet Version:\s+v1\.32\.10/);
    const pods = out.slice(out.indexOf('Non-terminated Pods:'));
    expect(pods).toMatch(/default\s+web/);
    expect(pods).toMatch(/default\s+crash/);
    expect(pods).not.toMatch(/batch\s+job/);
  });
});

describe('kubectl logs', () => {
  it('reads a container, its tail and the previous instance', async () => {
    expect(
      await poll('web logs', async () => {
        const out = await ok(['logs', 'web', '-c', 'app']);
        return out.includes('three') ? out : undefined;
      }),
    ).toBe('one\ntwo\nthree\n');
    expect(await ok(['logs', 'web', '-c', 'app', '--tail', '1'])).toBe('three\n');
    expect(await ok(['logs', 'web', '-c', 'side'])).toBe('side-1\n');
    expect(await ok(['logs', 'crash', '--previous'])).toBe('boom\n');
    const noContainer = await kubectl(['logs', 'web', '-c', 'nope']);
    expect(noContainer.stderr).toContain('container nope is not valid for pod web');
  });
});

describe('kubectl logs -f', () => {
  it('follows a running container until it ends', async () => {
    await create(
      'default',
      'ticker',
      { app: 'ticker' },
      [['app', 'echo tick-1; sleep 1; echo tick-2; sleep 1; echo tick-3']],
      'Never',
    );
    await poll('the first tick', async () =>
      (await ok(['logs', 'ticker'])).includes('tick-1') ? true : undefined,
    );
    // still running here: the rest arrives through the open answer, which ends with the container
    expect(await ok(['logs', 'ticker', '-f'])).toBe('tick-1\ntick-2\ntick-3\n');
  });
});

describe('access', () => {
  it('refuses kubectl without the token', async () => {
    const r = await kubectl(['get', 'pods'], ['--server', server.base]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/You must be logged in to the server/);
  });
});
