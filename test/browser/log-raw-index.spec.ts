/**
 * A real kubelet log opened in the dashboard from the file input, not uploaded: the page's parse worker sends
 * the lines no rule reads as raw-line records (the records a server import keeps), never as log.raw events, and
 * the page reads each one's text back from the file. The node page's raw lines are searched: a line deep in the
 * log, past the 200 the panel shows, is found with its line number. Then the same log uploaded (Share) and
 * opened from the server: the same counts, raw lines, search result, node names and pod steps, a raw step among
 * them. The log gzip-compressed (its records point into the text the worker inflates) reads the same. A log of
 * several kubelets gives each node the same name and counts both ways; the log pasted in two blocks out of time
 * order is parsed again in time order by the worker, as by the server: the same events and pod steps. Screenshots of the search at 1280 and
 * 1920 px, light and dark, into $SHOTS.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { importKubeletLog } from '@syncscope/core/kubelet-log';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dashboard, RESULTS, ROOT, startDashboard } from '../support/browser.ts';

const NAME = '03-v1.31-openshift-journald-v2-static-pods-probes-crashloop.log';
const TEXT = readFileSync(join(ROOT, 'packages/core/src/kubelet-log/testdata', NAME), 'utf8');
const FLEET = readFileSync(join(ROOT, 'packages/core/src/pod-state/testdata/fleet.log'), 'utf8');
const POD = 'openshift-cluster-version/bootstrap-cluster-version-operator-localhost.localdomain';
/** an unread line near the log's end: the search must find it, the panel's first 200 do not hold it */
const KNOWN = { line: 843, text: "Docker config file not found: couldn't find valid .dockercfg" };
const SHOTS = process.env.SHOTS ?? join(RESULTS, 'log-raw-index');

let dash: Dashboard;
const problems: string[] = [];

/** What the page's parse worker posted: its events, the log.raw events among them, its raw-line records. */
interface Posted {
  events: number;
  raw: number;
  records: number;
  restarts: number;
}

/** Counts what every Worker of the page posts to it, before the page's own scripts run. */
function countWorkerPosts(): void {
  const w = window as unknown as { __posted: Posted };
  w.__posted = { events: 0, raw: 0, records: 0, restarts: 0 };
  const Base = window.Worker;
  window.Worker = class extends Base {
    constructor(url: string | URL, opts?: WorkerOptions) {
      super(url, opts);
      this.addEventListener('message', (e: MessageEvent) => {
        const m = e.data as { type?: string; events?: { type: string }[]; raws?: unknown };
        if (m?.type === 'restart') w.__posted.restarts++;
        if (m?.type !== 'events' || !m.events) return;
        w.__posted.events += m.events.length;
        w.__posted.raw += m.events.filter((ev) => ev.type === 'log.raw').length;
        if (typeof m.raws === 'string')
          w.__posted.records += m.raws.split('\n').filter((l) => l !== '').length;
      });
    }
  };
}

async function newPage(width = 1280): Promise<Page> {
  const page = await dash.browser.newPage({ viewport: { width, height: 1000 }, timezoneId: 'UTC' });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  await page.addInitScript(countWorkerPosts);
  return page;
}

async function openFile(name: string, buffer: Buffer, width = 1280): Promise<Page> {
  const page = await newPage(width);
  await page.goto(`${dash.baseUrl}/#/`);
  await page.locator('[data-testid="open-log"]').setInputFiles({ name, mimeType: 'text/plain', buffer });
  await page.locator('[data-testid="log-banner"]').waitFor({ timeout: 60_000 });
  return page;
}

const posted = (page: Page) => page.evaluate(() => (window as unknown as { __posted: Posted }).__posted);
const text = async (page: Page, id: string) =>
  (await page.locator(`[data-testid="${id}"]`).textContent()) ?? '';

/** The node page's raw lines as shown, and what a search for `q` shows. */
async function rawView(page: Page, q: string): Promise<{ all: string; count: string; found: string[] }> {
  await page.locator('[data-testid="raw-line"]').first().waitFor();
  const all = await text(page, 'raw-lines');
  await page.locator('[data-testid="raw-search"]').fill(q);
  await page.locator('[data-testid="raw-count"]').waitFor();
  await expect.poll(() => page.locator('[data-testid="raw-line"]').count()).toBeLessThan(200);
  const count = await text(page, 'raw-count');
  const found = await page.locator('[data-testid="raw-line"]').allTextContents();
  await page.locator('[data-testid="raw-search"]').fill('');
  return { all, count, found };
}

