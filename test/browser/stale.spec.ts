/**
 * Stale is stale everywhere: with the server gone, the node page and a pod page both say "stale since
 * hh:mm:ss" where they said "live", their clocks and countdowns stop, and their tables keep their last
 * content, greyed, instead of giving way to an error line. Screenshots at 1280 and 1920 px in both themes.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dashboard, RESULTS, startDashboard } from '../support/browser.ts';

let dash: Dashboard;
let nodePage: Page;
let podPage: Page;
const pageErrors: string[] = [];
const STALE_SINCE = /stale since \d\d:\d\d:\d\d/;

async function shots(page: Page, name: string) {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1280, 1920]) {
      await page.setViewportSize({ width, height: width === 1280 ? 900 : 1080 });
      await page.screenshot({ path: join(RESULTS, `${name}-${width}-${scheme}.png`), fullPage: true });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** The page's own clock moved on by `ms` (a condition in the page, not a sleep in the test). */
async function pageTimePasses(page: Page, ms: number) {
  const t = await page.evaluate(() => Date.now());
  await page.waitForFunction((until) => Date.now() >= until, t + ms);
}

/** How greyed an element is drawn: its own and its ancestors' opacity, multiplied. */
function drawnOpacity(page: Page, selector: string): Promise<number> {
  return page
    .locator(selector)
    .first()
    .evaluate((el) => {
      let o = 1;
      for (let e: Element | null = el; e; e = e.parentElement) o *= Number(getComputedStyle(e).opacity);
      return o;
    });
}

async function open(url: string): Promise<Page> {
  const page = await dash.browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('pageerror', (err) => pageErrors.push(err.message));
  await page.goto(url);
  await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });
  return page;
}

beforeAll(async () => {
  dash = await startDashboard({ examples: true });
  // a faster node: the crash-looper is in back-off within seconds, its countdown running
  await fetch(`${dash.baseUrl}/api/v1/sim/speed`, { method: 'PUT', body: JSON.stringify({ speed: 10 }) });
  nodePage = await open(dash.baseUrl);
  await nodePage.locator('[data-testid="pod-row-healthy"]').waitFor({ timeout: 60_000 });
  await nodePage
    .locator('[data-testid="node-health-banner"][data-state="live"]')
    .waitFor({ timeout: 30_000 });
  podPage = await open(`${dash.baseUrl}/#/pods/default/crashloop`);
  await podPage.waitForFunction(
    () =>
      Number(document.querySelector('[data-testid="backoff-countdown"]')?.getAttribute('data-remaining-ms')) >
      3_000,
    undefined,
    { timeout: 90_000 },
  );
  await podPage.locator('[data-testid="step-position"]', { hasText: '· live' }).waitFor({ timeout: 30_000 });
  await dash.built.close();
});

afterAll(async () => {
  await dash?.close();
});

describe('a page whose server is gone', () => {
  it('node page: "stale since", one grey banner, clocks frozen, the pods table kept and greyed', async () => {
    const page = nodePage;
    await page.locator('[data-testid="connection-state"][data-stale="true"]').waitFor({ timeout: 20_000 });
    const banner = page.locator('[data-testid="node-health-banner"]');
    await page.locator('[data-testid="node-health-banner"][data-state="stale"]').waitFor({ timeout: 20_000 });
    expect(await banner.textContent()).toMatch(STALE_SINCE);
    expect(await page.locator('[data-testid="health-state"]').textContent()).toMatch(STALE_SINCE);
    const age = () => page.locator('[data-testid="pod-row-healthy"] td').nth(5).textContent();
    const pleg = () => page.locator('[data-testid="pleg-health"]').textContent();
    const [age0, pleg0] = [await age(), await pleg()];
    // long enough for the pods list and the node to be asked again, and fail
    await pageTimePasses(page, 6_000);
    expect(await age()).toBe(age0);
    expect(await pleg()).toBe(pleg0);
    expect(await page.getByText(/Could not list pods/).count()).toBe(0);
    expect(await page.locator('[data-testid="pod-row-crashloop"]').count()).toBe(1);
    expect(await drawnOpacity(page, '[data-testid="pod-row-healthy"]')).toBeLessThan(0.8);
    expect(await page.locator('[data-testid="node-stalled"]').count()).toBe(0);
    await shots(page, 'stale-node');
  });

  it('pod page: "stale since" where it said live, the back-off countdown stopped, its tables greyed', async () => {
    const page = podPage;
    await page.locator('[data-testid="connection-state"][data-stale="true"]').waitFor({ timeout: 20_000 });
    const position = page.locator('[data-testid="step-position"]');
    await page
      .locator('[data-testid="step-position"]', { hasText: STALE_SINCE })
      .waitFor({ timeout: 20_000 });
    expect(await position.textContent()).not.toMatch(/· live/);
    const remaining = () =>
      page.locator('[data-testid="backoff-countdown"]').first().getAttribute('data-remaining-ms');
    const text = () => page.locator('[data-testid="backoff-countdown"]').first().textContent();
    const [r0, t0] = [await remaining(), await text()];
    await pageTimePasses(page, 3_000);
    expect(await remaining()).toBe(r0);
    expect(await text()).toBe(t0);
    expect(Number(r0)).toBeGreaterThan(0);
    expect(await page.locator('table').count()).toBeGreaterThan(0);
    expect(await drawnOpacity(page, 'table')).toBeLessThan(0.8);
    await shots(page, 'stale-pod');
    expect(pageErrors).toEqual([]);
  });
});
