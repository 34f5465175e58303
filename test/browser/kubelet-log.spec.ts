/**
 * A real kubelet log (sample 03 of the importer's test data) dropped on the dashboard: parsed in the worker,
 * opened as a replay, an imported pod stepped through with the log line of each step shown; then Share: the
 * log uploaded, the link opened in a fresh page, the same replay read from the server with the same lines; the
 * same log gzip-compressed and as UTF-16, opened and shared; the same log as `journalctl -o json-pretty` writes it.
 * Screenshots at 1280 and 1920 px into test-results/. A CSP report from the page fails the test.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { importKubeletLog } from '@syncscope/core/kubelet-log';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dashboard, RESULTS, ROOT, startDashboard } from '../support/browser.ts';

const NAME = '03-v1.31-openshift-journald-v2-static-pods-probes-crashloop.log';
const TEXT = readFileSync(join(ROOT, 'packages/core/src/kubelet-log/testdata', NAME), 'utf8');
const LINES = TEXT.split('\n');
const POD = 'openshift-cluster-version/bootstrap-cluster-version-operator-localhost.localdomain';

let dash: Dashboard;
const problems: string[] = [];

async function newPage(width: number): Promise<Page> {
  const page = await dash.browser.newPage({ viewport: { width, height: 1000 } });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) problems.push(`CSP: ${m.text()}`);
  });
  return page;
}

/** Drops `text` as a file named `name` on the page, the way a drag from the desktop arrives. */
async function dropFile(page: Page, name: string, text: string): Promise<void> {
  const dt = await page.evaluateHandle(
    ([n, t]) => {
      const d = new DataTransfer();
      d.items.add(new File([t as string], n as string, { type: 'text/plain' }));
      return d;
    },
    [name, text],
  );
  await page.dispatchEvent('main', 'dragover', { dataTransfer: dt });
  await page.locator('[data-testid="log-drop-zone"]').waitFor();
  await page.dispatchEvent('main', 'drop', { dataTransfer: dt });
}

/** Steps from the first event to the last; for each, the step's event text and its log line. */
async function stepThrough(page: Page): Promise<{ event: string; line: number; text: string }[]> {
  await page.locator('[data-testid="step-first"]').click();
  const out: { event: string; line: number; text: string }[] = [];
  for (let i = 0; i < 200; i++) {
    const log = page.locator('[data-testid="step-log"]');
    const line = Number(await log.getAttribute('data-line'));
    // the line is read from the file (or the server) after the step renders: wait for it
    await page.waitForFunction(
      () => !document.querySelector('[data-testid="step-log"] pre')?.textContent?.startsWith('…'),
    );
    out.push({
      event: (await page.locator('[data-testid="step-event"]').textContent()) ?? '',
      line,
      text: (await log.locator('pre').textContent()) ?? '',
    });
    if (await page.locator('[data-testid="step-next"]').isDisabled()) break;
    await page.locator('[data-testid="step-next"]').click();
    await page
      .locator(`[data-testid="step-log"]:not([data-line="${line}"])`)
      .or(page.locator('[data-testid="step-panel"]'))
      .first()
      .waitFor();
  }
  return out;
}

beforeAll(async () => {
  dash = await startDashboard({ examples: false });
});

afterAll(async () => {
  await dash?.close();
});

