/**
 * The pod page's "Run a command" panel on the simulated node: opened and run from the keyboard, a plain line
 * runs split on spaces (the pod's hostname comes back), a line with shell syntax runs through sh -c (its
 * stderr shown apart, its exit code), a command the container does not have shows the runtime's words, a
 * long command is cancelled with Escape, and a pod whose container is not running shows the server's
 * refusal. The open panel passes axe in both colour schemes; screenshots at 1280 and 1920 px.
 */
import { mkdir } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../support/axe.ts';
import { type Dashboard, errorWatchedPage, startDashboard } from '../support/browser.ts';

const SHOTS = '/tmp/shots/exec';
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

/** Types `line` into the command field, presses Enter, and waits for that run (the panel's `nth`) to end. */
async function runLine(line: string, nth: number) {
  await page.getByLabel('command', { exact: true }).fill(line);
  await page.keyboard.press('Enter');
  const run = page.locator(`[data-testid="exec-run"][data-run="${nth}"]`);
  await page.locator(`[data-run="${nth}"]:not([data-state="running"])`).waitFor({ timeout: 20_000 });
  return run;
}

async function openPanel(pod: string) {
  await page.goto(`${dash.baseUrl}/#/pods/default/${pod}`);
  const summary = page.locator('[data-testid="exec-panel"] > summary');
  await summary.waitFor({ timeout: 30_000 });
  await summary.focus();
  await page.keyboard.press('Enter');
  await page.getByLabel('command', { exact: true }).focus();
}

describe('running a command in a pod', () => {
  it('runs commands once and shows their output, stderr apart, and exit code', async () => {
    page = await errorWatchedPage(dash, pageErrors);
    await page.goto(`${dash.baseUrl}/#/pods/default/healthy`);
    await page.locator('[data-testid="pod-status"]', { hasText: 'Running' }).waitFor({ timeout: 30_000 });
    await openPanel('healthy');
    expect(await page.getByLabel('container', { exact: true }).inputValue()).toBe('app');

    await page.getByLabel('command', { exact: true }).fill('cat /etc/hostname');
    expect(await page.getByTestId('exec-how').textContent()).toContain('["cat","/etc/hostname"]');
    const cat = await runLine('cat /etc/hostname', 1);
    expect(await cat.getByTestId('exec-stdout').textContent()).toBe('healthy\n');
    expect(await cat.getByTestId('exec-exit').textContent()).toBe('exit code 0');
    expect(await cat.getByTestId('exec-stderr').count()).toBe(0);

    const shell = await runLine("sh -c 'echo oops >&2; exit 3'", 2);
    expect(await page.getByTestId('exec-how').textContent()).toContain('sh -c');
    expect(await shell.getByTestId('exec-stderr').textContent()).toBe('oops\n');
    expect(await shell.getByTestId('exec-stdout').count()).toBe(0);
    expect(await shell.getByTestId('exec-exit').textContent()).toBe('exit code 3');

    const missing = await runLine('no-such-command --now', 3);
    const why = await missing.getByTestId('exec-error').textContent();
    expect(why).toMatch(/^Internal error occurred: error executing command in container: .*no-such-command/);

    // a command that would run for minutes: Escape closes its socket
    await page.getByLabel('command', { exact: true }).fill('sleep 600');
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="exec-run"][data-state="running"]').waitFor();
    await page.keyboard.press('Escape');
    await page.locator('[data-testid="exec-run"][data-state="cancelled"]').waitFor();
    const heads = await page.locator('[data-testid="exec-run"] .exec-run-head').allTextContents();
    expect(heads).toHaveLength(4);

    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await seriousViolations(page, '[data-testid="exec-panel"]')).toEqual([]);
      for (const width of [1280, 1920]) {
        await page.setViewportSize({ width, height: 1000 });
        await page.getByTestId('exec-panel').scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${SHOTS}/exec-${width}-${scheme}.png` });
      }
    }
  });

  it('shows the server’s refusal when the container is not running', async () => {
    await page.emulateMedia({ colorScheme: 'light' });
    await openPanel('missing-image');
    const refused = await runLine('true', 1);
    expect(await refused.getByTestId('exec-error').textContent()).toMatch(/container not found/);
  });
});
