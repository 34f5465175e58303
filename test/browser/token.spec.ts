import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dashboard, startDashboard } from '../support/browser.ts';

const TOKEN = 'browser-test-token-1234';
let dash: Dashboard;
let browser: Browser;
let baseUrl: string;

beforeAll(async () => {
  dash = await startDashboard({ examples: true, token: TOKEN });
  ({ browser, baseUrl } = dash);
});

afterAll(async () => {
  await dash?.close();
});

describe('dashboard with a token', () => {
  it('uses the token from ?token= for the API and the stream', async () => {
    const page = await browser.newPage();
    await page.goto(`${baseUrl}/?token=${TOKEN}`);
    await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });
    await page.locator('[data-testid="pod-row-healthy"]').waitFor({ timeout: 30_000 });
    expect(page.url()).not.toContain('token=');
    await page.close();
  });

  it('without the token the stream is refused', async () => {
    const page = await browser.newPage();
    await page.goto(baseUrl);
    // the handshake gets 401, so the stream never goes live and keeps retrying
    await page
      .locator('[data-testid="connection-state"][data-state="reconnecting"]')
      .waitFor({ timeout: 30_000 });
    const res = await page.evaluate(async () => (await fetch('/api/v1/trace?since=0&limit=1')).status);
    expect(res).toBe(401);
    await page.close();
  });
});
