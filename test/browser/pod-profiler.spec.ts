/**
 * The pod view worked as a profiler, in Chromium against the simulated node (10× speed, the examples
 * applied): at 1280×800 a selected step's detail is on screen and the panels above show the pod at that
 * step; the step filter narrows the events table; a click on a bar selects its step; search with `/` and
 * `n`, a jump to a clock time; wheel, pinch and W/S zoom that keep the time under the pointer within a
 * pixel, with axis labels that never repeat; a dragged range whose totals are the trace's own counts.
 * Screenshots at 1280 and 1920 px go to test-results/.
 */
import { join } from 'node:path';
import type { TraceEvent } from '@syncscope/core/trace';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isErrorStep } from '../../apps/web/src/lib/step-filter.ts';
import { type Dashboard, openDashboard, RESULTS } from '../support/browser.ts';

let dash: Dashboard;
let page: Page;
let baseUrl: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  ({ dash, page, baseUrl } = await openDashboard({ speed: 10, width: 1280, height: 800, pageErrors }));
});

afterAll(async () => {
  expect(pageErrors).toEqual([]);
  await dash?.close();
});

async function openPod(name: string, width = 1280, height = 800) {
  await page.close();
  page = await dash.browser.newPage({ viewport: { width, height } });
  page.on('pageerror', (err) => pageErrors.push(err.message));
  await page.goto(`${baseUrl}/#/pods/default/${name}`);
  await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 60_000 });
  await page.locator('[data-testid="step-panel"]').waitFor({ timeout: 60_000 });
}

const selectedSeq = async () =>
  Number(await page.locator('[data-testid="step-panel"]').getAttribute('data-seq'));
const stepType = () => page.locator('[data-testid="step-panel"] .step-event .tag').textContent();

/** The pod's trace as the server holds it. */
async function podTrace(): Promise<TraceEvent[]> {
  const uid = (await page.locator('.pod-summary dd.mono').last().textContent()) ?? '';
  const res = await fetch(`${baseUrl}/api/v1/trace?podUID=${uid}&limit=10000`);
  return ((await res.json()) as { items: TraceEvent[] }).items;
}

/** The plot's geometry and window, and the time at a pixel of it. */
async function plot() {
  const el = page.locator('[data-testid="timeline"]');
  const [start, end, left, right] = await Promise.all(
    ['data-view-start', 'data-view-end', 'data-plot-left', 'data-plot-right'].map(async (a) =>
      Number(await el.getAttribute(a)),
    ),
  );
  const box = await el.locator('svg').first().boundingBox();
  if (!box) throw new Error('no timeline');
  const s = start as number;
  const e = end as number;
  const l = left as number;
  const r = right as number;
  return {
    start: s,
    end: e,
    left: l,
    right: r,
    box,
    timeAt: (px: number) => s + ((px - l) / (r - l)) * (e - s),
  };
}

/** Waits for the window to change from `before` (a zoom at a limit may leave it as it was). */
async function viewChanged(before: number) {
  await page
    .waitForFunction(
      (b) =>
        Number(document.querySelector('[data-testid="timeline"]')?.getAttribute('data-view-start')) !== b,
      before,
      { timeout: 2_000 },
    )
    .catch(() => undefined);
}

async function axisLabels(): Promise<string[]> {
  return page.locator('[data-testid="timeline-axis"] .tick text').allTextContents();
}

