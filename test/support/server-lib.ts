/**
 * The server as a library, for tests that run it in their own process (the browser tests): buildApp from the
 * run's bundle (./server-bundle.ts builds it, ./bundle-setup.ts names it in SERVER_BUNDLE_ENV), one file loaded
 * as it is in ~0.3 s where the modules through the loader take 5–10 s of a loaded machine for each test file
 * in a process of its own; from source when no bundle is named (a benchmark, a file run on its own). Kept apart
 * from server-bundle.ts, which holds the bundler's plugin and is no bundle's part itself.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Where ./bundle-setup.ts names the bundle for the test files of a run (a directory, as serverBundle returns). */
export const SERVER_BUNDLE_ENV = 'SYNCSCOPE_SERVER_BUNDLE';

export async function loadBuildApp(): Promise<typeof import('@syncscope/server').buildApp> {
  const dir = process.env[SERVER_BUNDLE_ENV];
  if (!dir) return (await import('@syncscope/server')).buildApp;
  const lib = (await import(pathToFileURL(join(dir, 'app.mjs')).href)) as typeof import('@syncscope/server');
  return lib.buildApp;
}
