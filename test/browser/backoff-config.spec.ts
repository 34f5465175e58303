/**
 * The back-off inspector shows the node's own ladder: a server started with a 20 s maximum container
 * back-off (as `--config` gives it) climbs 10s, 20s, 20s, and the inspector says so, not 5m0s.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dashboard, startDashboard } from '../support/browser.ts';

let dash: Dashboard;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  dash = await startDashboard({
    examples: false,
    config: { maxContainerBackOffMs: 20_000, containerBackOffResetMs: 120_000 },
  });
  // a faster node climbs the ladder in seconds
  await fetch(`${dash.baseUrl}/api/v1/sim/speed`, { method: 'PUT', body: JSON.stringify({ speed: 10 }) });
  const res = await fetch(`${dash.baseUrl}/api/v1/namespaces/default/pods`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'capped' },
      spec: { containers: [{ name: 'app', image: 'busybox', command: ['sh', '-c', 'echo boom; exit 1'] }] },
    }),
  });
  expect(res.status).toBe(201);
  page = await dash.browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.on('pageerror', (err) => pageErrors.push(err.message));
});

afterAll(async () => {
  await dash?.close();
});

describe('back-off inspector on a node with its own constants', () => {
  it("shows the node's maximum: 10s, 20s, 20s, next 20s, and its reset rule", async () => {
    await page.goto(`${dash.baseUrl}/#/pods/default/capped`);
    const inspector = page.locator('[data-testid="backoff-inspector"]');
    await inspector.waitFor({ timeout: 60_000 });
    await inspector.locator('[data-testid="backoff-step-3"]').waitFor({ timeout: 90_000 });
    const delays = await inspector
      .locator('[data-testid="backoff-ladder"] [data-delay]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-delay')));
    // the first window is 10s when a sync meets it; on a machine slow enough that none does, the kubelet
    // restarts at once and the next death's window is already 20s: never over the node's 20s either way
    expect(['10s', '20s']).toContain(delays[0]);
    expect(delays.slice(1, 3)).toEqual(['20s', '20s']);
    expect(delays.every((d) => d === '10s' || d === '20s')).toBe(true);
    await expect(inspector.locator('[data-testid="backoff-next"]').textContent()).resolves.toBe('next: 20s');
    await expect(inspector.locator('[data-testid="backoff-rule"]').textContent()).resolves.toBe(
      'Each crash doubles the delay from 10s up to 20s. The delay resets to 10s after the container runs 2 minutes without failing.',
    );
    expect(pageErrors).toEqual([]);
  });
});