/** Every step of `pod`: the event's words, its line, the line's label and text. */
async function podSteps(page: Page, pod: string): Promise<string[]> {
  await page.locator(`a[aria-label="trace of ${pod}"]`).click();
  await page.locator('[data-testid="pod-title"]', { hasText: pod }).waitFor();
  await page.locator('[data-testid="step-first"]').click();
  const out: string[] = [];
  for (let i = 0; i < 400; i++) {
    const log = page.locator('[data-testid="step-log"]');
    const line = (await log.getAttribute('data-line')) ?? '';
    await page.waitForFunction(
      () => !document.querySelector('[data-testid="step-log"] pre')?.textContent?.startsWith('…'),
    );
    out.push(
      `${await text(page, 'step-event')} | ${await log.locator('span').first().textContent()} | ${await log.locator('pre').textContent()}`,
    );
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

/** Shares the log opened in `page` (uploads it), closes `page`, and opens the shared copy on a new page. */
async function shared(page: Page): Promise<Page> {
  await page.locator('[data-testid="log-share"]').click();
  const link = page.locator('[data-testid="log-share-link"]');
  await link.waitFor({ timeout: 60_000 });
  const href = (await link.getAttribute('href')) ?? '';
  await page.close();
  const other = await newPage();
  await other.goto(href);
  await other.locator('[data-testid="log-banner"]').waitFor({ timeout: 60_000 });
  return other;
}

beforeAll(async () => {
  dash = await startDashboard({ examples: false });
  mkdirSync(SHOTS, { recursive: true });
});

afterAll(async () => {
  await dash?.close();
});

describe('a log opened in the page keeps its unread lines as the raw-line index', () => {
  const want = importKubeletLog(TEXT).events.filter((e) => e.type === 'log.raw').length;

  it('the worker sends records, not log.raw events; search finds an unread line; the server import is the same', async () => {
    const page = await openFile(NAME, Buffer.from(TEXT));
    const sent = await posted(page);
    expect(sent.raw).toBe(0);
    expect(sent.records).toBe(want);
    expect(sent.events).toBeGreaterThan(100);
    const counts = await text(page, 'log-counts');
    expect(counts).toContain(`${want + sent.events} events`);
    const local = await rawView(page, 'dockercfg');
    expect(local.all).not.toContain(KNOWN.text);
    expect(local.count).toMatch(/^1 of \d+ lines$/);
    expect(local.found).toHaveLength(1);
    expect(local.found[0]).toContain(`${KNOWN.line} ${KNOWN.text}`);
    const localSteps = await podSteps(page, POD);
    expect(localSteps.some((s) => s.includes(' · kept raw'))).toBe(true);

    const other = await shared(page);
    expect(await text(other, 'log-counts')).toBe(counts);
    expect(await rawView(other, 'dockercfg')).toEqual(local);
    expect(await podSteps(other, POD)).toEqual(localSteps);
    await other.close();

    // gzip: the records' offsets are in the text the worker inflates, read once it is sent
    const gz = await openFile(`${NAME}.gz`, gzipSync(TEXT));
    expect((await posted(gz)).raw).toBe(0);
    expect(await text(gz, 'log-counts')).toBe(counts);
    expect(await rawView(gz, 'dockercfg')).toEqual(local);
    await gz.close();
    expect(problems).toEqual([]);
  }, 300_000);

  it('a log of several kubelets: each node named and counted the same as from the server', async () => {
    const page = await openFile('fleet.log', Buffer.from(FLEET));
    expect((await posted(page)).raw).toBe(0);
    const nodes = await page.locator('[data-testid="log-node"] option').allTextContents();
    expect(nodes.length).toBeGreaterThan(3);
    const counts = await text(page, 'log-counts');
    const other = await shared(page);
    expect(await text(other, 'log-counts')).toBe(counts);
    expect(await other.locator('[data-testid="log-node"] option').allTextContents()).toEqual(nodes);
    await other.close();
    expect(problems).toEqual([]);
  }, 120_000);

  it('a log pasted in blocks out of time order: parsed again in time order, the same as from the server', async () => {
    const lines = TEXT.split('\n').filter((l) => l !== '');
    const cut = lines.findIndex((l) => l.startsWith('May 12 05:19:09'));
    const blocks = `${[...lines.slice(cut), ...lines.slice(0, cut)].join('\n')}\n`;
    const merged = importKubeletLog(blocks);
    expect(merged.summary.blocks).toBe(2);
    const page = await openFile('blocks.log', Buffer.from(blocks));
    const sent = await posted(page);
    expect([sent.raw, sent.restarts]).toEqual([0, 1]);
    const counts = await text(page, 'log-counts');
    expect(counts).toContain(`${merged.events.length} events`);
    const raws = await rawView(page, 'dockercfg');
    expect(raws.found[0]).toContain(`${KNOWN.line - cut} ${KNOWN.text}`);
    const steps = await podSteps(page, POD);
    const other = await shared(page);
    expect(await text(other, 'log-counts')).toBe(counts);
    expect(await rawView(other, 'dockercfg')).toEqual(raws);
    expect(await podSteps(other, POD)).toEqual(steps);
    await other.close();
    expect(problems).toEqual([]);
  }, 180_000);

  it('screenshots of the search', async () => {
    for (const scheme of ['light', 'dark'] as const)
      for (const width of [1280, 1920]) {
        const page = await openFile(NAME, Buffer.from(TEXT), width);
        await page.emulateMedia({ colorScheme: scheme });
        await page.locator('[data-testid="raw-search"]').fill('dockercfg');
        await page.locator('[data-testid="raw-count"]').waitFor();
        await page.locator('[data-testid="raw-lines"]').scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(SHOTS, `raw-search-${width}-${scheme}.png`), fullPage: true });
        await page.close();
      }
    expect(problems).toEqual([]);
  }, 240_000);
});
