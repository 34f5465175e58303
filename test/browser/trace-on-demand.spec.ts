/**
 * The trace is read only where it is shown: the node page, live on its rows and aggregates, opens no trace
 * stream; a pod's page opens one for that pod alone, and what arrives on it is that pod's events and the
 * node-wide ones. Leaving the pod page closes it.
 */
import type { Page, WebSocket } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dashboard, startDashboard } from '../support/browser.ts';
import { until } from '../support/until.ts';

let dash: Dashboard;
const pageErrors: string[] = [];

beforeAll(async () => {
  dash = await startDashboard({ examples: true });
});

afterAll(async () => {
  await dash?.close();
});

/** Every WebSocket the page opens, with the events received on the trace stream. */
function watchSockets(page: Page) {
  const sockets: { url: string; ws: WebSocket; events: { type: string; podUID?: string }[] }[] = [];
  page.on('websocket', (ws) => {
    const entry = { url: ws.url(), ws, events: [] as { type: string; podUID?: string }[] };
    sockets.push(entry);
    ws.on('framereceived', (f) => {
      if (!entry.url.includes('/api/v1/trace/stream') || typeof f.payload !== 'string') return;
      const msg = JSON.parse(f.payload) as { kind: string; events?: { type: string; podUID?: string }[] };
      if (msg.kind === 'events') entry.events.push(...(msg.events ?? []));
    });
  });
  return sockets;
}

const isTrace = (s: { url: string }) => s.url.includes('/api/v1/trace/stream');

describe('the trace stream, opened by the page that shows the trace', () => {
  it('node page: live on rows and aggregates, no trace stream', async () => {
    const page = await dash.browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (err) => pageErrors.push(err.message));
    const sockets = watchSockets(page);
    await page.goto(dash.baseUrl);
    await page.locator('[data-testid="pod-row-crashloop"]').waitFor({ timeout: 60_000 });
    await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });
    await until('the rows and aggregates streams open', () =>
      ['/api/v1/node/rows/stream', '/api/v1/node/aggregates/stream'].every((p) =>
        sockets.some((s) => s.url.includes(p)),
      ),
    );
    expect(sockets.filter(isTrace)).toEqual([]);
    await page.close();
  });

  it('pod page: one trace stream for that pod, its events only; closed when the page is left', async () => {
    const pods = (await (await fetch(`${dash.baseUrl}/api/v1/pods`)).json()) as {
      items: { metadata: { name: string; uid: string } }[];
    };
    const uid = pods.items.find((p) => p.metadata.name === 'crashloop')?.metadata.uid;
    expect(uid).toBeTruthy();
    const page = await dash.browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (err) => pageErrors.push(err.message));
    const sockets = watchSockets(page);
    await page.goto(`${dash.baseUrl}/#/pods/default/crashloop`);
    await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 60_000 });
    await page.locator('[data-testid="timeline"]').waitFor({ timeout: 60_000 });
    const traces = sockets.filter(isTrace);
    expect(traces.length).toBe(1);
    const trace = traces[0];
    if (!trace) throw new Error('no trace stream');
    expect(trace.url).toContain(`podUID=${uid}`);
    await until('the pod’s events arrive on the stream', () => trace.events.length > 0);
    for (const ev of trace.events)
      expect(ev.podUID === uid || ev.type === 'server.start' || ev.type === 'sim.fault').toBe(true);

    const closed = new Promise<void>((resolve) => trace.ws.on('close', () => resolve()));
    await page.evaluate(() => {
      window.location.hash = '#/';
    });
    await page.locator('[data-testid="pod-row-crashloop"]').waitFor({ timeout: 60_000 });
    await closed;
    expect(trace.ws.isClosed()).toBe(true);
    await page.close();
    expect(pageErrors).toEqual([]);
  });
});
