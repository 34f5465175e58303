/**
 * For the exec tests beside this file: a token-guarded server (buildApp on the simulated node process) with one
 * running pod, default/shell (container `app`, busybox sleeping), listening on a free loopback port.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '../../../../test/support/until.ts';
import { type BuiltApp, buildApp } from '../app.ts';

export interface ShellServer {
  built: BuiltApp;
  /** http://127.0.0.1:PORT */
  base: string;
  close(): Promise<void>;
}

/** Starts the server with `token` and waits until default/shell (UID `uid`) runs. */
export async function startShellServer(token: string, uid: string): Promise<ShellServer> {
  const dir = await mkdtemp(join(tmpdir(), 'syncscope-exec-'));
  const built = await buildApp({ dataDir: dir, examples: false, logger: false, token, warn: () => {} });
  const close = async () => {
    await built.close();
    await rm(dir, { recursive: true, force: true });
  };
  built.engine.addPod({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'shell',
      namespace: 'default',
      uid,
      creationTimestamp: new Date(built.clock.now()).toISOString(),
    },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'] }],
    },
  });
  const base = await built.app.listen({ port: 0, host: '127.0.0.1' });
  await until(
    'the container to run',
    async () => built.engine.getPod('default', 'shell')?.status?.containerStatuses?.[0]?.state?.running,
    60_000,
    50,
  );
  return { built, base, close };
}
