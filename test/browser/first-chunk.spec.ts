/**
 * What a fresh load runs before its first screen. The node page's first row shows with the app's first
 * chunk (and the log opener's small one): none of the pod page's code (timeline, step-through, the model's
 * readings), the explainer's or the trace's event checks has been fetched, and the scripts fetched are well
 * under the app's whole code; the log opener works. A pod page's header paints from the pod's row while
 * the pod page's own code is held back; once it is let through the timeline is drawn.
 */
import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dashboard, errorWatchedPage, startDashboard } from '../support/browser.ts';
import { until } from '../support/until.ts';

let dash: Dashboard;
let page: Page;
const pageErrors: string[] = [];

/** The most script (decoded bytes) the node page may have fetched when its first row shows. */
const FIRST_SCREEN_JS_BYTES = 480_000;
/**
 * Chunks no part of the node page's first screen: the pod page, a log's views, the explainer, the trace's
 * event checks, the file readers, the apply editor.
 */
const LATER =
  /\/assets\/(PodView|PodTraceStream|LogBanner|FleetView|RawLines|log-counts|explainer|trace|file-kind|ndjson|ManifestEditor)-/;

beforeAll(async () => {
  dash = await startDashboard({ examples: true });
  page = await errorWatchedPage(dash, pageErrors);
}, 60_000);

afterAll(async () => {
  await page?.close();
  await dash?.close();
});

interface Fetched {
  path: string;
  bytes: number;
}

describe('the first chunk', () => {
  it('shows the node page’s first rows before the rest of the app is fetched', async () => {
    await until('the crashloop pod to have a row', async () => {
      const res = await fetch(`${dash.baseUrl}/api/v1/node/rows?namespace=default&name=crashloop`);
      return ((await res.json()) as { rows: unknown[] }).rows.length === 1;
    });
    // the scripts fetched when the first row entered the document, read in that same task
    await page.addInitScript(() => {
      const w = window as unknown as { firstRowScripts?: { path: string; bytes: number }[] };
      new MutationObserver((_, observer) => {
        if (!document.querySelector('[data-testid="pod-row-crashloop"]')) return;
        w.firstRowScripts = (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
          .filter((e) => e.initiatorType === 'script' || e.name.endsWith('.js'))
          .map((e) => ({ path: new URL(e.name).pathname, bytes: e.decodedBodySize }));
        observer.disconnect();
      }).observe(document, { childList: true, subtree: true });
    });
    await page.goto(`${dash.baseUrl}/#/`);
    const seen = await page.waitForFunction(
      () => (window as unknown as { firstRowScripts?: Fetched[] }).firstRowScripts ?? null,
      undefined,
      { timeout: 30_000 },
    );
    const scripts = (await seen.jsonValue()) as Fetched[];
    expect(scripts.filter((s) => LATER.test(s.path))).toEqual([]);
    const bytes = scripts.reduce((n, s) => n + s.bytes, 0);
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual(FIRST_SCREEN_JS_BYTES);

    // the log opener is there and answers a click
    const opener = page.getByTestId('open-log-button');
    await opener.waitFor({ timeout: 30_000 });
    const chooser = page.waitForEvent('filechooser', { timeout: 10_000 });
    await opener.click();
    expect((await chooser).isMultiple()).toBe(false);
    expect(pageErrors).toEqual([]);
  }, 90_000);

  it('paints a pod’s header before the pod page’s own code arrives', async () => {
    const pod = await dash.browser.newPage({ viewport: { width: 1280, height: 860 } });
    pod.on('pageerror', (e) => pageErrors.push(e.message));
    const held: Route[] = [];
    await pod.route(/\/assets\/PodView-[^/]*\.js$/, (route) => void held.push(route));
    await pod.goto(`${dash.baseUrl}/#/pods/default/crashloop`);
    await expect
      .poll(() => pod.getByTestId('pod-title').first().textContent(), { timeout: 30_000 })
      .toBe('default/crashloop');
    expect(await pod.getByTestId('pod-status').first().textContent()).toMatch(/\S/);
    // the page's own code is still held: no history yet
    await until('the pod page’s chunk to be asked for', () => held.length > 0);
    expect(await pod.locator('[data-testid="timeline"]').count()).toBe(0);

    // let it through: what was held, and whatever comes after
    await pod.route(/\/assets\/PodView-[^/]*\.js$/, (route) => route.continue());
    for (const r of held.splice(0)) await r.continue();
    await pod.locator('[data-testid="timeline"] svg').first().waitFor({ timeout: 30_000 });
    expect(await pod.getByTestId('pod-title').count()).toBe(1);
    expect(await pod.getByTestId('pod-title').textContent()).toBe('default/crashloop');
    await pod.close();
    expect(pageErrors).toEqual([]);
  }, 90_000);
});
