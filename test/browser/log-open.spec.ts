/**
 * Opening a kubelet log without a mouse, and from the trace panel. "Open kubelet log…" is reached with Tab;
 * Enter opens the browser's file chooser and the chosen log opens as a replay; Space does the same, and a file
 * that is no log says so in an alert whose "dismiss" is reached with Tab and pressed with Enter. "Replay a file"
 * given a real kubelet log (journald text, and klog's JSON lines) opens it as a log, not as a broken trace.
 * Screenshots of the opener at 1280 and 1920 px, light and dark, go to test-results/.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importKubeletLog } from '@syncscope/core/kubelet-log';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dashboard, RESULTS, ROOT, startDashboard } from '../support/browser.ts';

const TESTDATA = join(ROOT, 'packages/core/src/kubelet-log/testdata');
const JOURNALD = '10-v1.16-1.18-journald-glog-v2-sandbox-create-failure.log';
const KLOG_JSON = '07-v1.3x-talos-json-v0-etcd-overload-volume-stuck.log';
/** the banner's count of the lines the importer keeps raw, as core reads the file */
const rawCount = (name: string) =>
  `${importKubeletLog(readFileSync(join(TESTDATA, name), 'utf8')).summary.raw} kept raw`;
const logFile = (name: string, as = name) => ({
  name: as,
  mimeType: 'text/plain',
  buffer: readFileSync(join(TESTDATA, name)),
});

let dash: Dashboard;
const problems: string[] = [];

beforeAll(async () => {
  dash = await startDashboard({ examples: false });
});

afterAll(async () => {
  await dash?.close();
});

async function openNode(width = 1280): Promise<Page> {
  const page = await dash.browser.newPage({ viewport: { width, height: 900 } });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  // file choosers are caught from the page's start (catching them is switched on in the browser by the first
  // listener, asynchronously: a chooser opened before that is not seen)
  page.on('filechooser', () => undefined);
  await page.goto(`${dash.baseUrl}/#/`);
  await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 60_000 });
  return page;
}

const focused = (page: Page) =>
  page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? '');

/** Presses Tab until the element with `testid` has the focus; how many presses it took (fails after 15). */
async function tabTo(page: Page, testid: string): Promise<number> {
  for (let n = 1; n <= 15; n++) {
    await page.keyboard.press('Tab');
    if ((await focused(page)) === testid) return n;
  }
  throw new Error(`Tab never reached ${testid}`);
}

describe('the log opener by keyboard', () => {
  it('is reached with Tab, opens the file chooser with Enter or Space, and its alert is dismissed by keyboard', async () => {
    const page = await openNode();
    expect(await tabTo(page, 'open-log-button')).toBeLessThanOrEqual(5);

    const byEnter = page.waitForEvent('filechooser');
    await page.keyboard.press('Enter');
    await (await byEnter).setFiles(logFile(JOURNALD));
    const banner = page.locator('[data-testid="log-banner"]');
    await banner.waitFor({ timeout: 60_000 });
    expect(await banner.textContent()).toContain(JOURNALD);
    expect(await page.locator('[data-testid="log-raw-count"]').textContent()).toBe(rawCount(JOURNALD));
    // on to the next log, from the top of the page again
    expect(await tabTo(page, 'open-log-button')).toBeLessThanOrEqual(10);
    const bySpace = page.waitForEvent('filechooser');
    await page.keyboard.press('Space');
    await (await bySpace).setFiles({
      name: 'notes.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('hello\n'),
    });
    const alert = page.locator('[data-testid="log-error"][role="alert"]');
    await alert.waitFor({ timeout: 60_000 });
    expect(await alert.textContent()).toContain('notes.txt: no kubelet lines in this file');
    await tabTo(page, 'log-error-dismiss');
    await page.keyboard.press('Enter');
    await alert.waitFor({ state: 'detached' });
    // the log opened before is still the one shown
    expect(await banner.textContent()).toContain(JOURNALD);

    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const width of [1280, 1920]) {
        await page.setViewportSize({ width, height: 900 });
        await page.locator('[data-testid="open-log-button"]').focus();
        await page.screenshot({ path: join(RESULTS, `log-opener-${width}-${scheme}.png`) });
      }
    }
    await page.close();
    expect(problems).toEqual([]);
  }, 240_000);
});

describe('replay a file', () => {
  it.each([JOURNALD, KLOG_JSON])(
    'opens the kubelet log %s as a log',
    async (name) => {
      const page = await openNode();
      await page.locator('[data-testid="import-file"]').setInputFiles(logFile(name, 'kubelet.log'));
      const banner = page.locator('[data-testid="log-banner"]');
      await banner.waitFor({ timeout: 60_000 });
      expect(await banner.textContent()).toContain('kubelet.log');
      expect(await page.locator('[data-testid="import-error"]').count()).toBe(0);
      // the log's own counts: its lines no rule reads, kept raw
      expect(await page.locator('[data-testid="log-raw-count"]').textContent()).toBe(rawCount(name));
      await page.close();
      expect(problems).toEqual([]);
    },
    120_000,
  );
});
