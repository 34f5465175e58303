/**
 * Global setup of the projects that start servers (integration, e2e, browser): finds the server bundle current
 * or builds it (./server-bundle.ts), once per run, and names it and its simulated node in the environment the
 * test files inherit. So every server they start, in the test's own process or as a process of its own,
 * spawns its node from the bundle, without the TypeScript loader (about 0.5 s of CPU a node instead of 3 s),
 * and every server process (server-process.ts) is the bundled one (1.5 s instead of 5 s). Values already set
 * are kept.
 */
import { join } from 'node:path';
import { NODE_BUNDLE_ENV } from '@syncscope/server/sim-node/protocol';
import { serverBundle } from './server-bundle.ts';
import { SERVER_BUNDLE_ENV } from './server-lib.ts';

export default async function setup(): Promise<void> {
  const dir = process.env[SERVER_BUNDLE_ENV] || (await serverBundle());
  process.env[SERVER_BUNDLE_ENV] = dir;
  process.env[NODE_BUNDLE_ENV] ||= join(dir, 'sim-node', 'main.mjs');
}
