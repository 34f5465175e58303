/**
 * The dashboard in Debian's Chromium against a real server on the simulated node with the startup
 * examples: the healthy example shows up Running in the pods table, and its page draws a timeline with
 * the worker band and a running container lane. Screenshots go to test-results/ for a human to look at.
 * Needs the built web app (`pnpm test:browser` builds it first).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuiltApp, buildApp } from '@syncscope/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { launchChromium } from '../support/browser.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const results = join(root, 'test-results');

let built: BuiltApp;
let browser: Browser;
let page: Page;
let baseUrl: string;
let dataDir: string;
const pageErrors: string[] = [];

async function healthyPodName(): Promise<string> {
  const manifest = parse(await readFile(join(root, 'examples', 'healthy.yaml'), 'utf8')) as {
    metadata: { name: string };
  };
  return manifest.metadata.name;
}

beforeAll(async () => {
  if (!existsSync(join(root, 'apps', 'web', 'dist', 'index.html'))) {
    throw new Error('apps/web/dist is missing: run `pnpm --filter @syncscope/web build` first');
  }
  await mkdir(results, { recursive: true });
  dataDir = await mkdtemp(join(tmpdir(), 'syncscope-browser-'));
  built = await buildApp({ dataDir, examples: true });
  baseUrl = await built.app.listen({ port: 0, host: '127.0.0.1' });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  page.on('pageerror', (err) => pageErrors.push(err.message));
});

afterAll(async () => {
  await browser?.close();
  await built?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
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
    await page.screenshot({ path: join(results, 'dashboard.png'), fullPage: true });

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
    await page.screenshot({ path: join(results, 'pod.png'), fullPage: true });

    expect(pageErrors).toEqual([]);
  });
});
