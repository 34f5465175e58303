/**
 * Contrast in both themes: on the node view and on a crash-looping pod's view (its timeline with folded
 * container runs, exit codes on the bars), in the light and the dark colour scheme, axe's color-contrast rule
 * finds no text under 4.5:1 (3:1 for large text) and every text the SVG charts draw stands at 4.5:1 or more
 * against what is painted under it (axe does not measure SVG text). Screenshots at 1280 and 1920 px, light and
 * dark, go to test-results/.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../support/axe.ts';
import { type Dashboard, openDashboard, RESULTS } from '../support/browser.ts';
import { svgTextContrast } from '../support/svg-contrast.ts';

let dash: Dashboard;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  ({ dash, page } = await openDashboard({ speed: 10, width: 1280, pageErrors }));
});

afterAll(async () => {
  await dash?.close();
});

const SCHEMES = ['light', 'dark'] as const;

/** axe and the SVG texts at 1280 and 1920 px in both schemes, with a screenshot of each */
async function checkBothThemes(view: string, ready: () => Promise<void>): Promise<void> {
  for (const scheme of SCHEMES) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1280, 1920]) {
      await page.setViewportSize({ width, height: width === 1280 ? 900 : 1080 });
      await ready();
      const where = `${view}, ${scheme}, ${width} px`;
      const contrast = (await seriousViolations(page)).filter((v) => v.startsWith('serious color-contrast '));
      expect.soft(contrast, where).toEqual([]);
      const svg = await svgTextContrast(page, 'main');
      expect.soft(svg.failures, where).toEqual([]);
      expect.soft(svg.checked, where).toBeGreaterThan(5);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({
        path: join(RESULTS, `contrast-${view}-${width}-${scheme}.png`),
        fullPage: true,
      });
    }
  }
}

describe('contrast in the light and the dark theme', () => {
  it('holds on the node view', async () => {
    await page.goto(`${dash.baseUrl}/#/`);
    await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 60_000 });
    await page.locator('[data-testid="pod-row-crashloop"]').waitFor({ timeout: 60_000 });
    await checkBothThemes('node', () => page.locator('[data-testid="pod-row-crashloop"]').waitFor());
    expect(pageErrors).toEqual([]);
  }, 600_000);

  it('holds on a crash-looping pod’s view, lane labels and exit codes included', async () => {
    await page.goto(`${dash.baseUrl}/#/pods/default/crashloop`);
    await page.locator('[data-testid="step-panel"]').waitFor({ timeout: 60_000 });
    // enough runs that the container's lane folds and shows exit codes on its bars
    await page.locator('[data-testid="lane-app"][data-runs]').waitFor({ timeout: 60_000 });
    await checkBothThemes('pod', () => page.locator('[data-testid="lane-app"]').waitFor());
    // the lane labels and the exit codes on the container's bars were among the texts measured
    const labels = await page.locator('[data-testid="timeline"] text.tl-label').allTextContents();
    expect(labels).toContain('worker');
    expect(await page.locator('[data-testid="lane-run"] text').count()).toBeGreaterThan(0);
    expect(pageErrors).toEqual([]);
  }, 600_000);
});
