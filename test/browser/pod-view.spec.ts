import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dashboard, RESULTS, startDashboard } from '../support/browser.ts';

let dash: Dashboard;
let page: Page;
let baseUrl: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  dash = await startDashboard({ examples: true });
  baseUrl = dash.baseUrl;
  // a faster node makes the back-off ladder climb in seconds; without the speed control it takes ~45 s
  await fetch(`${baseUrl}/api/v1/sim/speed`, { method: 'PUT', body: JSON.stringify({ speed: 10 }) });
  page = await dash.browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.on('pageerror', (err) => pageErrors.push(err.message));
});

afterAll(async () => {
  await dash?.close();
});

const remaining = () =>
  page.locator('[data-testid="backoff-countdown"]').first().getAttribute('data-remaining-ms').then(Number);

/** Step lines that name a kill's grace, seen by the last keyboard walk. */
let graceLines: string[] = [];

/** Presses → until the last step, returning the worker state at each step (consecutive repeats merged). */
async function workerStatesByKeyboard(): Promise<string[]> {
  await page.keyboard.press('Home');
  const seen: string[] = [];
  graceLines = [];
  for (let i = 0; i < 2_000; i++) {
    const state =
      ((await page.locator('[data-testid="step-worker"]').textContent()) ?? '').split(' ')[0] ?? '';
    if (seen[seen.length - 1] !== state) seen.push(state);
    const line = (await page.locator('[data-testid="step-event"]').textContent()) ?? '';
    if (line.includes('grace')) graceLines.push(line);
    if (await page.locator('[data-testid="step-next"]').isDisabled()) break;
    await page.keyboard.press('ArrowRight');
  }
  return seen;
}

describe('pod view', () => {
  // retried: under suite load the live inspector sometimes misses a back-off window (open; see the ladder)
  it('inspects the crashloop back-off: ladder to 20s, a falling countdown, the last logs', {
    retry: 2,
  }, async () => {
    await page.goto(`${baseUrl}/#/pods/default/crashloop`);
    await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });
    const inspector = page.locator('[data-testid="backoff-inspector"]');
    await inspector.waitFor({ timeout: 60_000 });
    await inspector.locator('[data-testid="backoff-ladder"] [data-delay="20s"]').waitFor({ timeout: 90_000 });
    // the first rung is the first window a sync met, as the engine recorded it: 10s, unless the sync after the
    // second death came later than 10 s (a busy machine at speed 10: one real second), when the kubelet's
    // doBackOff restarts at once and doubles the entry, so the first window met is 20s
    const uid = (await page.locator('.pod-summary dd.mono').last().textContent()) ?? '';
    const trace = (await (await fetch(`${baseUrl}/api/v1/trace?podUID=${uid}&limit=5000`)).json()) as {
      items: { type: string; delayS?: number }[];
    };
    const firstWindow = trace.items.find((e) => e.type === 'backoff')?.delayS;
    expect([10, 20]).toContain(firstWindow);
    expect(await inspector.locator('[data-testid="backoff-step-1"]').getAttribute('data-delay')).toBe(
      `${firstWindow}s`,
    );

    // two readings of the countdown inside one window: the second is smaller
    await page.waitForFunction(
      () =>
        Number(
          document.querySelector('[data-testid="backoff-countdown"]')?.getAttribute('data-remaining-ms'),
        ) > 2_000,
      undefined,
      { timeout: 90_000 },
    );
    const first = await remaining();
    await page.waitForFunction(
      (r) => {
        const v = Number(
          document.querySelector('[data-testid="backoff-countdown"]')?.getAttribute('data-remaining-ms'),
        );
        return v > 0 && v < r;
      },
      first,
      { timeout: 10_000 },
    );
    expect(await remaining()).toBeLessThan(first);
    await inspector.locator('[data-testid="backoff-logs"]', { hasText: 'boom' }).waitFor({ timeout: 30_000 });
    await expect(inspector.textContent()).resolves.toContain(
      'resets to 10s after the container runs 10 minutes',
    );
    await inspector.screenshot({ path: join(RESULTS, 'backoff-inspector.png') });

    // the timeline shows the back-off windows, and a refused start explains itself at its step
    await page.locator('[data-testid="timeline"] rect.tl-backoff').first().waitFor();
    const refused = page
      .locator('[data-testid="events-table"] tr.row-warning', { hasText: 'CrashLoopBackOff' })
      .first();
    await refused.click();
    await expect(page.locator('[data-testid="step-decision"]').textContent()).resolves.toMatch(
      /restartPolicy Always → restart; in back-off (10|20)s until \d\d:\d\d:\d\d → CrashLoopBackOff/,
    );
    expect(page.url()).toMatch(/\?step=\d+$/);
    expect(pageErrors).toEqual([]);
  });

  it('steps through the healthy pod with the keyboard, from create to terminated', async () => {
    await page.goto(`${baseUrl}/#/pods/default/healthy`);
    const timeline = page.locator('[data-testid="timeline"]');
    await timeline
      .locator('[data-testid="lane-app"] rect.tl-seg-running')
      .first()
      .waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(RESULTS, 'pod-timeline.png'), fullPage: true });
    // before its first worker.state the pod has no worker yet (—)
    expect(await workerStatesByKeyboard()).toEqual(['—', 'SyncPod']);

    const res = await fetch(`${baseUrl}/api/v1/namespaces/default/pods/healthy?gracePeriodSeconds=1`, {
      method: 'DELETE',
    });
    expect(res.ok).toBe(true);
    await timeline
      .locator('[data-testid="worker-band"] rect[data-state="TerminatedPod"]')
      .waitFor({ timeout: 60_000 });
    const states = await workerStatesByKeyboard();
    expect(states.slice(0, 4)).toEqual(['—', 'SyncPod', 'TerminatingPod', 'TerminatedPod']);
    // the kill shows its grace: the DELETE (a graceful delete reaches the worker as SyncPodUpdate, as in the
    // kubelet) brings 1 s over the spec's 30 s; StopContainer gets the 2 s minimum
    expect(graceLines).toContainEqual(
      expect.stringContaining('worker update SyncPodUpdate, grace 1s (override)'),
    );
    expect(graceLines).toContainEqual(
      expect.stringMatching(/^CRI StopContainer app \d+ ms, grace 2s \(override\)$/),
    );
    await page.screenshot({ path: join(RESULTS, 'pod-terminated.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
  });
});
