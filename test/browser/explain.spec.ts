/**
 * The model beside the real kubelet in the pod view: sample 03 of the importer's test data opened as a
 * replay, and a copy whose one back-off line says 20s where the kubelet's rule gives 10s. The pod view sums
 * up model vs source, marks and lists the differing step, `d` selects it, and the step panel shows the
 * model's reading beside the source's line with the verdict and both values; the kubelet's own log has no
 * difference, and its back-off line reads "agrees". A screenshot of the differing step into test-results/.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dashboard, RESULTS, ROOT, startDashboard } from '../support/browser.ts';

const NAME = '03-v1.31-openshift-journald-v2-static-pods-probes-crashloop.log';
const TEXT = readFileSync(join(ROOT, 'packages/core/src/kubelet-log/testdata', NAME), 'utf8');
const POD = 'openshift-cluster-version/bootstrap-cluster-version-operator-localhost.localdomain';

let dash: Dashboard;
const problems: string[] = [];

beforeAll(async () => {
  dash = await startDashboard({ examples: false });
});
afterAll(async () => {
  await dash?.close();
});

async function openPod(text: string): Promise<Page> {
  const page = await dash.browser.newPage({ viewport: { width: 1280, height: 1000 }, timezoneId: 'UTC' });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  await page.goto(`${dash.baseUrl}/#/`);
  await page.locator('[data-testid="open-log"]').setInputFiles({
    name: 'kubelet.log',
    mimeType: 'text/plain',
    buffer: Buffer.from(text),
  });
  await page.locator('[data-testid="log-banner"]').waitFor({ timeout: 30_000 });
  await page.locator(`a[aria-label="trace of ${POD}"]`).click();
  await page.locator('[data-testid="pod-title"]', { hasText: POD }).waitFor();
  await page.locator('[data-testid="explain-summary"]').waitFor();
  return page;
}

describe('the model beside the kubelet in the pod view', () => {
  it('marks the edited back-off line, lists it, and `d` selects it with both values beside the line', async () => {
    const page = await openPod(TEXT.replace('back-off 10s restarting', 'back-off 20s restarting'));
    expect(await page.locator('[data-testid="explain-summary"]').textContent()).toMatch(/1 differ/);
    const marks = page.locator('[data-testid^="diff-mark-"]');
    expect(await marks.count()).toBe(1);
    const list = page.locator('[data-testid="diff-list"] li');
    expect(await list.count()).toBe(1);
    expect(await list.first().textContent()).toMatch(
      /line 637 container back-off 20s .*backoff-delay.*expected back-off 10s; seen back-off 20s/,
    );

    await page.locator('[data-testid="step-first"]').click();
    await page.keyboard.press('d');
    const model = page.locator('[data-testid="step-model"][data-verdict="differs"]');
    await model.waitFor();
    expect(await page.locator('[data-testid="step-event"]').textContent()).toMatch(/back-off 20s/);
    expect(await page.locator('[data-testid="step-log"]').getAttribute('data-line')).toBe('637');
    expect(await page.locator('[data-testid="step-difference"]').textContent()).toBe(
      'expected back-off 10s; the source: back-off 20s',
    );
    expect(await model.textContent()).toMatch(/window 1: in back-off 10s until 05:00:24/);
    await page.screenshot({ path: join(RESULTS, 'explain-pod-1280.png'), fullPage: true });
    await page.close();
    expect(problems).toEqual([]);
  }, 120_000);

  it("the kubelet's own log: no difference, the back-off line agrees with its rule", async () => {
    const page = await openPod(TEXT);
    expect(await page.locator('[data-testid="explain-summary"]').textContent()).toMatch(
      /0 differ.*back-off windows 1\/1 by the rule/,
    );
    expect(await page.locator('[data-testid^="diff-mark-"]').count()).toBe(0);
    // step to the back-off line
    await page.locator('[data-testid="step-first"]').click();
    for (let i = 0; i < 60; i++) {
      if (/back-off 10s/.test((await page.locator('[data-testid="step-event"]').textContent()) ?? '')) break;
      await page.locator('[data-testid="step-next"]').click();
    }
    const model = page.locator('[data-testid="step-model"]');
    expect(await model.getAttribute('data-verdict')).toBe('agrees');
    expect(await model.textContent()).toMatch(/rule: doBackOff/);
    await page.close();
    expect(problems).toEqual([]);
  }, 120_000);
});
