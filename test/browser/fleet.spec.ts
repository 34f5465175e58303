/**
 * A log of several kubelets (packages/core/src/pod-state/testdata/fleet.log: the importer's real sample logs
 * under their own hosts, two bare klog processes among them) opened in the dashboard:
 * - a kubelet whose lines carry no host is named by the node one of its own lines names (its API user
 *   `system:node:<name>`), its process kept beside it; the others by their hosts;
 * - the node picker and the nodes page give each node its pods, its pods in trouble and its time range;
 * - one list of the pods in trouble across every node: searching `CrashLoop` finds the crash-looping pod of
 *   `master-1`, the kind filter finds the pod stuck terminating; "last seen" counts back from the log's end;
 * - a row opens the pod on its own node, with its back-off inspector; no page says "live" or "healthy".
 * Screenshots of the nodes page and the pod at 1280 and 1920 px, light and dark, into $SHOTS.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dashboard, RESULTS, ROOT, startDashboard } from '../support/browser.ts';

const LOG = join(ROOT, 'packages/core/src/pod-state/testdata/fleet.log');
const SHOTS = process.env.SHOTS ?? join(RESULTS, 'fleet');
const CVO = 'openshift-cluster-version/bootstrap-cluster-version-operator-localhost.localdomain';
const UNSTATED = [/\blive\b/i, /\bruntime ready\b/i, /\bhealthy\b/i, /\b0 ms\b/];

let dash: Dashboard;
const problems: string[] = [];
const text = readFileSync(LOG, 'utf8');
/** the node name a line of the pid 3312 kubelet gives, read from the text */
const named3312 = /User "system:node:([^"]+)"/.exec(
  text.split('\n').find((l) => / 3312 /.test(l) && l.includes('system:node:')) ?? '',
)?.[1];

beforeAll(async () => {
  dash = await startDashboard({ examples: false });
  mkdirSync(SHOTS, { recursive: true });
});

afterAll(async () => {
  await dash?.close();
});

async function openLog(width = 1280): Promise<Page> {
  const page = await dash.browser.newPage({ viewport: { width, height: 1000 }, timezoneId: 'UTC' });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  await page.goto(`${dash.baseUrl}/#/`);
  await page.locator('[data-testid="open-log"]').setInputFiles({
    name: 'fleet.log',
    mimeType: 'text/plain',
    buffer: Buffer.from(text),
  });
  await page.locator('[data-testid="log-banner"]').waitFor({ timeout: 30_000 });
  return page;
}

/** Records, at every DOM commit that shows a pod's page, the node the picker had open then. */
async function watchPodNodes(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { podNodes: string[] }).podNodes = seen;
    new MutationObserver(() => {
      if (!document.querySelector('[data-testid="pod-title"]')) return;
      const node =
        (document.querySelector('[data-testid="log-node"]') as HTMLSelectElement | null)?.value ?? '';
      if (seen.at(-1) !== node) seen.push(node);
    }).observe(document.body, { childList: true, subtree: true, characterData: true });
  });
}

async function mainText(page: Page): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: the words as shown
  return page.evaluate(() => (document.querySelector('main') as HTMLElement).innerText);
}

describe('a log of several kubelets', () => {
  it('names each node, counts its pods and trouble, and lists the pods in trouble across all of them', async () => {
    expect(named3312).toBe('e2e-test-ramosalex-windows-node-group-tz6r');
    const page = await openLog();
    // the picker: each node by its name, with its pods, its pods in trouble and its time range
    const options = await page.locator('[data-testid="log-node"] option').allTextContents();
    expect(options).toHaveLength(7);
    expect(options).toContainEqual(
      expect.stringMatching(
        new RegExp(`^${named3312} \\(pid 3312\\) · 0 pods · 0 in trouble · 20:41:01–21:11:31$`),
      ),
    );
    expect(options).toContainEqual(
      expect.stringMatching(/^master-1 · 8 pods · 3 in trouble · 04:58:17–05:00:14$/),
    );
    await page.locator('[data-testid="log-fleet"]').click();
    await page.locator('[data-testid="fleet-nodes"]').waitFor();
    const row = page.locator('[data-testid="fleet-node-pid 3312"]');
    expect(await row.locator('[data-named-by]').getAttribute('data-named-by')).toBe('line');
    expect(await row.locator('td').first().textContent()).toBe(`${named3312} (pid 3312)`);
    expect(
      await page.locator('[data-testid="fleet-node-master-0"] [data-named-by]').getAttribute('data-named-by'),
    ).toBe('host');
    const troubleCount = await page.locator('[data-testid="trouble-count"]').textContent();
    const total = Number(/of (\d+) pods/.exec(troubleCount ?? '')?.[1]);
    expect(total).toBeGreaterThanOrEqual(6);
    // search: the crash-looping pod of master-1, and not its twin on master-0 (restarted by its log's end)
    await page.locator('[data-testid="trouble-search"]').fill('CrashLoop');
    const rows = page.locator('tr[data-testid^="trouble-row-"]');
    expect(await rows.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-testid')))).toEqual([
      `trouble-row-master-1/${CVO}`,
    ]);
    expect(await rows.first().locator('td.status').textContent()).toBe('CrashLoopBackOff');
    // last seen is counted from the log's end, not the wall clock
    expect(await rows.first().locator('td').last().textContent()).toMatch(
      /before the log's end$|^at the log's end$/,
    );
    // the kind filter: the pod stuck terminating on the second Windows node
    await page.locator('[data-testid="trouble-search"]').fill('');
    await page.locator('[data-testid="trouble-kind"]').selectOption('terminating');
    expect(await rows.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-testid')))).toEqual([
      'trouble-row-pid 4601/gcp-filestore-csi-driver/gcp-filestore-csi-node-m4wq7',
    ]);
    expect(await rows.first().locator('td').first().textContent()).toBe(
      'e2e-test-ramosalex-windows-node-group-x9k2 (pid 4601)',
    );
    for (const re of UNSTATED)
      expect(re.exec(await mainText(page))?.[0], `nodes page: ${re}`).toBeUndefined();
    await page.close();
    expect(problems).toEqual([]);
  }, 120_000);

  it('a pod in trouble opens on its own node, with its inspector; screenshots', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      for (const width of [1280, 1920]) {
        const page = await openLog(width);
        await page.emulateMedia({ colorScheme: scheme });
        await page.locator('[data-testid="log-fleet"]').click();
        await page.locator('[data-testid="trouble-table"]').waitFor();
        await page.screenshot({ path: join(SHOTS, `nodes-${width}-${scheme}.png`), fullPage: true });
        await watchPodNodes(page);
        await page.locator(`tr[data-testid="trouble-row-master-1/${CVO}"]`).click();
        await page.locator('[data-testid="pod-title"]', { hasText: CVO }).waitFor();
        expect(await page.locator('[data-testid="log-node"]').inputValue()).toBe('master-1');
        // the pod's page never showed, even for one commit, with another node open (master-0 has a pod of
        // the same name)
        expect(await page.evaluate(() => (window as unknown as { podNodes: string[] }).podNodes)).toEqual([
          'master-1',
        ]);
        await page.locator('[data-testid="backoff-inspector"]').waitFor();
        expect(await page.locator('[data-testid="pod-status"]').textContent()).toBe('CrashLoopBackOff');
        await page.screenshot({ path: join(SHOTS, `trouble-pod-${width}-${scheme}.png`), fullPage: true });
        await page.close();
      }
    }
    expect(problems).toEqual([]);
  }, 240_000);
});
