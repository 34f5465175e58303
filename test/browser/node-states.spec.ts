/**
 * The node view says what it knows, on the simulated node with the startup examples: live panels, every
 * relist on the PLEG lane, "Last 60 s" saying how much it has; a pod's "trace" link and its export; delete
 * with its grace period behind a confirmation, then the pod in "recently deleted" with a link to its
 * timeline; the loop stopped (stalled, in red, with the last iteration's time); the server gone (stale,
 * grey, "since hh:mm:ss", counters frozen). Screenshots at 1280 and 1920 px in both themes.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../support/axe.ts';
import { type Dashboard, RESULTS, startDashboard } from '../support/browser.ts';

let dash: Dashboard;
let page: Page;
const pageErrors: string[] = [];
const HH_MM_SS = /\d\d:\d\d:\d\d/;

const MANIFEST = `apiVersion: v1
kind: Pod
metadata:
  name: short-lived
spec:
  terminationGracePeriodSeconds: 7
  containers:
    - name: app
      image: busybox
      imagePullPolicy: IfNotPresent
      command: ["sh", "-c", "sleep 3600"]
`;

async function shots(name: string) {
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
async function pageTimePasses(ms: number) {
  const t = await page.evaluate(() => Date.now());
  await page.waitForFunction((until) => Date.now() >= until, t + ms);
}

beforeAll(async () => {
  dash = await startDashboard({ examples: true });
});

afterAll(async () => {
  await dash?.close();
});

/**
 * A page of its own on the node view of `on` (the shared server unless a test brings its own), live and
 * listing the healthy example: no test leans on where an earlier one left the page.
 */
async function openNode(on: Dashboard = dash) {
  await page?.close();
  page = await on.browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  page.on('pageerror', (err) => pageErrors.push(err.message));
  await page.goto(on.baseUrl);
  await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });
  await page.locator('[data-testid="pod-row-healthy"]').waitFor({ timeout: 60_000 });
}

/** A server of its own, for a test that stops its engine or closes it; closed whatever the test does. */
async function ownDashboard<T>(run: (own: Dashboard) => Promise<T>): Promise<T> {
  const own = await startDashboard({ examples: true });
  try {
    return await run(own);
  } finally {
    await page?.close();
    await own.close();
  }
}