describe('a kubelet log in the dashboard', () => {
  it('opens a dropped log and shows each step of an imported pod with its log line', async () => {
    const page = await newPage(1280);
    await page.goto(`${dash.baseUrl}/#/`);
    await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });
    await dropFile(page, NAME, TEXT);
    const banner = page.locator('[data-testid="log-banner"]');
    await banner.waitFor({ timeout: 30_000 });
    expect(await banner.textContent()).toContain(NAME);
    expect(await page.locator('[data-testid="log-raw-count"]').textContent()).toBe('729 kept raw');
    expect(await page.locator('[data-testid="connection-state"]').count()).toBe(0);
    await page.locator('[data-testid="raw-line"]').first().waitFor();
    // the node's raw lines: the first 200 shown, the rest counted
    const rawPanel = page.locator('[data-testid="raw-lines"]');
    const onNode = Number(
      /\((\d+) on this node\)/.exec((await rawPanel.locator('h2').textContent()) ?? '')?.[1],
    );
    expect(onNode).toBeGreaterThan(200);
    expect(await rawPanel.locator('[data-testid="raw-line"]').count()).toBe(200);
    expect(await rawPanel.locator('p.dim').textContent()).toBe(
      `…and ${onNode - 200} more (open a pod to see its own)`,
    );
    await page.screenshot({ path: join(RESULTS, 'kubelet-log-node-1280.png'), fullPage: true });

    await page.locator(`a[aria-label="trace of ${POD}"]`).click();
    await page.locator('[data-testid="pod-title"]', { hasText: POD }).waitFor();
    const steps = await stepThrough(page);
    expect(steps.length).toBeGreaterThan(20);
    for (const s of steps) expect(s.text, `line ${s.line}`).toBe(LINES[s.line - 1]?.replace(/\r$/, ''));
    // the sync error and its back-off window point at the kubelet's "Error syncing pod" line
    const failed = steps.filter((s) => s.text.includes('Error syncing pod'));
    expect(failed.length).toBeGreaterThanOrEqual(2);
    expect(new Set(failed.map((s) => s.line)).size).toBe(1);

    // a step with its line, at both widths
    const errorStep = steps.findIndex((s) => s.text.includes('Error syncing pod'));
    await page.locator('[data-testid="step-first"]').click();
    for (let i = 0; i < errorStep; i++) await page.locator('[data-testid="step-next"]').click();
    await page.locator('[data-testid="step-log"] pre', { hasText: 'Error syncing pod' }).waitFor();
    await page.screenshot({ path: join(RESULTS, 'kubelet-log-pod-1280.png'), fullPage: true });
    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.screenshot({ path: join(RESULTS, 'kubelet-log-pod-1920.png'), fullPage: true });
    await page.close();
    expect(problems).toEqual([]);
  }, 120_000);

  /**
   * A log whose bytes are not its text (gzip, UTF-16) opened: the same log, its steps' lines read from the text
   * the worker made, screenshots at both widths; Share sends the file as opened and the server reads it the same.
   */
  async function opensAsTheSameLog(file: { name: string; mimeType: string; buffer: Buffer }, shot: string) {
    const page = await newPage(1280);
    await page.goto(`${dash.baseUrl}/#/`);
    await page.locator('[data-testid="open-log"]').setInputFiles(file);
    await page.locator('[data-testid="log-banner"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-testid="log-raw-count"]').textContent()).toBe('729 kept raw');
    const counts = await page.locator('[data-testid="log-counts"]').textContent();
    await page.locator(`a[aria-label="trace of ${POD}"]`).click();
    await page.locator('[data-testid="pod-title"]', { hasText: POD }).waitFor();
    const steps = await stepThrough(page);
    expect(steps.length).toBeGreaterThan(20);
    for (const s of steps) expect(s.text, `line ${s.line}`).toBe(LINES[s.line - 1]?.replace(/\r$/, ''));
    await page.screenshot({ path: join(RESULTS, `${shot}-1280.png`), fullPage: true });
    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.screenshot({ path: join(RESULTS, `${shot}-1920.png`), fullPage: true });

    await page.locator('[data-testid="log-share"]').click();
    const link = page.locator('[data-testid="log-share-link"]');
    await link.waitFor({ timeout: 30_000 });
    const href = (await link.getAttribute('href')) ?? '';
    await page.goto(href);
    await page.reload();
    await page.locator('[data-testid="log-banner"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-testid="log-counts"]').textContent()).toBe(counts);
    await page.close();
    expect(problems).toEqual([]);
  }

  it('opens a gzip-compressed log (a rotated kubelet.log.1.gz) as the same log, and shares it', async () => {
    const file = { name: `${NAME}.1.gz`, mimeType: 'application/gzip', buffer: gzipSync(TEXT) };
    await opensAsTheSameLog(file, 'kubelet-log-gzip');
  }, 120_000);

  it('opens a UTF-16 log (as Windows PowerShell saves text) as the same log, and shares it', async () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(TEXT, 'utf16le')]);
    await opensAsTheSameLog({ name: NAME, mimeType: 'text/plain', buffer: le }, 'kubelet-log-utf16');
  }, 120_000);

  it('opens journalctl -o json-pretty output: each step shows the MESSAGE line of its record', async () => {
    // the sample's lines as journald records, pretty-printed as journalctl does (a tab before each field)
    const pretty = LINES.filter((l) => l !== '')
      .map((l) => {
        const m = /^(\w{3} \d\d \d\d:\d\d:\d\d) (\S+) ([^[]+)\[(\d+)\]: (.*)$/.exec(l) as RegExpExecArray;
        const stamp = Date.parse(`${m[1]} 2024 UTC`) * 1000;
        const fields = {
          __REALTIME_TIMESTAMP: String(stamp),
          _HOSTNAME: m[2],
          SYSLOG_IDENTIFIER: m[3],
          _PID: m[4],
          MESSAGE: m[5],
        };
        return `{\n${Object.entries(fields)
          .map(([k, v]) => `\t"${k}" : ${JSON.stringify(v)}`)
          .join(',\n')}\n}`;
      })
      .join('\n');
    const lines = pretty.split('\n');
    const page = await newPage(1280);
    await page.goto(`${dash.baseUrl}/#/`);
    await page.locator('[data-testid="open-log"]').setInputFiles({
      name: 'kubelet.json',
      mimeType: 'application/json',
      buffer: Buffer.from(pretty),
    });
    await page.locator('[data-testid="log-banner"]').waitFor({ timeout: 30_000 });
    // the 729 raw entries' lines: every line of their records
    const { summary } = importKubeletLog(pretty);
    expect(summary.events).toBe(880);
    expect(await page.locator('[data-testid="log-raw-count"]').textContent()).toBe(`${summary.raw} kept raw`);
    await page.locator(`a[aria-label="trace of ${POD}"]`).click();
    await page.locator('[data-testid="pod-title"]', { hasText: POD }).waitFor();
    const steps = await stepThrough(page);
    expect(steps.length).toBeGreaterThan(20);
    for (const s of steps) {
      expect(s.text, `line ${s.line}`).toBe(lines[s.line - 1]);
      expect(s.text).toMatch(/^\t"MESSAGE" : "/);
    }
    await page.screenshot({ path: join(RESULTS, 'kubelet-log-json-pretty-1280.png'), fullPage: true });
    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.screenshot({ path: join(RESULTS, 'kubelet-log-json-pretty-1920.png'), fullPage: true });
    await page.close();
    expect(problems).toEqual([]);
  }, 120_000);

  it('shares the log: uploaded, a link, the same replay opened from the server', async () => {
    const page = await newPage(1280);
    await page.goto(`${dash.baseUrl}/#/`);
    await page.locator('[data-testid="open-log"]').setInputFiles({
      name: NAME,
      mimeType: 'text/plain',
      buffer: Buffer.from(TEXT),
    });
    await page.locator('[data-testid="log-banner"]').waitFor({ timeout: 30_000 });
    const counts = await page.locator('[data-testid="log-counts"]').textContent();
    await page.locator('[data-testid="raw-line"]').first().waitFor();
    const rawLines = await page.locator('[data-testid="raw-lines"]').textContent();
    await page.locator('[data-testid="log-share"]').click();
    const link = page.locator('[data-testid="log-share-link"]');
    await link.waitFor({ timeout: 30_000 });
    const href = (await link.getAttribute('href')) ?? '';
    expect(href).toMatch(/#\/imports\/[A-Za-z0-9_-]{22}$/);
    await page.screenshot({ path: join(RESULTS, 'kubelet-log-shared-1280.png') });
    await page.locator(`a[aria-label="trace of ${POD}"]`).click();
    await page.locator('[data-testid="pod-title"]', { hasText: POD }).waitFor();
    const localSteps = await stepThrough(page);
    await page.close();

    const other = await newPage(1280);
    await other.goto(href);
    const banner = other.locator('[data-testid="log-banner"]');
    await banner.waitFor({ timeout: 30_000 });
    expect(await banner.textContent()).toContain(NAME);
    // the same counts and events; no Share button (it is already on the server), the link instead
    expect(await other.locator('[data-testid="log-counts"]').textContent()).toBe(counts);
    // the server keeps the lines no rule read apart from the trace: the node's raw lines are the same ones
    await other.locator('[data-testid="raw-line"]').first().waitFor();
    expect(await other.locator('[data-testid="raw-lines"]').textContent()).toBe(rawLines);
    await other.locator(`a[aria-label="trace of ${POD}"]`).click();
    await other.locator('[data-testid="pod-title"]', { hasText: POD }).waitFor();
    const steps = await stepThrough(other);
    expect(steps).toEqual(localSteps);
    expect(steps.length).toBeGreaterThan(20);
    for (const s of steps) expect(s.text, `line ${s.line}`).toBe(LINES[s.line - 1]?.replace(/\r$/, ''));
    await other.close();
    expect(problems).toEqual([]);
  }, 120_000);
});
