/**
 * The pod view as a user works it, in Chromium against the simulated node (10× speed, the examples
 * applied): step-through by kind and to the next error from the pod's first event, zoom that keeps the
 * selected step or the pointer's time in place, folded container lanes, a finished pod's timeline that
 * stops, cause and effect as flow arrows, and the back-off inspector's words. Screenshots at 1280 and
 * 1920 px go to test-results/. axe-core finds no serious or critical violation on the pod view or the
 * inspector.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../support/axe.ts';
import { type Dashboard, openDashboard, RESULTS } from '../support/browser.ts';

let dash: Dashboard;
let page: Page;
let baseUrl: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  // a faster node makes the back-off ladder climb in seconds
  ({ dash, page, baseUrl } = await openDashboard({ speed: 10, width: 1280, pageErrors }));
});

afterAll(async () => {
  await dash?.close();
});

const stepType = () => page.locator('[data-testid="step-panel"] .step-event .tag').textContent();
const cursorX = async () => Number(await page.locator('[data-testid="timeline-cursor"]').getAttribute('x1'));

/** The pod's page on a page of its own: no test leans on where an earlier one left the page or its filters. */
async function openPod(name: string) {
  await page.close();
  page = await dash.browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.on('pageerror', (err) => pageErrors.push(err.message));
  await page.goto(`${baseUrl}/#/pods/default/${name}`);
  await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });
  await page.locator('[data-testid="step-panel"]').waitFor({ timeout: 30_000 });
}

