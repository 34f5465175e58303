/**
 * The node page reads its loop strip, cadence and deleted pods from the server's aggregates and the trace
 * only when asked: the aggregates stream brings at most four messages a second whatever the node does, the
 * strip and cadence fill from it, and the trace panel shows nothing of the trace until "Show the newest
 * events" is pressed, then the newest page newest first and older pages on request. Screenshots of the page
 * with the tail open at 1280 and 1920 px, light and dark, pass axe.
 */
import { mkdir } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../support/axe.ts';
import { type Dashboard, startDashboard } from '../support/browser.ts';
import { until } from '../support/until.ts';

const SHOTS = '/tmp/shots/node-aggregates';
let dash: Dashboard;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  dash = await startDashboard({ examples: true });
  await mkdir(SHOTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await page?.close();
  await dash?.close();
  expect(pageErrors).toEqual([]);
});

describe('the node page from the aggregates', () => {
  it('fills the strip and cadence from a coalesced stream, and shows the trace only as a tail on demand', async () => {
    page = await dash.browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (err) => pageErrors.push(err.message));
    const frames: number[] = [];
    page.on('websocket', (ws) => {
      if (ws.url().includes('/api/v1/node/aggregates/stream'))
        ws.on('framereceived', () => frames.push(performance.now()));
    });
    await page.goto(dash.baseUrl);
    await page.locator('[data-testid="loop-state"][data-state="live"]').waitFor({ timeout: 30_000 });
    await page.waitForFunction(
      () => Number(document.querySelector('[data-testid="loop-source-sync"]')?.textContent) >= 1,
      undefined,
      { timeout: 20_000 },
    );
    await page
      .locator('[data-testid="housekeeping-cadence"]:not([data-runs="0"])')
      .waitFor({ timeout: 20_000 });
    // a running node: nine more messages take at least two seconds (at most four a second, some drift)
    const from = frames.length;
    await until('nine more aggregates messages', () => frames.length - from >= 9);
    const spanMs = (frames[from + 8] as number) - (frames[from] as number);
    expect(spanMs).toBeGreaterThanOrEqual(8 * 250 - 200);

    // the tail: nothing until asked, then the newest page newest first, then the page before it
    expect(await page.locator('[data-testid="trace-tail"]').count()).toBe(0);
    await page.locator('[data-testid="tail-open"]').click();
    const rows = page.locator('[data-testid="trace-tail"] li');
    await page.locator('[data-testid="trace-tail"]').waitFor();
    expect(await rows.count()).toBe(50);
    await page.locator('[data-testid="tail-older"]').click();
    await page.waitForFunction(
      () => document.querySelectorAll('[data-testid="trace-tail"] li').length === 100,
    );
    const seqs = (await rows.evaluateAll((els) =>
      els.map((e) => Number(e.getAttribute('data-seq'))),
    )) as number[];
    expect(seqs.every((s, i) => i === 0 || s === (seqs[i - 1] as number) - 1)).toBe(true);

    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await seriousViolations(page)).toEqual([]);
      for (const width of [1280, 1920]) {
        await page.setViewportSize({ width, height: 1000 });
        await page.screenshot({ path: `${SHOTS}/node-${width}-${scheme}.png`, fullPage: true });
      }
    }
  });
});
