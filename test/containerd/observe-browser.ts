/**
 * The observe-mode dashboard in Chromium (test/support/browser.ts): the node view with its pods and the
 * "observing the kubelet on …" line and without the apply, delete and fault controls, and a crash-looping pod's
 * page with its timeline and back-off inspector. Screenshots at 1280 and 1920 px go to test-results/
 * (observe-node-1280.png, observe-pod-1280.png, …). Needs apps/web/dist (vite build).
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  explainFailedLoads,
  launchChromium,
  openThroughNetworkChange,
  RESULTS,
  WEB_DIST,
} from '../support/browser.ts';

export interface DashboardSeen {
  observing: string;
  pods: string[];
  controls: { apply: number; faults: number; deletes: number };
  /** what the sync-loop and housekeeping panels say instead of staying blank (no loop of ours to draw) */
  whyEmpty: { loop: string; cadence: string };
  timeline: boolean;
  basis: string | null;
  basisText: string;
  screenshots: string[];
  pageErrors: string[];
}

export async function checkObserverDashboard(base: string, endpoint: string): Promise<DashboardSeen> {
  if (!existsSync(join(WEB_DIST, 'index.html')))
    throw new Error('apps/web/dist is missing: run `cd apps/web && node_modules/.bin/vite build` first');
  await mkdir(RESULTS, { recursive: true });
  const browser = await launchChromium();
  const pageErrors: string[] = [];
  const screenshots: string[] = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (err) => pageErrors.push(err.message));
    explainFailedLoads(page);
    // this tier's pods add and remove network interfaces: a load cut by one is made again, its errors dropped
    await openThroughNetworkChange(
      page,
      `${base}/#/`,
      () => page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 }),
      () => {
        pageErrors.length = 0;
      },
    );
    const observing = page.locator('[data-testid="observing"]');
    await observing.waitFor({ timeout: 30_000 });
    await page.locator(`[data-testid="observing"]:has-text("${endpoint}")`).waitFor({ timeout: 10_000 });
    const table = page.locator('[data-testid="pods-table"]');
    await table.locator('tr:has-text("sc-crash")').waitFor({ timeout: 30_000 });
    const seen: DashboardSeen = {
      observing: ((await observing.textContent()) ?? '').replace(/\s+/g, ' ').trim(),
      pods: (await table.locator('tbody tr').allTextContents()).flatMap((t) => t.match(/sc-[a-z]+/g) ?? []),
      controls: {
        apply: await page.locator('section.apply, [data-testid="apply-submit"]').count(),
        faults: await page.locator('[data-testid="fault-panel"]').count(),
        deletes: await page.locator('[data-testid="delete-grace"], button:has-text("delete")').count(),
      },
      whyEmpty: {
        loop: ((await page.locator('[data-testid="loop-observing"]').textContent()) ?? '').replace(
          /\s+/g,
          ' ',
        ),
        cadence: ((await page.locator('[data-testid="cadence-observing"]').textContent()) ?? '').replace(
          /\s+/g,
          ' ',
        ),
      },
      timeline: false,
      basis: null,
      basisText: '',
      screenshots,
      pageErrors,
    };
    for (const width of [1280, 1920]) {
      await page.setViewportSize({ width, height: width === 1280 ? 900 : 1080 });
      const file = join(RESULTS, `observe-node-${width}.png`);
      await page.screenshot({ path: file, fullPage: true });
      screenshots.push(file);
    }

    await page.setViewportSize({ width: 1280, height: 900 });
    await openThroughNetworkChange(
      page,
      `${base}/#/pods/default/sc-crash`,
      () => page.locator('[data-testid="timeline"]').waitFor({ timeout: 30_000 }),
      () => {
        pageErrors.length = 0;
      },
    );
    // the container's runs are lanes of the timeline, each labelled with its exit
    await page.locator('[data-testid="timeline"] :text("exit 1 Error")').first().waitFor({ timeout: 30_000 });
    seen.timeline = true;
    const basis = page.locator('[data-testid="backoff-basis"]');
    await basis.waitFor({ timeout: 60_000 });
    seen.basis = await basis.getAttribute('data-basis');
    seen.basisText = ((await basis.textContent()) ?? '').trim();
    for (const width of [1280, 1920]) {
      await page.setViewportSize({ width, height: width === 1280 ? 900 : 1080 });
      const file = join(RESULTS, `observe-pod-${width}.png`);
      await page.screenshot({ path: file, fullPage: true });
      screenshots.push(file);
    }
    return seen;
  } finally {
    await browser.close();
  }
}
