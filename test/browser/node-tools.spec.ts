/**
 * The node view's tools as a user works them, in Chromium against the simulated node (10× speed, the
 * examples applied): the faults panel lists what is in effect, clears one and clears all, and the faults
 * are labelled on a pod's timeline (an outage as a span); the apply editor (CodeMirror) marks a YAML error
 * and the fields a refusal names by line and column, and links to the pod it created. Screenshots at 1280
 * and 1920 px go to test-results/.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const items = () => page.locator('[data-testid="fault-active-item"]');
const kinds = () => items().evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')));

/** A page of its own on the node view, live: no test leans on where an earlier one left the page. */
async function openNode() {
  await page?.close();
  page = await dash.browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.on('pageerror', (err) => pageErrors.push(err.message));
  await page.goto(baseUrl);
  await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });
}

/** Four faults through the panel: an outage of 900 s, StartContainer failing, nginx missing, latency. */
async function injectFaults() {
  const panel = page.locator('[data-testid="fault-panel"]');
  await panel.locator('[data-testid="fault-outage-seconds"]').fill('900');
  await panel.locator('[data-testid="fault-outage"]').click();
  await panel.locator('[data-testid="fault-method"]').fill('StartContainer');
  await panel.locator('[data-testid="fault-failNext"]').click();
  await panel.locator('[data-testid="fault-image"]').fill('nginx');
  await panel.locator('[data-testid="fault-imageMissing"]').click();
  await panel.locator('[data-testid="fault-latency"]').click();
  await expect.poll(kinds, { timeout: 5_000 }).toEqual(['outage', 'failNext', 'latency', 'imageMissing']);
}

describe('faults panel', () => {
  it('lists the faults in effect, clears one, and "clear all" clears every one', async () => {
    await openNode();
    const panel = page.locator('[data-testid="fault-panel"]');
    await panel.locator('[data-testid="fault-active-count"]', { hasText: /^0$/ }).waitFor();

    await injectFaults();
    await panel.screenshot({ path: join(RESULTS, 'faults-panel-1280.png') });

    await items().filter({ hasText: 'StartContainer' }).locator('[data-testid="fault-clear-one"]').click();
    await expect.poll(kinds, { timeout: 5_000 }).toEqual(['outage', 'latency', 'imageMissing']);
    await page
      .locator('[data-testid="fault-result"].ok', { hasText: 'StartContainer calls no longer fail' })
      .waitFor();

    await panel.locator('[data-testid="fault-clear-all"]').click();
    await expect.poll(kinds, { timeout: 5_000 }).toEqual([]);
    await page.locator('[data-testid="fault-result"].ok', { hasText: '3 faults cleared' }).waitFor();
    // the image is back: the server lists nothing in effect
    const left = (await (await fetch(`${baseUrl}/api/v1/sim/faults`)).json()) as { items: unknown[] };
    expect(left.items).toEqual([]);
  });

  it('labels the faults on a pod timeline, the outage as a span up to its clear', async () => {
    // its own faults, cleared one and then all (the panel test may have left its own before: the last
    // span and marks are this test's)
    await openNode();
    await injectFaults();
    await items().filter({ hasText: 'StartContainer' }).locator('[data-testid="fault-clear-one"]').click();
    await expect.poll(kinds, { timeout: 5_000 }).toEqual(['outage', 'latency', 'imageMissing']);
    await page.locator('[data-testid="fault-panel"] [data-testid="fault-clear-all"]').click();
    await expect.poll(kinds, { timeout: 5_000 }).toEqual([]);

    await page.goto(`${baseUrl}/#/pods/default/healthy`);
    const timeline = page.locator('[data-testid="timeline"]');
    await timeline.waitFor({ timeout: 30_000 });
    const span = timeline.locator('[data-testid="fault-span"][data-label="runtime outage"]').last();
    await span.waitFor({ timeout: 10_000 });
    await expect(span.textContent()).resolves.toContain('runtime outage');
    // the span ends at the clear (not 900 s later): its width is that of the few seconds it lasted
    const width = Number(await span.locator('rect').getAttribute('width'));
    const clear = timeline.locator('[data-testid="fault-mark"][data-label="faults cleared"]').last();
    await clear.waitFor();
    const spanX = Number(await span.locator('rect').getAttribute('x'));
    const clearX = Number(await clear.locator('line').getAttribute('x1'));
    expect(Math.abs(spanX + width - clearX)).toBeLessThan(1.5);
    for (const label of ['calls fail', 'image missing', 'latency', 'failNext cleared'])
      await timeline.locator(`[data-testid="fault-mark"][data-label="${label}"]`).last().waitFor();
    await page.screenshot({ path: join(RESULTS, 'pod-faults-1280.png'), fullPage: true });
  });
});

