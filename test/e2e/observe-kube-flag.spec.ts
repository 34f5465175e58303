/**
 * `--kubeconfig` on the real command: an observing server process reads the kubeconfig a managed server process
 * wrote into its data dir and shows the managed pods as the API has them, a graceful delete's deletionTimestamp
 * and grace included. The flag is refused without --observe, and a kubeconfig it cannot read is named.
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { Pod, PodList } from '@syncscope/core/api/v1';
import { afterEach, describe, expect, it } from 'vitest';
import { getJSON, spawnServer, startServer, tempDir } from '../support/server-process.ts';
import { until } from '../support/until.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
const tmp = () => tempDir('syncscope-kubeflag-', cleanups);

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'flag-pod' },
  spec: { containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'] }] },
};

describe('--kubeconfig', () => {
  it("an observer process shows the managed pods and a delete's grace from the API", async () => {
    const managedDir = await tmp();
    const managed = await startServer(managedDir, cleanups);
    const kubeconfig = join(managedDir, 'kubeconfig');
    await until('the managed kubeconfig', () => access(kubeconfig).then(() => true));
    const node = await getJSON<{ runtime: { endpoint: string } }>(`${managed.base}/api/v1/node`);
    const observer = await startServer(await tmp(), cleanups, {}, [
      '--observe',
      '--runtime-endpoint',
      node.runtime.endpoint,
      '--kubeconfig',
      kubeconfig,
    ]);
    const res = await fetch(`${managed.base}/api/v1/namespaces/default/pods`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(pod),
    });
    expect(res.status).toBe(201);
    const uid = ((await res.json()) as Pod).metadata.uid;
    await until('the observer showing the pod', async () => {
      const list = await getJSON<PodList>(`${observer.base}/api/v1/pods`);
      return list.items.find((p) => p.metadata.uid === uid)?.spec.containers[0]?.command?.[0] === 'sleep';
    });
    const del = await fetch(`${managed.base}/api/v1/namespaces/default/pods/flag-pod?gracePeriodSeconds=45`, {
      method: 'DELETE',
    });
    expect(del.status).toBe(200);
    const deleted = (await del.json()) as Pod;
    const shown = await until('the grace on the observer', async () => {
      const p = await getJSON<Pod>(`${observer.base}/api/v1/namespaces/default/pods/flag-pod`);
      return p.metadata.deletionGracePeriodSeconds !== undefined && p;
    });
    expect(shown.metadata).toMatchObject({
      deletionGracePeriodSeconds: 45,
      deletionTimestamp: deleted.metadata.deletionTimestamp,
    });
  }, 90_000);

  it('is refused without --observe, and a kubeconfig it cannot read is named', async () => {
    const a = spawnServer(await tmp(), cleanups, {}, ['--kubeconfig', '/nonexistent/kubeconfig']);
    expect((await a.exited).code).toBe(2);
    expect(a.stderr()).toContain('--kubeconfig needs --observe');
    const b = spawnServer(await tmp(), cleanups, {}, [
      '--observe',
      '--runtime-endpoint',
      'unix:///nonexistent.sock',
      '--kubeconfig',
      '/nonexistent/kubeconfig',
    ]);
    expect((await b.exited).code).toBe(2);
    expect(b.stderr()).toContain('--kubeconfig: ENOENT');
  }, 60_000);
});
