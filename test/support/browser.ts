/**
 * Debian's Chromium for the browser tests (and the UI benchmark), driven by playwright-core. The flags keep a
 * headless Chromium quiet on a machine with no network: no background networking, component updates or sync.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeletConfiguration } from '@syncscope/core/kubelet/configuration';
import type { BuiltApp } from '@syncscope/server';
import { type Browser, chromium, type Page, type Request } from 'playwright-core';
import { loadBuildApp } from './server-lib.ts';

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
  /** Content-Security-Policy violations any page of `browser` reported so far (none is the only good count). */
  cspViolations(): string[];
  /** Stops everything, then fails if a page reported a CSP violation. */
  close(): Promise<void>;
}

/** A 1280×860 page of the dashboard's browser whose uncaught errors are pushed onto `errors`. */
export async function errorWatchedPage(dash: Dashboard, errors: string[]): Promise<Page> {
  const page = await dash.browser.newPage({ viewport: { width: 1280, height: 860 } });
  page.on('pageerror', (e) => errors.push(e.message));
  return page;
}

/**
 * A file of the web app that did not load says why on the test's stderr (the network error, or the status
 * the server gave), so a page error such as "Failed to fetch dynamically imported module" has its cause
 * beside it. Requests a test aborts on purpose (a page closed mid-load) say net::ERR_ABORTED.
 */
export function explainFailedLoads(page: Page): void {
  page.on('requestfailed', (r) => {
    if (r.url().includes('/assets/')) console.error(`load failed: ${r.url()}: ${r.failure()?.errorText}`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400 && r.url().includes('/assets/'))
      console.error(`load failed: ${r.url()}: ${r.status()}`);
  });
}

/** Collects the CSP violations `page` reports: Chromium's console lines and securitypolicyviolation events. */
async function watchCsp(page: Page, into: string[]): Promise<void> {
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) into.push(m.text());
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) =>
      console.error(`Content Security Policy violation: ${e.effectiveDirective} blocked ${e.blockedURI}`),
    );
  });
}

/**
 * The server on a fresh simulated node (its own data dir), listening on a free loopback port and serving the
 * built web app, plus a Chromium to look at it. Needs `apps/web/dist` (`pnpm test:browser` builds it first).
 */
export async function startDashboard(opts: {
  examples: boolean;
  token?: string;
  /** the node's configuration (as --config gives it) */
  config?: Partial<KubeletConfiguration>;
}): Promise<Dashboard> {
  if (!existsSync(join(WEB_DIST, 'index.html'))) {
    throw new Error('apps/web/dist is missing: run `pnpm --filter @syncscope/web build` first');
  }
  await mkdir(RESULTS, { recursive: true });
  const dataDir = await mkdtemp(join(tmpdir(), 'syncscope-browser-'));
  const buildApp = await loadBuildApp();
  const built = await buildApp({
    dataDir,
    examples: opts.examples,
    ...(opts.token ? { token: opts.token } : {}),
    ...(opts.config ? { config: opts.config } : {}),
  });
  const baseUrl = await built.app.listen({ port: 0, host: '127.0.0.1' });
  const browser = await launchChromium();
  const violations: string[] = [];
  const newPage = browser.newPage.bind(browser);
  browser.newPage = async (...args) => {
    const page = await newPage(...args);
    await watchCsp(page, violations);
    explainFailedLoads(page);
    return page;
  };
  return {
    built,
    browser,
    baseUrl,
    dataDir,
    cspViolations: () => [...violations],
    async close() {
      await browser.close();
      await built.close();
      await rm(dataDir, { recursive: true, force: true });
      if (violations.length > 0) throw new Error(`CSP violations:\n${violations.join('\n')}`);
    },
  };
}

/**
 * The dashboard with the example pods on a simulated node sped up `speed` times (the back-off ladder climbs in
 * seconds), and one page `width` px wide whose script errors are pushed onto `pageErrors`.
 */
export async function openDashboard(opts: {
  speed: number;
  width: number;
  height?: number;
  pageErrors: string[];
}): Promise<{ dash: Dashboard; page: Page; baseUrl: string }> {
  const dash = await startDashboard({ examples: true });
  const baseUrl = dash.baseUrl;
  await fetch(`${baseUrl}/api/v1/sim/speed`, { method: 'PUT', body: JSON.stringify({ speed: opts.speed }) });
  const page = await dash.browser.newPage({ viewport: { width: opts.width, height: opts.height ?? 1000 } });
  page.on('pageerror', (err) => opts.pageErrors.push(err.message));
  return { dash, page, baseUrl };
}

/**
 * Opens `url` and waits for `ready`. A page that lost a file of the web app to a network change of this machine
 * before it was ready (Chromium cancels requests in flight, loopback too, with net::ERR_NETWORK_CHANGED when an
 * interface comes or goes: the containerd tier's own pods do that) is opened once more, after `onRetry`; any
 * other failure is the test's.
 */
export async function openThroughNetworkChange(
  page: Page,
  url: string,
  ready: () => Promise<unknown>,
  onRetry: () => void,
): Promise<void> {
  let changed = false;
  const failed = (r: Request) => {
    if (r.failure()?.errorText === 'net::ERR_NETWORK_CHANGED') changed = true;
  };
  page.on('requestfailed', failed);
  try {
    await page.goto(url);
    await ready();
  } catch (error) {
    if (!changed) throw error;
    onRetry();
    await page.goto(url);
    await ready();
  } finally {
    page.off('requestfailed', failed);
  }
}