describe('pod view as a profiler', () => {
  it('shows the selected step on screen at 1280×800 and the pod at that step above', async () => {
    await openPod('crashloop');
    await page.locator('[data-testid="lane-app"][data-runs]').waitFor({ timeout: 60_000 });
    // a click on the worker band selects the worker.state step that began it
    const band = page.locator('[data-testid="worker-band"] rect[data-state="SyncPod"]').first();
    await band.click();
    await page.locator('[data-testid="at-step"]').waitFor();
    expect(await stepType()).toBe('worker.state');
    // within the viewport once the page has laid the selection out (the click may scroll the band into view)
    await expect
      .poll(async () => {
        const box = await page.locator('[data-testid="step-panel"]').boundingBox();
        return box !== null && box.y >= 0 && box.y + box.height <= 800 && box.x + box.width <= 1280;
      })
      .toBe(true);
    await page.screenshot({ path: join(RESULTS, 'pod-profiler-at-step-1280.png') });

    // the first step: no status yet, so no restarts, while now it has restarted
    await page.keyboard.press('Home');
    await expect
      .poll(() => page.locator('[data-testid="at-step"]').textContent())
      .toMatch(/^at step 1, \d\d:\d\d:\d\d/);
    expect(await page.locator('[data-testid="pod-restarts"]').textContent()).toBe('0');
    await page.locator('[data-testid="at-step-back"]').click();
    await page.locator('[data-testid="at-step"]').waitFor({ state: 'detached' });
    await expect
      .poll(async () =>
        Number.parseInt((await page.locator('[data-testid="pod-restarts"]').textContent()) ?? '', 10),
      )
      .toBeGreaterThan(0);
  });

  it('narrows the events table to the chosen kinds', async () => {
    await openPod('crashloop');
    for (const k of ['worker', 'sync', 'cri', 'events', 'probes', 'backoff', 'other'])
      await page.locator(`[data-testid="step-filter-${k}"]`).uncheck();
    const rows = page.locator('[data-testid="events-table"] tbody tr:not(.row-selected)');
    await expect.poll(() => rows.count()).toBeGreaterThan(0);
    const types = await rows.evaluateAll((trs) => trs.map((tr) => tr.children[2]?.textContent));
    expect(new Set(types)).toEqual(new Set(['pleg.event']));
  });

  it('searches the steps with / and n, and jumps to a time', async () => {
    await openPod('crashloop');
    await page.locator('[data-testid="lane-app"][data-runs]').waitFor({ timeout: 60_000 });
    await page.keyboard.press('/');
    await page.keyboard.type('StartContainer app');
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.locator('[data-testid="step-event"]').textContent())
      .toMatch(/StartContainer app/);
    const first = await selectedSeq();
    await page.locator('[data-testid="step-event"]').click(); // leave the field: n is the page's key again
    await page.keyboard.press('n');
    await expect.poll(selectedSeq).toBeGreaterThan(first);
    expect(await page.locator('[data-testid="step-event"]').textContent()).toMatch(/StartContainer app/);
    expect(await page.locator('[data-testid="step-search-count"]').textContent()).toMatch(/^2 \/ \d+$/);
    await page.keyboard.press('N');
    await expect.poll(selectedSeq).toBe(first);

    // a clock time as the table prints it: the first step of that second
    const trace = await podTrace();
    const target = trace[Math.floor(trace.length / 2)] as TraceEvent;
    const clock = await page.evaluate((t) => {
      const d = new Date(t);
      const p = (n: number) => String(n).padStart(2, '0');
      return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
    }, target.time);
    await page.locator('[data-testid="step-jump"]').fill(clock);
    await page.locator('[data-testid="step-jump"]').press('Enter');
    const second = Math.floor(target.time / 1000) * 1000;
    const expected = trace.find((e) => e.time >= second) as TraceEvent;
    await expect.poll(selectedSeq).toBe(expected.seq);
  });

  it('zooms at the pointer within a pixel by wheel, pinch and W/S, with no repeated axis label', async () => {
    await openPod('completes');
    await page.locator('[data-testid="timeline"][data-finished="true"]').waitFor({ timeout: 60_000 });
    const p0 = await plot();
    // a whole client pixel: the wheel event reports the pointer in whole pixels
    const px = Math.round(p0.box.x + p0.left + 0.7 * (p0.right - p0.left)) - p0.box.x;
    await page.mouse.move(p0.box.x + px, p0.box.y + 60);
    const t0 = p0.timeAt(px);
    const check = async () => {
      const p = await plot();
      const drift = (Math.abs(p.timeAt(px) - t0) / (p.end - p.start)) * (p.right - p.left);
      expect(drift).toBeLessThan(1);
      const labels = await axisLabels();
      expect(new Set(labels).size, labels.join(' ')).toBe(labels.length);
    };
    // the wheel, down to the narrowest zoom and past it
    for (let i = 0; i < 24; i++) {
      const before = (await plot()).start;
      await page.mouse.wheel(0, -150);
      await viewChanged(before);
      await check();
    }
    expect((await plot()).end - (await plot()).start).toBeLessThan(300);
    // a pinch (a wheel with ctrl held) out, then W/S
    await page.keyboard.down('Control');
    for (let i = 0; i < 6; i++) {
      const before = (await plot()).start;
      await page.mouse.wheel(0, 40);
      await viewChanged(before);
      await check();
    }
    await page.keyboard.up('Control');
    for (const key of ['s', 's', 's', 'w', 's']) {
      const before = (await plot()).start;
      await page.keyboard.press(key);
      await viewChanged(before);
      await check();
    }
    // D pans while the pointer is over the timeline
    const before = (await plot()).start;
    await page.keyboard.press('d');
    await viewChanged(before);
    expect((await plot()).start).toBeGreaterThan(before);
  });

  it('totals a dragged range as the trace counts it', async () => {
    await openPod('crashloop', 1920, 1000);
    await page.locator('[data-testid="lane-app"][data-runs]').waitFor({ timeout: 60_000 });
    const p = await plot();
    const y = p.box.y + 70;
    await page.mouse.move(p.box.x + p.left + 0.1 * (p.right - p.left), y);
    await page.mouse.down();
    await page.mouse.move(p.box.x + p.left + 0.6 * (p.right - p.left), y, { steps: 5 });
    await page.mouse.move(p.box.x + p.left + 0.95 * (p.right - p.left), y, { steps: 5 });
    await page.mouse.up();
    const totals = page.locator('[data-testid="range-totals"]');
    await totals.waitFor();
    const start = Number(await totals.getAttribute('data-start'));
    const end = Number(await totals.getAttribute('data-end'));
    const trace = (await podTrace()).sort((a, b) => a.seq - b.seq);
    const inRange = (e: TraceEvent) => e.time >= start && e.time <= end;
    const syncs = trace.filter((e) => inRange(e) && e.type === 'sync.result').length;
    const errors = trace.filter((e) => inRange(e) && isErrorStep(e)).length;
    const seen = new Set<string>();
    let restarts = 0;
    for (const e of trace) {
      if (e.type !== 'runtime.call' || e.method !== 'StartContainer' || e.error || !e.container) continue;
      if (inRange(e) && seen.has(e.container)) restarts++;
      seen.add(e.container);
    }
    expect(syncs).toBeGreaterThan(0);
    expect(restarts).toBeGreaterThan(0);
    expect(Number(await page.locator('[data-testid="range-syncs"]').textContent())).toBe(syncs);
    expect(Number(await page.locator('[data-testid="range-errors"]').textContent())).toBe(errors);
    expect(Number(await page.locator('[data-testid="range-restarts"]').textContent())).toBe(restarts);
    // the worker's time adds up to the part of the range the pod's history covers
    const ms = await page
      .locator('[data-testid^="range-worker-"]')
      .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-ms'))));
    const first = trace.find((e) => e.type === 'worker.state')?.time ?? start;
    expect(ms.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    expect(ms.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(end - Math.max(start, first) + 1);
    await page.screenshot({ path: join(RESULTS, 'pod-profiler-range-1920.png') });
    await page.keyboard.press('Escape');
    await totals.waitFor({ state: 'detached' });
  });
});
