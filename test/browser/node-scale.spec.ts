/**
 * The node view at node scale: 5,000 pods (no runtime behind them, so they stay Pending and the loop skips,
 * which is all the table needs). The table is virtualized, sorts names naturally, answers `/`, the arrow
 * keys and Enter, and axe finds no serious or critical violation, in the light and the dark theme. The
 * screenshots at 1280 and 1920 px in both themes are kept in test-results/.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BuiltApp } from '@syncscope/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../support/axe.ts';
import { launchChromium, RESULTS } from '../support/browser.ts';
import { loadBuildApp } from '../support/server-lib.ts';

const PODS = 5_000;
let built: BuiltApp;
let browser: Browser;
let base: string;
let dir: string;
let page: Page;
const errors: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'syncscope-browser-scale-'));
  await mkdir(RESULTS, { recursive: true });
  const buildApp = await loadBuildApp();
  built = await buildApp({
    dataDir: dir,
    examples: false,
    logger: false,
    runtimeEndpoint: `unix://${join(dir, 'no-runtime.sock')}`,
    config: { maxPods: 10_000 },
  });
  const now = new Date(built.clock.now()).toISOString();
  for (let i = 1; i <= PODS; i++) {
    built.engine.addPod({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `load-${i}`,
        namespace: i % 10 === 0 ? 'team-b' : 'default',
        uid: `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
        creationTimestamp: now,
      },
      spec: { containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'] }] },
    });
  }
  base = await built.app.listen({ port: 0, host: '127.0.0.1' });
  browser = await launchChromium();
});

/** A page of its own with the table drawn: no test leans on the sort or scroll an earlier one left. */
async function openNode(): Promise<number> {
  await page?.close();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('pageerror', (e) => errors.push(e.message));
  const t0 = performance.now();
  await page.goto(`${base}/#/`);
  await page.locator('[data-testid="pod-row-load-1"]').waitFor({ timeout: 30_000 });
  return performance.now() - t0;
}

afterAll(async () => {
  await browser?.close();
  await built?.close();
  rmSync(dir, { recursive: true, force: true });
});

const rowNames = (p: Page) =>
  p.$$eval('[data-testid="pods-table"] tbody tr[data-index]', (rows) =>
    rows.map((r) => r.querySelector('td.pod-name')?.textContent ?? ''),
  );

describe('node view at 5,000 pods', () => {
  it('renders only the rows on screen, in natural name order', async () => {
    const firstTableMs = await openNode();
    await page.locator('[data-testid="pods-count"]', { hasText: `${PODS} of ${PODS} pods` }).waitFor();
    const names = await rowNames(page);
    expect(names.slice(0, 3)).toEqual(['load-1', 'load-2', 'load-3']);
    expect(names.indexOf('load-10')).toBe(9);
    expect(names.length).toBeLessThan(80);
    // the page is as tall as a screen or two, not 5,000 rows
    expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThan(4_000);
    // measured here loosely (a shared machine); bench P5 holds the 1 s target
    expect(firstTableMs).toBeLessThan(10_000);
  });

  it('sorts by a column header and flips on a second click', async () => {
    await openNode();
    await page.locator('[data-testid="sort-name"]').click();
    await page
      .locator('[data-testid="pods-table"] tbody tr[data-index="0"] td.pod-name', { hasText: /^load-5000$/ })
      .waitFor();
    expect(await page.locator('th[aria-sort="descending"]').textContent()).toContain('NAME');
    await page.locator('[data-testid="sort-namespace"]').click();
    expect((await rowNames(page))[0]).toBe('load-1');
    await page.locator('[data-testid="sort-namespace"]').click();
    expect((await rowNames(page))[0]).toBe('load-10'); // team-b first, then its names in natural order
    await page.locator('[data-testid="sort-name"]').click();
    expect((await rowNames(page))[0]).toBe('load-1');
  });

  // once more on failure: under the suite's load a live re-render can take the row's focus between the check
  // and the key press, and the key then goes to the page (the view's speed under load is its own work)
  it('focuses the filter with /, moves with the arrow keys and End, and opens with Enter', {
    retry: 1,
  }, async () => {
    await openNode();
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('/');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('pod-search');
    await page.keyboard.type('load-49');
    await page.locator('[data-testid="pods-count"]', { hasText: '111 of 5000 pods' }).waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe(
      'pod-row-load-490',
    );
    await page.keyboard.press('End');
    await page.waitForFunction(
      () => document.activeElement?.getAttribute('data-testid') === 'pod-row-load-4999',
    );
    await page.keyboard.press('Enter');
    await page.waitForURL('**/#/pods/default/load-4999');
    await page.goBack();
    await page.locator('[data-testid="pod-search"]').fill('');
    // from the top of the whole list, End reaches the 5,000th row (rendered on demand) and focuses it
    await page.locator('[data-testid="pod-search"]').press('ArrowDown');
    // End goes to the first row only once it has the focus (before that it would move the search box's caret)
    await page.waitForFunction(
      () => document.activeElement?.getAttribute('data-testid') === 'pod-row-load-1',
    );
    await page.keyboard.press('End');
    await page.waitForFunction(
      () => document.activeElement?.getAttribute('data-testid') === 'pod-row-load-5000',
    );
    await page.keyboard.press('Home');
    await page.waitForFunction(
      () => document.activeElement?.getAttribute('data-testid') === 'pod-row-load-1',
    );
  });

  it('has no serious accessibility violation, and looks right at 1280 and 1920 px, light and dark', async () => {
    await openNode();
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const width of [1280, 1920]) {
        await page.setViewportSize({ width, height: width === 1280 ? 900 : 1080 });
        await page.locator('[data-testid="pod-row-load-1"]').waitFor();
        expect(await seriousViolations(page), `${scheme} ${width}px`).toEqual([]);
        await page.screenshot({ path: join(RESULTS, `node-scale-${width}-${scheme}.png`) });
      }
    }
    expect(await page.locator('h1').count()).toBe(1);
    expect(errors).toEqual([]);
  });
});
