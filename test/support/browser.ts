/**
 * Debian's Chromium for the browser tests (and the UI benchmark), driven by playwright-core. The flags keep a
 * headless Chromium quiet on a machine with no network: no background networking, component updates or sync.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuiltApp, buildApp } from '@syncscope/server';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Screenshots of the browser tests (kept as CI artifacts). */
export const RESULTS = join(ROOT, 'test-results');
export const WEB_DIST = join(ROOT, 'apps', 'web', 'dist');

export interface Dashboard {
  built: BuiltApp;
  browser: Browser;
  baseUrl: string;
  /** a scratch directory of this server's, removed by close() */
  dataDir: string;
  close(): Promise<void>;
}

/**
 * The server on a fresh simulated node (its own data dir), listening on a free loopback port and serving the
 * built web app, plus a Chromium to look at it. Needs `apps/web/dist` (`pnpm test:browser` builds it first).
 */
export async function startDashboard(opts: { examples: boolean; token?: string }): Promise<Dashboard> {
  if (!existsSync(join(WEB_DIST, 'index.html'))) {
    throw new Error('apps/web/dist is missing: run `pnpm --filter @syncscope/web build` first');
  }
  await mkdir(RESULTS, { recursive: true });
  const dataDir = await mkdtemp(join(tmpdir(), 'syncscope-browser-'));
  const built = await buildApp({
    dataDir,
    examples: opts.examples,
    ...(opts.token ? { token: opts.token } : {}),
  });
  const baseUrl = await built.app.listen({ port: 0, host: '127.0.0.1' });
  const browser = await launchChromium();
  return {
    built,
    browser,
    baseUrl,
    dataDir,
    async close() {
      await browser.close();
      await built.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
