/**
 * The node page's first load: the table's rows are asked for before the first row shows and the whole pods
 * list is never asked for (the rows answer the first screen), the apply
 * editor's code (CodeMirror, the largest chunk) is not fetched before the table shows its first rows but
 * still arrives and works after, and the app's code comes compressed and cacheable.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dashboard, errorWatchedPage, startDashboard } from '../support/browser.ts';

let dash: Dashboard;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  dash = await startDashboard({ examples: true });
  const now = new Date(dash.built.clock.now()).toISOString();
  dash.built.engine.addPod({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'first',
      namespace: 'default',
      uid: '00000000-0000-4000-9000-00000000f157',
      creationTimestamp: now,
    },
    spec: { containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'] }] },
  });
  page = await errorWatchedPage(dash, pageErrors);
}, 60_000);

afterAll(async () => {
  await page?.close();
  await dash?.close();
});

describe('first load of the node page', () => {
  it('asks for the rows, not the pods list, and leaves the editor for after the first rows', async () => {
    const encodings: Record<string, string | undefined> = {};
    page.on('response', (res) => {
      if (res.url().includes('/assets/'))
        encodings[new URL(res.url()).pathname] = res.headers()['content-encoding'];
    });
    // what the page had fetched when the first row entered the document, read by a MutationObserver in
    // that same task (a frame-polled read could land after an idle callback on a busy machine)
    await page.addInitScript(() => {
      const w = window as unknown as { firstRowFetched?: string[] };
      new MutationObserver((_, observer) => {
        if (!document.querySelector('[data-testid="pod-row-first"]')) return;
        w.firstRowFetched = performance
          .getEntriesByType('resource')
          .map((e) => new URL(e.name).pathname + new URL(e.name).search);
        observer.disconnect();
      }).observe(document, { childList: true, subtree: true });
    });
    await page.goto(`${dash.baseUrl}/#/`);
    const seen = await page.waitForFunction(
      () => (window as unknown as { firstRowFetched?: string[] }).firstRowFetched ?? null,
      undefined,
      { timeout: 30_000 },
    );
    const fetched = (await seen.jsonValue()) as string[];
    const api = fetched.filter((p) => p.startsWith('/api/'));
    expect(api).toContain('/api/v1/node/rows');
    expect(api).not.toContain('/api/v1/pods');
    expect(fetched.filter((p) => /ManifestEditor|\/yaml-/.test(p))).toEqual([]);

    // the editor still comes, and takes text
    const editor = page.locator('[data-testid="apply-editor"]');
    await editor.waitFor({ timeout: 30_000 });
    await expect.poll(() => editor.textContent(), { timeout: 10_000 }).toMatch(/kind:\s*Pod/);

    // the page at rest has still not asked for the pods list
    const later = await page.evaluate(() =>
      performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname),
    );
    expect(later).not.toContain('/api/v1/pods');

    const scripts = Object.entries(encodings).filter(([p]) => p.endsWith('.js'));
    expect(scripts.length).toBeGreaterThanOrEqual(3); // the boot module, the app, the editor
    for (const [, enc] of scripts) expect(['br', 'gzip']).toContain(enc);
    const app = await page.request.get(`${dash.baseUrl}${scripts[0]?.[0]}`);
    expect(app.headers()['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(pageErrors).toEqual([]);
  }, 90_000);
});
