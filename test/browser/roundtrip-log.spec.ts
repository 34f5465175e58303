/**
 * Our own kubelet-format log, opened in the dashboard, shows what the engine reported. The example pods run
 * together on the simulated node under a FakeClock (core's pod-state/testing/examples.ts); the engine's trace
 * is written as a kubelet writes its log at -v=2 and at -v=4 (core's klog writer, as the server's
 * <data-dir>/kubelet.log) and opened through "Open kubelet log…". On the first screen each example pod's
 * STATUS and RESTARTS are kubectl's reading of the engine's last status of it, and the crash-looping pod's
 * page has the back-off inspector with the engine's ladder of delays and the reset rule in the live
 * inspector's words. An init container's end cannot be told from a restart at -v=2 (no line names the
 * container that ended): that pod is compared at the verbosities its example names.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatGoDuration } from '@syncscope/core/go-duration';
import { kubeletLogLines } from '@syncscope/core/klog';
import { backoffConstants, backoffRuleWords } from '@syncscope/core/pod-state';
import type { TraceEvent } from '@syncscope/core/trace';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pod } from '../../packages/core/src/api/v1.ts';
import {
  EXAMPLES,
  engineTrace,
  engineWindows,
  lastStatus,
  reported,
} from '../../packages/core/src/pod-state/testing/examples.ts';
import { type Dashboard, startDashboard } from '../support/browser.ts';

let dash: Dashboard;
let pods: Pod[];
let events: TraceEvent[];
const problems: string[] = [];

beforeAll(async () => {
  const logDir = mkdtempSync(join(tmpdir(), 'roundtrip-log-'));
  try {
    ({ pods, events } = await engineTrace(EXAMPLES, logDir));
  } finally {
    rmSync(logDir, { recursive: true, force: true });
  }
  dash = await startDashboard({ examples: false });
}, 120_000);

afterAll(async () => {
  await dash?.close();
});

async function openLog(v: number): Promise<Page> {
  const text = `${events.flatMap((e) => kubeletLogLines(e, { v, pid: 4242 })).join('\n')}\n`;
  // the engine's clock is UTC, and so are the log's stamps as the page shows them
  const page = await dash.browser.newPage({ viewport: { width: 1280, height: 1000 }, timezoneId: 'UTC' });
  page.on('pageerror', (err) => problems.push(`-v=${v}: page error: ${err.message}`));
  await page.goto(`${dash.baseUrl}/#/`);
  await page.locator('[data-testid="open-log"]').setInputFiles({
    name: `kubelet-v${v}.log`,
    mimeType: 'text/plain',
    buffer: Buffer.from(text),
  });
  await page.locator('[data-testid="log-banner"]').waitFor({ timeout: 30_000 });
  await page.locator('[data-testid="pod-row-crashloop"]').waitFor({ timeout: 30_000 });
  return page;
}

/** The pods table's STATUS and RESTARTS of a pod as shown (RESTARTS without its "(… ago)"). */
async function rowOf(page: Page, name: string) {
  const row = page.locator(`[data-testid="pod-row-${name}"]`);
  const restarts = (await row.locator('[data-testid="cell-restarts"]').textContent()) ?? '';
  return {
    word: (await row.locator('[data-testid="cell-status"]').textContent()) ?? '',
    restarts: Number.parseInt(restarts, 10),
  };
}

describe("our engine's kubelet log, opened in the dashboard, shows the pods as the engine reported them", () => {
  for (const v of [2, 4]) {
    it(`-v=${v}: each example pod's STATUS and RESTARTS; the crash loop's ladder and reset rule`, async () => {
      const page = await openLog(v);
      const wants = new Map<string, { word: string; restarts: number }>();
      for (const ex of EXAMPLES) {
        if (!ex.v.includes(v)) continue;
        const pod = pods.find((p) => p.metadata.name === ex.name) as Pod;
        const last = lastStatus(events, pod.metadata.uid as string);
        expect(last, ex.name).toBeDefined();
        if (!last) continue;
        const { word, restarts } = reported(pod, last.status, last.time);
        wants.set(ex.name, { word, restarts });
        expect(await rowOf(page, ex.name), `${ex.name} -v=${v}`).toEqual({ word, restarts });
      }
      expect(wants.size).toBe(EXAMPLES.filter((ex) => ex.v.includes(v)).length);
      // the engine left the crash loop in a window, after a few restarts: searching CrashLoop finds it
      expect(wants.get('crashloop')?.word).toBe('CrashLoopBackOff');
      expect(wants.get('crashloop')?.restarts).toBeGreaterThanOrEqual(3);
      await page.locator('[data-testid="pod-search"]').fill('CrashLoop');
      const shown = await page
        .locator('tr[data-testid^="pod-row-"]')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-testid')));
      expect(shown).toEqual(['pod-row-crashloop']);
      await page.locator('[data-testid="pod-search"]').fill('');

      await page.locator('a[aria-label="trace of default/crashloop"]').click();
      const inspector = page.locator('[data-testid="backoff-inspector"]');
      await inspector.waitFor({ timeout: 30_000 });
      const ladder = await inspector
        .locator('[data-testid="backoff-ladder"] [data-delay]')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-delay')));
      const engine = engineWindows(events, 'uid-crashloop').map((w) => formatGoDuration(w.delayS * 1000));
      expect(engine.slice(0, 4)).toEqual(['10s', '20s', '40s', '1m20s']);
      expect(ladder).toEqual(engine);
      expect(await inspector.locator('[data-testid="backoff-rule"]').textContent()).toBe(
        backoffRuleWords('container', backoffConstants('container')),
      );
      await page.close();
      expect(problems).toEqual([]);
    }, 120_000);
  }
});
