/**
 * Each pod's differing steps where a kubelet log's pods are listed: sample 03 of the importer's test data,
 * with its one back-off line (line 637) edited to say 20s where the kubelet's rule gives 10s, opened as a
 * replay. The node's pods table shows 1 for the crash-looping pod whose line was edited and 0 for every
 * other pod; so do the pods in trouble (`#/nodes`) of the same log cut while that pod is in its back-off
 * (whole, it has restarted by the log's end and is in no trouble), and the node's row sums them. The log as
 * the kubelet wrote it shows 0 everywhere. Screenshots of both views at 1280 and 1920 px, light and dark,
 * into $SHOTS.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dashboard, RESULTS, ROOT, startDashboard } from '../support/browser.ts';

const NAME = '03-v1.31-openshift-journald-v2-static-pods-probes-crashloop.log';
const TEXT = readFileSync(join(ROOT, 'packages/core/src/kubelet-log/testdata', NAME), 'utf8');
const EDITED = TEXT.replace('back-off 10s restarting', 'back-off 20s restarting');
/** the edited log up to the line before the pod's restart (line 663) */
const CUT = `${EDITED.split('\n').slice(0, 650).join('\n')}\n`;
const POD = 'openshift-cluster-version/bootstrap-cluster-version-operator-localhost.localdomain';
const SHOTS = process.env.SHOTS ?? join(RESULTS, 'explain-counts');

let dash: Dashboard;
const problems: string[] = [];

beforeAll(async () => {
  dash = await startDashboard({ examples: false });
  mkdirSync(SHOTS, { recursive: true });
});
afterAll(async () => {
  await dash?.close();
});

async function openLog(text: string, width = 1280): Promise<Page> {
  const page = await dash.browser.newPage({ viewport: { width, height: 1000 }, timezoneId: 'UTC' });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  await page.goto(`${dash.baseUrl}/#/`);
  await page.locator('[data-testid="open-log"]').setInputFiles({
    name: 'kubelet.log',
    mimeType: 'text/plain',
    buffer: Buffer.from(text),
  });
  await page.locator('[data-testid="log-banner"]').waitFor({ timeout: 60_000 });
  await page.locator('[data-testid="pods-table"] [data-testid="cell-differs"]').first().waitFor();
  return page;
}

/** Each listed pod's shown count, by the row's test id. */
async function shownCounts(page: Page, rows: string): Promise<Record<string, string>> {
  return page
    .locator(rows)
    .evaluateAll((rs) =>
      Object.fromEntries(
        rs.map((r) => [
          r.getAttribute('data-testid') ?? '',
          r.querySelector('[data-testid="cell-differs"]')?.textContent ?? '(none)',
        ]),
      ),
    );
}

/** `counts` with `one` at 1 and every other at 0. */
function oneAndZeros(counts: Record<string, string>, one: string | null): void {
  const names = Object.keys(counts);
  expect(names.length).toBeGreaterThan(1);
  if (one !== null) expect(names).toContain(one);
  expect(counts).toEqual(Object.fromEntries(names.map((n) => [n, n === one ? '1' : '0'])));
}

describe("each pod's differing steps in a kubelet log's pod lists", () => {
  it('the pod with the edited back-off line shows 1, every other pod 0: node pods and pods in trouble', async () => {
    const name = POD.slice(POD.indexOf('/') + 1);
    let page: Page | undefined;
    for (const text of [EDITED, CUT]) {
      await page?.close();
      page = await openLog(text);
      oneAndZeros(await shownCounts(page, 'tr[data-testid^="pod-row-"]'), `pod-row-${name}`);
      const cell = page.locator(`tr[data-testid="pod-row-${name}"] [data-testid="cell-differs"]`);
      expect(await cell.getAttribute('title')).toMatch(/^1 of \d+ explained steps differ/);
    }
    if (!page) return;
    await page.locator('[data-testid="log-fleet"]').click();
    await page.locator('[data-testid="trouble-table"]').waitFor();
    const trouble = await shownCounts(page, 'tr[data-testid^="trouble-row-"]');
    const key = Object.keys(trouble).find((k) => k.endsWith(`/${POD}`)) ?? '';
    oneAndZeros(trouble, key);
    expect(await page.locator('[data-testid="node-differs"]').allTextContents()).toEqual(['1']);
    await page.close();
    expect(problems).toEqual([]);
  }, 120_000);

  it('the log as the kubelet wrote it: 0 for every pod; screenshots', async () => {
    const page = await openLog(TEXT);
    oneAndZeros(await shownCounts(page, 'tr[data-testid^="pod-row-"]'), null);
    await page.close();
    for (const scheme of ['light', 'dark'] as const)
      for (const width of [1280, 1920]) {
        const p = await openLog(CUT, width);
        await p.emulateMedia({ colorScheme: scheme });
        await p.screenshot({ path: join(SHOTS, `pods-${width}-${scheme}.png`), fullPage: true });
        await p.locator('[data-testid="log-fleet"]').click();
        await p.locator('[data-testid="trouble-table"]').waitFor();
        await p.screenshot({ path: join(SHOTS, `nodes-${width}-${scheme}.png`), fullPage: true });
        await p.close();
      }
    expect(problems).toEqual([]);
  }, 180_000);
});
