import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type Dashboard, RESULTS, ROOT, startDashboard } from '../support/browser.ts';

let dash: Dashboard;
let page: Page;
let baseUrl: string;
const pageErrors: string[] = [];

async function healthyPodName(): Promise<string> {
  const manifest = parse(await readFile(join(ROOT, 'examples', 'healthy.yaml'), 'utf8')) as {
    metadata: { name: string };
  };
  return manifest.metadata.name;
}

beforeAll(async () => {
  dash = await startDashboard({ examples: true });
  baseUrl = dash.baseUrl;
  page = await dash.browser.newPage({ viewport: { width: 1280, height: 860 } });
  page.on('pageerror', (err) => pageErrors.push(err.message));
});

afterAll(async () => {
  await dash?.close();
});

describe('dashboard', () => {
  it('lists the healthy example as Running and opens its timeline', async () => {
    const name = await healthyPodName();
    await page.goto(baseUrl);
    await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });

    const row = page.locator(`[data-testid="pod-row-${name}"]`);
    await row.locator('td.status', { hasText: /^Running$/ }).waitFor({ timeout: 60_000 });
    expect((await row.locator('td').allTextContents()).slice(0, 4)).toEqual([
      'default',
      name,
      '1/1',
      'Running',
    ]);
    await page.screenshot({ path: join(RESULTS, 'dashboard.png'), fullPage: true });

    await row.click();
    await page.waitForURL(`**/#/pods/default/${name}`);
    await expect(page.locator('[data-testid="pod-title"]').textContent()).resolves.toBe(`default/${name}`);
    const timeline = page.locator('[data-testid="timeline"]');
    await timeline.waitFor();
    await timeline.locator('[data-testid="worker-band"] rect.tl-worker-sync').first().waitFor();
    await timeline
      .locator('[data-testid="lane-app"] rect.tl-seg-running')
      .first()
      .waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(RESULTS, 'pod.png'), fullPage: true });

    expect(pageErrors).toEqual([]);
  });
});
