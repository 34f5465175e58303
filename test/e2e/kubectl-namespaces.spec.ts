/**
 * The real kubectl on what an apiserver answers besides pods: the health lists (`get --raw /livez?verbose`,
 * `/readyz?verbose`, one check at `/livez/ping` and `/healthz/ping`), `auth can-i` answering yes (the token
 * grants everything), and namespaces as objects: the four every cluster has, `create namespace` (its typed
 * client sends protobuf), `label` and `annotate` of one, a pod refused in a namespace that does not exist,
 * `delete namespace` that keeps it Terminating until its pod is gone and refuses new pods meanwhile, and the
 * pods' status.hostIP, the Node's InternalIP. Each expectation is what kubectl prints.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/until.ts';
import { type Kubectl, podManifest, startKubectl } from './kubectl-run.ts';

const cleanups: (() => Promise<void>)[] = [];
let k: Kubectl;

beforeAll(async () => {
  k = await startKubectl(cleanups);
});

afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** kubectl create of a sleeping pod `name` in `ns`: what it printed and its exit code. */
async function createPod(name: string, ns: string) {
  const path = join(k.dir, `${ns}-${name}.yaml`);
  await writeFile(path, podManifest(name));
  return k.run(['create', '-n', ns, '-f', path]);
}

/** The NAME and STATUS columns of `kubectl get ns`. */
async function namespaces(): Promise<string[][]> {
  const out = await k.ok(['get', 'ns', '--no-headers']);
  return out
    .trim()
    .split('\n')
    .map((l) => l.split(/\s+/).slice(0, 2));
}

