/**
 * The dashboard on a token-guarded server: the page loads, asks for the token once (a wrong one is said to be
 * refused), keeps it for the tab, and from then on the API, the stream and the export work, with the token
 * in no URL the page requests. Under the server's CSP nothing is blocked.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dashboard, RESULTS, startDashboard } from '../support/browser.ts';

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

/** Every URL the page asks for (HTTP and WebSocket), to show the token is in none of them. */
function recordUrls(page: Page): string[] {
  const urls: string[] = [];
  page.on('request', (r) => urls.push(r.url()));
  page.on('websocket', (ws) => urls.push(ws.url()));
  return urls;
}

async function giveToken(page: Page, token: string) {
  await page.locator('[data-testid="token-input"]').fill(token);
  await Promise.all([page.waitForEvent('load'), page.locator('[data-testid="token-submit"]').click()]);
}

describe('dashboard with a token', () => {
  it('asks for the token once, says when it is refused, then works with it nowhere in a URL', async () => {
    const page = await browser.newPage({ acceptDownloads: true });
    const urls = recordUrls(page);
    await page.goto(baseUrl);
    // the page itself is public; the API answers 401 and the form appears
    await page.locator('[data-testid="token-state"][data-state="needed"]').waitFor({ timeout: 30_000 });

    await giveToken(page, 'not-the-right-token');
    await page.locator('[data-testid="token-state"][data-state="refused"]').waitFor({ timeout: 30_000 });

    await giveToken(page, TOKEN);
    await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });
    await page.locator('[data-testid="pod-row-healthy"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-testid="token-form"]').count()).toBe(0);
    expect(await page.evaluate(() => sessionStorage.getItem('syncscope.token'))).toBe(TOKEN);

    // the export goes through fetch with the header and is saved from a Blob
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('[data-testid="export-node"]').click(),
    ]);
    const file = join(RESULTS, 'token-export.ndjson');
    await download.saveAs(file);
    const first = (await readFile(file, 'utf8')).split('\n')[0] ?? '';
    expect(JSON.parse(first)).toMatchObject({ seq: expect.any(Number), type: expect.any(String) });

    // a reload keeps the tab's token: no form again
    await page.reload();
    await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-testid="token-form"]').count()).toBe(0);

    expect(urls.length).toBeGreaterThan(5);
    expect(urls.some((u) => u.startsWith('ws'))).toBe(true);
    for (const u of urls) expect(u).not.toContain(TOKEN);
    expect(page.url()).not.toContain('token');
    await page.close();
  });

  it('a new tab starts without the token: the stream is refused and the form asks', async () => {
    const page = await browser.newPage();
    await page.goto(baseUrl);
    await page.locator('[data-testid="token-state"][data-state="needed"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-testid="connection-state"][data-state="live"]').count()).toBe(0);
    const res = await page.evaluate(async () => (await fetch('/api/v1/trace?since=0&limit=1')).status);
    expect(res).toBe(401);
    await page.close();
  });

  it('the page cannot be framed and no CSP rule blocked anything', async () => {
    const page = await browser.newPage();
    const res = await page.goto(baseUrl);
    const csp = res?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res?.headers()['x-frame-options']).toBe('DENY');
    expect(dash.cspViolations()).toEqual([]);
    await page.close();
  });
});
