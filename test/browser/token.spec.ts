/**
 * A server with a token: the dashboard opened once with `?token=` keeps it for the tab, its API calls and its
 * WebSocket carry it (the stream goes live, the pods list loads, an apply succeeds), and the token leaves the
 * address bar. Without it the same page gets 401s and stays disconnected.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BuiltApp, buildApp } from '@syncscope/server';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.ts';

const TOKEN = 'browser-test-token-1234';
let built: BuiltApp;
let browser: Browser;
let baseUrl: string;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'syncscope-token-'));
  built = await buildApp({ dataDir, examples: true, token: TOKEN });
  baseUrl = await built.app.listen({ port: 0, host: '127.0.0.1' });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await built?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
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
