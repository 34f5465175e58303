/**
 * A pod page's first paint: opened fresh on a crash-looping pod, its header (name, STATUS, READY,
 * RESTARTS) is painted from the server's row of the pod while the pod itself, its trace and the trace
 * stream are all held back; once they are let through the pod's own summary takes the header's place and
 * the timeline is drawn. The page never asks for the node's whole pods list or all of its rows; it asks for
 * the pod's row once, beside the app's own code (not after it arrives), and leaves the log opener's code for
 * after the page has settled.
 */
import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dashboard, errorWatchedPage, startDashboard } from '../support/browser.ts';
import { until } from '../support/until.ts';

let dash: Dashboard;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  dash = await startDashboard({ examples: true });
  page = await errorWatchedPage(dash, pageErrors);
}, 60_000);

afterAll(async () => {
  await page?.close();
  await dash?.close();
});

interface WireRow {
  words: string[];
  rows: unknown[];
}

describe('a pod page on a fresh load', () => {
  it('asks for the pod’s row beside the app’s code, not after it', async () => {
    const early = await dash.browser.newPage({ viewport: { width: 1280, height: 860 } });
    early.on('pageerror', (e) => pageErrors.push(e.message));
    const asked: string[] = [];
    early.on('request', (r) => asked.push(new URL(r.url()).pathname + new URL(r.url()).search));
    const held: Route[] = [];
    await early.route(/\/assets\/root-[^/]*\.js$/, (route) => void held.push(route));
    await early.goto(`${dash.baseUrl}/#/pods/default/crashloop`);
    await until('the app’s chunk to be asked for', () => held.length > 0);
    // the app's code is held, and the row has been asked for all the same
    await until('the pod’s row to be asked for', () =>
      asked.some((u) => u.startsWith('/api/v1/node/rows?namespace=default&name=crashloop')),
    );
    expect(await early.getByTestId('pod-title').count()).toBe(0);

    await early.route(/\/assets\/root-[^/]*\.js$/, (route) => route.continue());
    for (const r of held.splice(0)) await r.continue();
    await expect
      .poll(() => early.getByTestId('pod-title').first().textContent(), { timeout: 30_000 })
      .toBe('default/crashloop');
    expect(
      asked.filter((u) => u.startsWith('/api/v1/node/rows?namespace=default&name=crashloop')),
    ).toHaveLength(1);
    await early.close();
    expect(pageErrors).toEqual([]);
  }, 90_000);

  it('paints the header from the row before the pod, its trace or its stream arrive', async () => {
    // the example crash-looper has restarted, so its row says so
    await until('the crashloop pod to have restarted', async () => {
      const res = await fetch(`${dash.baseUrl}/api/v1/node/rows?namespace=default&name=crashloop`);
      const page = (await res.json()) as WireRow;
      if (page.rows.length !== 1) return false;
      const pods = (await (await fetch(`${dash.baseUrl}/api/v1/pods`)).json()) as {
        items: { metadata: { name: string }; status?: { containerStatuses?: { restartCount: number }[] } }[];
      };
      const pod = pods.items.find((p) => p.metadata.name === 'crashloop');
      return (pod?.status?.containerStatuses?.[0]?.restartCount ?? 0) > 0;
    });

    const asked: string[] = [];
    page.on('request', (r) => asked.push(new URL(r.url()).pathname + new URL(r.url()).search));
    const held: Route[] = [];
    const hold = (route: Route) => void held.push(route);
    await page.route(/\/api\/v1\/namespaces\/[^/]+\/pods\//, hold);
    await page.route(/\/api\/v1\/trace\?/, hold);
    // a stream that opens and never says anything
    await page.routeWebSocket(/\/api\/v1\/trace\/stream/, () => undefined);

    await page.goto(`${dash.baseUrl}/#/pods/default/crashloop`);
    await page.locator('[data-testid="pod-row-summary"]').waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByTestId('pod-title').textContent()).toBe('default/crashloop');
    const status = await page.getByTestId('pod-status').textContent();
    expect(['CrashLoopBackOff', 'Error', 'Running', 'Completed']).toContain(status);
    expect(Number((await page.getByTestId('pod-restarts').textContent())?.split(' ')[0])).toBeGreaterThan(0);
    // READY as the row has it ("—" while the trace has not said whether the container is ready)
    expect(await page.getByTestId('pod-ready').textContent()).toMatch(/^(\d+\/1|—)$/);
    // nothing of the pod itself has come: its requests are still held
    expect(held.length).toBeGreaterThan(0);
    // nor has the log opener's code, which waits for the page to settle
    expect(asked.filter((u) => /\/assets\/LogOpener-/.test(u))).toEqual([]);
    expect(await page.locator('[data-testid="timeline"]').count()).toBe(0);
    expect(await page.getByTestId('pod-phase').count()).toBe(0);

    // let them through: what was held, and whatever comes after
    await page.route(/\/api\/v1\/(namespaces\/[^/]+\/pods\/|trace\?)/, (route) => route.continue());
    for (const r of held.splice(0)) await r.continue();
    await page.getByTestId('pod-phase').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('pod-row-summary').count()).toBe(0);
    expect(await page.getByTestId('pod-title').textContent()).toBe('default/crashloop');
    await page.locator('[data-testid="timeline"] svg').first().waitFor({ timeout: 30_000 });

    // one pod's worth, never the node's whole list or every row; the pod's row asked for once
    expect(asked.filter((u) => u === '/api/v1/pods' || u === '/api/v1/node/rows')).toEqual([]);
    expect(
      asked.filter((u) => u.startsWith('/api/v1/node/rows?namespace=default&name=crashloop')),
    ).toHaveLength(1);

    // on a page whose stream reaches the server, the pod's summary keeps counting: the stream's status
    // updates patch the pod (a faster node restarts the crash-looper sooner)
    const live = await dash.browser.newPage({ viewport: { width: 1280, height: 860 } });
    live.on('pageerror', (e) => pageErrors.push(e.message));
    await fetch(`${dash.baseUrl}/api/v1/sim/speed`, { method: 'PUT', body: JSON.stringify({ speed: 10 }) });
    await live.goto(`${dash.baseUrl}/#/pods/default/crashloop`);
    await live.getByTestId('pod-phase').waitFor({ timeout: 30_000 });
    await live.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });
    const restarts = async () =>
      Number((await live.getByTestId('pod-restarts').textContent())?.split(' ')[0]);
    const opened = await restarts();
    await expect.poll(restarts, { timeout: 90_000, interval: 250 }).toBeGreaterThan(opened);
    await live.close();
    expect(pageErrors).toEqual([]);
  });
});