describe('kubectl and the apiserver endpoints', () => {
  it('get --raw lists the health checks as the apiserver does, and serves each check', async () => {
    expect(await k.ok(['get', '--raw', '/livez?verbose'])).toBe('[+]ping ok\nlivez check passed\n');
    expect(await k.ok(['get', '--raw', '/readyz?verbose&exclude=shutdown'])).toBe(
      '[+]ping ok\n[+]storage ok\n[+]runtime ok\n[+]shutdown excluded: ok\nreadyz check passed\n',
    );
    expect(await k.ok(['get', '--raw', '/livez'])).toBe('ok');
    expect(await k.ok(['get', '--raw', '/livez/ping'])).toBe('ok');
    expect(await k.ok(['get', '--raw', '/healthz/ping'])).toBe('ok');
    expect(await k.ok(['get', '--raw', '/readyz/runtime'])).toBe('ok');
  });

  it('auth can-i answers yes, and --list shows every verb', async () => {
    expect(await k.ok(['auth', 'can-i', 'create', 'pods'])).toBe('yes\n');
    expect(await k.ok(['auth', 'can-i', 'delete', 'namespaces'])).toBe('yes\n');
    expect(await k.ok(['auth', 'can-i', 'get', '/healthz'])).toBe('yes\n');
    expect(await k.ok(['auth', 'can-i', '--list'])).toMatch(/^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]$/m);
  });

  it('has the four namespaces of every cluster and refuses a pod in one that does not exist', async () => {
    expect(await namespaces()).toEqual([
      ['default', 'Active'],
      ['kube-node-lease', 'Active'],
      ['kube-public', 'Active'],
      ['kube-system', 'Active'],
    ]);
    const refused = await createPod('lost', 'nowhere');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(
      /^Error from server \(NotFound\): error when creating "\S+": namespaces "nowhere" not found$/m,
    );
    expect((await k.run(['get', 'pods', '-A', '--no-headers'])).stdout).not.toMatch(/lost/);
    const immortal = await k.run(['delete', 'namespace', 'kube-system']);
    expect(immortal.stderr).toContain(
      'Error from server (Forbidden): namespaces "kube-system" is forbidden: this namespace may not be deleted',
    );
  });

  it('creates a namespace, deletes it: Terminating until its pod is gone, then gone', async () => {
    expect(await k.ok(['create', 'namespace', 'team-a'])).toBe('namespace/team-a created\n');
    expect((await k.run(['create', 'namespace', 'team-a'])).stderr).toContain(
      'Error from server (AlreadyExists): namespaces "team-a" already exists',
    );
    expect((await createPod('web', 'team-a')).stdout).toBe('pod/web created\n');
    expect(await namespaces()).toContainEqual(['team-a', 'Active']);
    // the pod runs on the node: its hostIP is the Node's InternalIP
    const nodeIP = await k.ok(['get', 'nodes', '-o', 'jsonpath={.items[0].status.addresses[0].address}']);
    const hostIP = await until('the pod has a hostIP', async () => {
      const ip = await k.ok(['get', 'pod', 'web', '-n', 'team-a', '-o', 'jsonpath={.status.hostIP}']);
      return ip || undefined;
    });
    expect(hostIP).toBe(nodeIP);
    expect(await k.ok(['get', 'pod', 'web', '-n', 'team-a', '-o', 'jsonpath={.status.hostIPs[*].ip}'])).toBe(
      nodeIP,
    );

    expect(await k.ok(['delete', 'namespace', 'team-a', '--wait=false'])).toBe(
      'namespace "team-a" deleted\n',
    );
    expect(await namespaces()).toContainEqual(['team-a', 'Terminating']);
    const late = await createPod('late', 'team-a');
    expect(late.stderr).toContain('Error from server (Forbidden): error when creating');
    expect(late.stderr).toContain(
      'pods "late" is forbidden: unable to create new content in namespace team-a because it is being terminated',
    );
    expect((await k.run(['delete', 'namespace', 'team-a', '--wait=false'])).stderr).toContain(
      'Error from server (Conflict): Operation cannot be fulfilled on namespaces "team-a": The system is ensuring all content is removed from this namespace.',
    );
    // kubectl waits for it to go: its pod is deleted, then the namespace. kubectl says "condition met" when it saw
    // the deletion, and nothing (and succeeds) when the namespace was gone before it looked, as on a busy machine
    const waited = await k.ok(['wait', '--for=delete', 'namespace/team-a', '--timeout=60s']);
    expect(['', 'namespace/team-a condition met\n']).toContain(waited);
    expect((await k.run(['get', 'pods', '-n', 'team-a', '--no-headers'])).stderr).toContain(
      'No resources found',
    );
    expect((await k.run(['get', 'namespace', 'team-a'])).stderr).toContain(
      'Error from server (NotFound): namespaces "team-a" not found',
    );
  });

  it('labels and annotates a namespace, selects it by label, and takes a label off again', async () => {
    await k.ok(['create', 'namespace', 'team-b']);
    expect(await k.ok(['label', 'namespace', 'team-b', 'env=dev'])).toBe('namespace/team-b labeled\n');
    expect(await k.ok(['annotate', 'namespace', 'team-b', 'owner=ana'])).toBe('namespace/team-b annotated\n');
    expect(await k.ok(['get', 'ns', '-l', 'env=dev', '-o', 'name'])).toBe('namespace/team-b\n');
    expect(await k.ok(['get', 'ns', 'team-b', '-o', 'jsonpath={.metadata.annotations.owner}'])).toBe('ana');
    const relabel = await k.run(['label', 'namespace', 'team-b', 'env=prod']);
    expect(relabel.stderr).toContain("'env' already has a value (dev), and --overwrite is false");
    expect(await k.ok(['label', 'namespace', 'team-b', 'env-'])).toBe('namespace/team-b unlabeled\n');
    expect(await k.ok(['get', 'ns', '-l', 'env=dev', '-o', 'name'])).toBe('');
    const bad = await k.run(['label', 'namespace', 'team-b', 'tier=not ok']);
    expect(bad.code).not.toBe(0);
    expect(await k.ok(['get', 'ns', 'team-b', '-o', 'jsonpath={.metadata.labels}'])).toBe(
      '{"kubernetes.io/metadata.name":"team-b"}',
    );
    expect(await k.ok(['delete', 'namespace', 'team-b'])).toBe('namespace "team-b" deleted\n');
  });

  it('applies a namespace manifest: created, then configured with a new label, then unchanged', async () => {
    const path = join(k.dir, 'team-d.yaml');
    const manifest = (labels: string) =>
      `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-d\n  labels:\n${labels}`;
    await writeFile(path, manifest('    env: dev\n'));
    expect(await k.ok(['apply', '-f', path])).toBe('namespace/team-d created\n');
    await writeFile(path, manifest('    env: dev\n    tier: web\n'));
    expect(await k.ok(['apply', '-f', path])).toBe('namespace/team-d configured\n');
    expect(await k.ok(['apply', '-f', path])).toBe('namespace/team-d unchanged\n');
    expect(await k.ok(['get', 'ns', '-l', 'tier=web', '-o', 'name'])).toBe('namespace/team-d\n');
    expect(await k.ok(['delete', '-f', path])).toBe('namespace "team-d" deleted\n');
  });
});
