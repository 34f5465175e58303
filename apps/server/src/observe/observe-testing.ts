/**
 * For the observe-mode guard tests: an observing server (buildObserveApp) whose runtime socket does not exist,
 * with `token`, its data in a temp dir; what it refuses does not depend on a runtime answering.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildObserveApp, type ObservedApp } from './app.ts';

export interface BareObserver {
  observed: ObservedApp;
  /** Its temp dir (the data dir is `data` inside). */
  tmp: string;
  close(): Promise<void>;
}

export async function observeWithoutRuntime(prefix: string, token: string): Promise<BareObserver> {
  const tmp = mkdtempSync(join(tmpdir(), prefix));
  const observed = await buildObserveApp({
    runtimeEndpoint: `unix://${join(tmp, 'no-runtime.sock')}`,
    dataDir: join(tmp, 'data'),
    token,
    logger: false,
    warn: () => undefined,
  });
  return {
    observed,
    tmp,
    async close() {
      await observed.close();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}