describe('node view states', () => {
  it('is live: every relist on the PLEG lane, and the strip says how much of 60 s it holds', async () => {
    await openNode();
    await page.locator('[data-testid="loop-state"][data-state="live"]').waitFor({ timeout: 20_000 });
    await page.locator('[data-testid="pods-state"][data-state="live"]').waitFor();
    // the server has run for seconds, not a minute: the strip says so instead of drawing an empty past (in its
    // first second it says "less than the last second"; the count follows the clock)
    await page
      .locator('[data-testid="loop-coverage"]', { hasText: /covers the last \d+ s of 60/ })
      .waitFor({ timeout: 20_000 });
    // relists run every second whether or not they find anything; each is drawn, the empty ones too
    await page.waitForFunction(
      () => document.querySelectorAll('line.loop-relist:not(.loop-relist-events)').length >= 2,
      undefined,
      { timeout: 20_000 },
    );
    expect(await page.locator('line.loop-relist').count()).toBe(
      Number(await page.locator('[data-testid="loop-relist-count"]').textContent()),
    );
    await page.locator('[data-testid="cadence-state"][data-state="live"]').waitFor({ timeout: 20_000 });
    await page.locator('[data-testid="deleted-empty"]').waitFor();
    await page
      .locator('[data-testid="pod-row-healthy"] td.status', { hasText: /^Running$/ })
      .waitFor({ timeout: 60_000 });
    expect(await seriousViolations(page)).toEqual([]);
    await shots('node-live');
  });

  it('lays the panels out without overlap from 1024 to 2560 px, using the width of large screens', async () => {
    await openNode();
    for (const width of [1024, 1280, 1600, 1920, 2560]) {
      await page.setViewportSize({ width, height: 1000 });
      await page.locator('[data-testid="pod-row-healthy"]').waitFor();
      const seen = await page.evaluate(() => {
        const boxes = [...document.querySelectorAll('section.panel')].map((el) => {
          const r = el.getBoundingClientRect();
          return {
            id: el.getAttribute('data-testid') ?? el.className,
            l: r.left,
            r: r.right,
            t: r.top,
            b: r.bottom,
          };
        });
        const overlaps: string[] = [];
        for (let i = 0; i < boxes.length; i++)
          for (let j = i + 1; j < boxes.length; j++) {
            const a = boxes[i] as (typeof boxes)[0];
            const b = boxes[j] as (typeof boxes)[0];
            if (a.l < b.r - 1 && b.l < a.r - 1 && a.t < b.b - 1 && b.t < a.b - 1)
              overlaps.push(`${a.id} × ${b.id}`);
          }
        const used = Math.max(...boxes.map((b) => b.r)) - Math.min(...boxes.map((b) => b.l));
        return { overlaps, used, scrollWidth: document.documentElement.scrollWidth };
      });
      expect(seen.overlaps, `${width}px`).toEqual([]);
      expect(seen.scrollWidth, `${width}px: nothing sticks out sideways`).toBeLessThanOrEqual(width);
      expect(seen.used / width, `${width}px: share of the width used`).toBeGreaterThan(0.9);
      // every control of the pods panel is on screen horizontally
      const search = await page.locator('[data-testid="pod-search"]').boundingBox();
      expect(search && search.x + search.width <= width).toBe(true);
      await page.screenshot({ path: join(RESULTS, `node-layout-${width}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('opens the pod page from the row trace link, and exports with its own button', async () => {
    await openNode();
    await page.locator('[data-testid="trace-healthy"]').click();
    await page.waitForURL('**/#/pods/default/healthy');
    await page.goBack();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('[data-testid="export-healthy"]').click(),
    ]);
    expect(download.suggestedFilename()).toBe('syncscope-trace-healthy.ndjson');
    expect(page.url()).not.toContain('#/pods/');
  });

  it('deletes a pod only after a confirmation with its grace period, then lists it as recently deleted', async () => {
    const res = await fetch(`${dash.baseUrl}/api/v1/namespaces/default/pods`, {
      method: 'POST',
      headers: { 'content-type': 'application/yaml' },
      body: MANIFEST,
    });
    expect(res.status).toBe(201);
    await openNode();
    const row = page.locator('[data-testid="pod-row-short-lived"]');
    await row.locator('td.status', { hasText: /^Running$/ }).waitFor({ timeout: 60_000 });

    await page.locator('[data-testid="delete-short-lived"]').click();
    const dialog = page.locator('[data-testid="delete-dialog"]');
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('default/short-lived');
    expect(await page.locator('[data-testid="delete-grace"]').inputValue()).toBe('7');
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await row.count()).toBe(1); // nothing was sent

    await page.locator('[data-testid="delete-short-lived"]').click();
    await page.locator('[data-testid="delete-grace"]').fill('0');
    await page.locator('[data-testid="delete-confirm"]').click();
    await page
      .locator('[data-testid="delete-result"]', { hasText: 'pod "short-lived" deleted (grace period 0s)' })
      .waitFor();
    await row.waitFor({ state: 'detached', timeout: 30_000 });
    const gone = page.locator('[data-testid="deleted-short-lived"]');
    await gone.waitFor({ timeout: 30_000 });
    expect(await gone.textContent()).toMatch(HH_MM_SS);
    await gone.locator('a').click();
    await page.waitForURL('**/#/pods/default/short-lived');
    await page.goBack();
    await page.locator('[data-testid="recently-deleted"]').waitFor();
  });

  it('says in red that the loop is stalled, with the last iteration time, when the engine stops', async () => {
    await ownDashboard(async (own) => {
      await openNode(own);
      // a fresh server: the page must have seen a housekeeping run (every 2 s) before there is one to be late
      await page
        .locator('[data-testid="housekeeping-cadence"]:not([data-runs="0"])')
        .waitFor({ timeout: 20_000 });
      await own.built.engine.stop();
      const stalled = page.locator('[data-testid="stalled-loop"]');
      await stalled.waitFor({ timeout: 20_000 });
      expect(await stalled.textContent()).toMatch(
        /sync loop stalled: no sync loop iteration for \d+s \(last at \d\d:\d\d:\d\d\)/,
      );
      await page.locator('[data-testid="stalled-housekeeping"]').waitFor({ timeout: 20_000 });
      // the PLEG is judged by its own threshold (3 min), as the kubelet does: healthy yet, and no red line says otherwise
      expect(await page.locator('[data-testid="pleg-health"]').getAttribute('data-healthy')).toBe('true');
      expect(await page.locator('[data-testid="stalled-relist"]').count()).toBe(0);
      await page.locator('[data-testid="loop-state"][data-state="stalled"]').waitFor();
      await page.locator('[data-testid="cadence-state"][data-state="stalled"]').waitFor();
      const colour = await stalled.evaluate(
        (el) => getComputedStyle(el.parentElement as Element).backgroundColor,
      );
      expect(colour).toBe('rgb(192, 38, 45)'); // --bad
      await shots('node-stalled');
    });
  });

  it('keeps the page and offers a plain box for the manifest when the editor cannot be fetched', async () => {
    await page?.close();
    page = await dash.browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.route('**/assets/ManifestEditor-*.js', (r) => r.abort());
    await page.goto(dash.baseUrl);
    await page.locator('[data-testid="manifest-plain"]').waitFor({ timeout: 60_000 });
    await page.locator('[data-testid="pod-row-healthy"]').waitFor();
    // the examples are asked for once the first screen is in
    await expect
      .poll(() => page.locator('[data-testid="manifest-plain"]').inputValue())
      .toContain('kind: Pod');
    await shots('apply-plain-editor');
  });

  it('turns grey with "stale since" and freezes its clocks when the server is gone', async () => {
    await ownDashboard(async (own) => {
      await openNode(own);
      await own.built.close();
      const badge = page.locator('[data-testid="connection-state"][data-stale="true"]');
      await badge.waitFor({ timeout: 20_000 });
      expect(await badge.textContent()).toMatch(/^stale since \d\d:\d\d:\d\d/);
      await page.locator('[data-testid="loop-state"][data-state="stale"]').waitFor();
      await page.locator('[data-testid="pods-state"][data-state="stale"]').waitFor();
      await page.locator('[data-testid="cadence-state"][data-state="stale"]').waitFor();
      expect(await page.locator('[data-testid="node-stalled"]').count()).toBe(0); // it cannot know any more
      await page.locator('[data-testid="runtime-health"].health-stale').waitFor(); // nor that it is ready
      const before = await page.locator('[data-testid="pleg-health"]').textContent();
      const age = await page.locator('[data-testid="pod-row-healthy"] td').nth(5).textContent();
      await pageTimePasses(2_500);
      expect(await page.locator('[data-testid="pleg-health"]').textContent()).toBe(before);
      expect(await page.locator('[data-testid="pod-row-healthy"] td').nth(5).textContent()).toBe(age);
      await shots('node-stale');
    });
    expect(pageErrors).toEqual([]);
  });
});