const BAD_YAML = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: a: b\nspec: {}\n';
const REFUSED = `apiVersion: v1
kind: Pod
metadata:
  name: refused
spec:
  containers:
  - name: app
    image: busybox
    imagePullPolicy: Sometimes
    ports:
    - containerPort: 99999
`;

/** The node view on a page of its own, its apply editor ready with the first example in it. */
async function openEditor() {
  await openNode();
  await page.locator('[data-testid="apply-editor"]').waitFor({ timeout: 30_000 });
  await expect.poll(() => page.locator('[data-testid="apply-editor"]').textContent()).toContain('kind: Pod');
}

async function typeManifest(text: string) {
  const editor = page.locator('[data-testid="apply-editor"]');
  await editor.focus();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

describe('apply editor', () => {
  it('marks a YAML error by line and column as it is typed', async () => {
    await openEditor();
    await typeManifest(BAD_YAML);
    const problem = page.locator('[data-testid="apply-problem"]');
    await problem.waitFor();
    expect([await problem.getAttribute('data-line'), await problem.getAttribute('data-col')]).toEqual([
      '4',
      '9',
    ]);
    expect(await page.locator('[data-testid="apply-submit"]').isDisabled()).toBe(true);
    await page.locator('.apply .cm-lintRange-error').first().waitFor();
    await page.locator('section.apply').screenshot({ path: join(RESULTS, 'apply-yaml-error-1280.png') });
  });

  it('keeps a typed / in the editor (the pods filter takes / only outside text fields)', async () => {
    await openEditor();
    await typeManifest('command: [');
    await page.keyboard.type('/bin/sh');
    const doc = await page.locator('[data-testid="apply-editor"]').textContent();
    expect(doc).toContain('command: [/bin/sh');
    expect(
      await page.locator('[data-testid="pod-search"]').evaluate((e) => e === document.activeElement),
    ).toBe(false);
  });

  it('marks the fields a refusal names, at their lines', async () => {
    await openEditor();
    await typeManifest(REFUSED);
    await page.locator('[data-testid="apply-problem"]').waitFor({ state: 'detached' });
    await page.locator('[data-testid="apply-submit"]').click();
    await page.locator('[data-testid="apply-error"]').waitFor();
    const problems = page.locator('[data-testid="apply-problem"]');
    await expect.poll(() => problems.count()).toBe(2);
    const where = await problems.evaluateAll((els) =>
      els.map((e) => [e.getAttribute('data-line'), e.getAttribute('data-col'), e.textContent?.split(':')[0]]),
    );
    expect(where).toEqual([
      ['9', '5', 'line 9, column 5'],
      ['11', '7', 'line 11, column 7'],
    ]);
    await expect(problems.first().textContent()).resolves.toContain('spec.containers[0].imagePullPolicy');
    expect(await page.locator('.apply .cm-lintRange-error').count()).toBeGreaterThanOrEqual(2);
    await page.locator('section.apply').screenshot({ path: join(RESULTS, 'apply-field-error-1280.png') });
  });

  it('links to the pod it created', async () => {
    await openEditor();
    await typeManifest(
      REFUSED.replace('name: refused', 'name: edited')
        .replace('Sometimes', 'IfNotPresent')
        .replace('99999', '8080'),
    );
    await expect
      .poll(() => page.locator('[data-testid="apply-editor"]').textContent())
      .toContain('name: edited');
    await page.locator('[data-testid="apply-submit"]').click();
    const link = page.locator('[data-testid="apply-pod-link"]');
    await link.waitFor();
    await link.click();
    await page.waitForURL(/#\/pods\/default\/edited$/);
    await page
      .locator('[data-testid="pod-title"]', { hasText: 'default/edited' })
      .waitFor({ timeout: 30_000 });
    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.goto(baseUrl);
    await page.locator('[data-testid="apply-editor"]').waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(RESULTS, 'node-tools-1920.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
  });
});