describe('pod view: step-through', () => {
  it('starts at the pod’s first event, steps by kind and jumps to the next error', async () => {
    await openPod('crashloop');
    // enough runs that its lanes fold
    await page.locator('[data-testid="lane-app"][data-runs]').waitFor({ timeout: 60_000 });
    await page.keyboard.press('Home');
    // the first step is the pod's own (its config ADD), not the server.start recorded before it
    expect(await stepType()).toBe('config.update');
    expect(await page.locator('[data-testid="step-position"]').textContent()).toMatch(/^step 1 \//);

    // only PLEG events: |◀ and → visit nothing else
    for (const k of ['worker', 'sync', 'cri', 'events', 'probes', 'backoff', 'other'])
      await page.locator(`[data-testid="step-filter-${k}"]`).uncheck();
    await page.keyboard.press('Home');
    const seen = new Set<string | null>();
    for (let i = 0; i < 4; i++) {
      seen.add(await stepType());
      await page.keyboard.press('ArrowRight');
    }
    expect([...seen]).toEqual(['pleg.event']);

    // next error: a refused start, a Warning Event or a back-off, whatever the filter
    await page.keyboard.press('Home');
    await page.locator('[data-testid="step-next-error"]').click();
    // the step panel follows the selection on the next render: wait for it to name an error step
    const errorKinds = ['sync.result', 'k8s.event', 'backoff', 'runtime.call'];
    await page
      .waitForFunction(
        (kinds) =>
          kinds.includes(
            document.querySelector('[data-testid="step-panel"] .step-event .tag')?.textContent ?? '',
          ),
        errorKinds,
        { timeout: 5_000 },
      )
      .catch(() => undefined); // the assertion below names what was shown instead
    expect(errorKinds).toContain(await stepType());
    expect(await page.locator('[data-testid="events-table"] tr.row-selected').count()).toBe(1);

    // the folded lane: one lane, a mark per run
    const lane = page.locator('[data-testid="lane-app"]');
    expect(await lane.count()).toBe(1);
    const runs = Number(await lane.getAttribute('data-runs'));
    expect(runs).toBeGreaterThan(3);
    expect(await lane.locator('[data-testid="lane-run"]').count()).toBe(runs);
    await page.screenshot({ path: join(RESULTS, 'pod-steps-1280.png'), fullPage: true });
    for (const k of ['worker', 'sync', 'cri', 'events', 'probes', 'backoff', 'other'])
      await page.locator(`[data-testid="step-filter-${k}"]`).check();
  });

  it('zooms with the keys around the selected step and with the wheel around the pointer', async () => {
    // a finished pod: its whole view holds still (a live pod's grows with each clock tick, which would move
    // the cursor between the reading and the key)
    await openPod('completes');
    await page.locator('[data-testid="timeline"][data-finished="true"]').waitFor({ timeout: 60_000 });
    const rows = page.locator('[data-testid="events-table"] tbody tr');
    const mid = rows.nth(Math.floor((await rows.count()) / 2));
    await mid.click();
    const before = await cursorX();
    await page.keyboard.press('+');
    await page.keyboard.press('+');
    await page.locator('[data-testid="timeline"][data-view="zoomed"]').waitFor();
    expect(Math.abs((await cursorX()) - before)).toBeLessThan(1.5);

    // the pointer on the cursor line: the wheel zooms without moving the time under it
    const box = await page.locator('[data-testid="timeline"] svg').first().boundingBox();
    if (!box) throw new Error('no timeline');
    const at = await cursorX();
    await page.mouse.move(box.x + at, box.y + 60);
    await page.mouse.wheel(0, -200);
    await page.mouse.wheel(0, -200);
    expect(Math.abs((await cursorX()) - at)).toBeLessThan(1.5);
    await page.locator('[data-testid="timeline-fit"]').click();
  });

  it('ends a finished pod’s timeline where it finished', async () => {
    await openPod('completes');
    const timeline = page.locator('[data-testid="timeline"][data-finished="true"]');
    await timeline.waitFor({ timeout: 60_000 });
    const end = Number(await timeline.getAttribute('data-end'));
    // the engine's clock runs well past the end (a live edge would follow it) …
    const engineNow = async () => (await (await fetch(`${baseUrl}/api/v1/node`)).json()).clock.now as number;
    await expect.poll(engineNow, { timeout: 20_000 }).toBeGreaterThan(end + 15_000);
    // … (the page re-renders its clock each second, so it has ticked meanwhile) and the timeline still ends
    // where the pod finished
    expect(Number(await page.locator('[data-testid="timeline"]').getAttribute('data-end'))).toBe(end);
    await page.screenshot({ path: join(RESULTS, 'pod-finished-1280.png'), fullPage: true });
  });
});

describe('pod view: cause and effect, back-off, accessibility', () => {
  it('draws what a PLEG event woke, and what woke a SyncPod run', async () => {
    await openPod('crashloop');
    const died = page
      .locator('[data-testid="events-table"] tr', { hasText: 'PLEG ContainerDied app' })
      .first();
    await died.waitFor({ timeout: 30_000 });
    const seq = (await died.getAttribute('data-seq')) ?? '';
    await died.click();
    expect(page.url()).toMatch(new RegExp(`\\?step=${seq}$`));
    const flow = page.locator('[data-testid="step-flow"]');
    await expect(flow.textContent()).resolves.toMatch(
      /^woke worker update SyncPodSync at .* → SyncPod run at /,
    );
    // two legs: the PLEG mark to the worker update, the update to the run
    const legs = page.locator('[data-testid="flow-arrow"]');
    expect(await legs.count()).toBe(2);
    expect(await legs.first().getAttribute('data-from')).toBe(seq);
    expect(await page.locator(`[data-testid="mark-${seq}"]`).getAttribute('class')).toContain('tl-selected');
    await page.screenshot({ path: join(RESULTS, 'pod-flow-1280.png'), fullPage: true });

    // the run names what woke it
    await flow.locator('button').last().click();
    expect(['sync.start', 'sync.result']).toContain(await stepType());
    await expect(page.locator('[data-testid="step-flow"]').textContent()).resolves.toMatch(
      /woken by PLEG ContainerDied app at .* → worker update SyncPodSync at /,
    );
    expect(await page.locator('[data-testid="flow-arrow"]').count()).toBeGreaterThanOrEqual(2);
  });

  it('shows the table’s status word, the next sync after a window, and one box per window', async () => {
    await openPod('crashloop');
    const inspector = page.locator('[data-testid="backoff-inspector"]');
    await inspector.waitFor({ timeout: 60_000 });
    // sampled for 4 s (several tries at 10×): the inspector and the pod's STATUS never disagree
    const samples = await page.evaluate(async () => {
      const out: [string, string][] = [];
      const until = performance.now() + 4_000;
      while (performance.now() < until) {
        const a = document.querySelector('[data-testid="pod-status"]')?.textContent;
        const b = document.querySelector('[data-testid="backoff-status"]')?.textContent;
        if (a && b) out.push([a, b]);
        await new Promise((r) => requestAnimationFrame(r));
      }
      return out;
    });
    expect(samples.length).toBeGreaterThan(10);
    expect(samples.filter(([a, b]) => a !== b)).toEqual([]);
    expect(samples.some(([, b]) => b === 'Terminated')).toBe(false);

    // once a window is over the start waits for the worker's next sync, due within its requeue
    await inspector
      .locator('[data-testid="backoff-next-sync"]', {
        hasText: /^waiting for the next sync, due (in ≤ \d+ s|now)$/,
      })
      .waitFor({ timeout: 60_000 });

    // the timeline: one back-off box per window, although every sync inside a window records it again
    const uid = (await page.locator('.pod-summary dd.mono').last().textContent()) ?? '';
    const trace = (await (await fetch(`${baseUrl}/api/v1/trace?podUID=${uid}&limit=5000`)).json()) as {
      items: { type: string; key?: string; until?: number; delayS?: number }[];
    };
    const records = trace.items.filter((e) => e.type === 'backoff');
    const windows = new Set(records.map((e) => `${e.key}@${(e.until ?? 0) - (e.delayS ?? 0) * 1000}`));
    expect(records.length).toBeGreaterThan(windows.size);
    const boxes = await page
      .locator('[data-testid="backoff-box"]')
      .evaluateAll((els) => els.map((e) => [Number(e.getAttribute('x')), Number(e.getAttribute('width'))]));
    expect(boxes.length).toBeGreaterThanOrEqual(2);
    boxes.sort((a, b) => (a[0] as number) - (b[0] as number));
    for (let i = 1; i < boxes.length; i++) {
      const [x0, w0] = boxes[i - 1] as number[];
      expect(boxes[i]?.[0]).toBeGreaterThanOrEqual((x0 as number) + (w0 as number) - 1);
    }
    await inspector.screenshot({ path: join(RESULTS, 'backoff-inspector-1280.png') });
  });

  it('has no serious or critical axe violation on the pod view and the inspector, at 1280 and 1920 px', async () => {
    // the inspector open and a PLEG event selected, so its flow arrows are drawn too
    await openPod('crashloop');
    await page.locator('[data-testid="backoff-inspector"]').waitFor({ timeout: 60_000 });
    const died = page
      .locator('[data-testid="events-table"] tr', { hasText: 'PLEG ContainerDied app' })
      .first();
    await died.waitFor({ timeout: 30_000 });
    await died.click();
    expect(await seriousViolations(page, '[data-testid="backoff-inspector"]')).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 1920, height: 1080 });
    // attached, not visible: a vertical arrow (cause and effect at the same time) has a bounding box 0 wide
    await page.locator('[data-testid="flow-arrow"]').first().waitFor({ state: 'attached' });
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: join(RESULTS, 'pod-view-1920.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 1000 });
    expect(pageErrors).toEqual([]);
  });
});
