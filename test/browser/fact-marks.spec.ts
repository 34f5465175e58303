/**
 * How a replay draws what its log did not state. A real kubelet log (sample 01, a pod's whole life to its
 * graceful delete) is opened in the dashboard and the pod's page read: each fact of the header (STATUS, phase, READY,
 * RESTARTS, the worker's state) has the basis core's reducer gives it from the same log; an inferred one is
 * drawn apart (italic, a dotted underline) and its title is "inferred: " and the kubelet rule core names
 * (RULES), a stated one is drawn plain and its title names the line that stated it. The step list marks the
 * events the importer inferred (a container's start the log shows only dying) the same way, with core's rule,
 * and no event the log stated. Both kinds appear on the page, so the test fails if either loses its drawing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importKubeletLog } from '@syncscope/core/kubelet-log';
import { type Fact, PodStateReducer, RULES } from '@syncscope/core/pod-state';
import { podUIDOf, type TraceEvent } from '@syncscope/core/trace';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dashboard, ROOT, startDashboard } from '../support/browser.ts';

const DATA = join(ROOT, 'packages/core/src/kubelet-log/testdata');
const LOG = '01-v1.17-windows-glog-v4-full-lifecycle.log';
/** deleted and removed in the log: its page is reached from the node page's list of deleted pods */
const POD = 'gcp-filestore-csi-driver/gcp-filestore-csi-node-glfr9';
const NAMED_RULES = new Set<string>(Object.values(RULES));

let dash: Dashboard;
const problems: string[] = [];

beforeAll(async () => {
  dash = await startDashboard({ examples: false });
});

afterAll(async () => {
  await dash?.close();
});

/** How an element is drawn: its basis attribute, its classes, its font style, underline and title. */
function drawing(page: Page, selector: string) {
  return page.locator(selector).evaluate((el) => {
    const css = getComputedStyle(el);
    return {
      basis: el.getAttribute('data-basis'),
      inferredClass: el.classList.contains('fact-inferred'),
      italic: css.fontStyle === 'italic',
      dotted: css.textDecorationLine.includes('underline') && css.textDecorationStyle === 'dotted',
      title: el.getAttribute('title') ?? '',
    };
  });
}

type Drawing = Awaited<ReturnType<typeof drawing>>;

/** An inferred fact: drawn apart, titled with the rule that inferred it; a stated one: plain. */
function expectDrawn(d: Drawing, f: Fact<unknown>, where: string): void {
  expect(d.basis, where).toBe(f.basis);
  if (f.basis === 'inferred') {
    expect(NAMED_RULES.has(f.rule), `${where}: a rule core names`).toBe(true);
    expect(d, where).toMatchObject({ inferredClass: true, italic: true, dotted: true });
    expect(d.title.startsWith(`inferred: ${f.rule}`), `${where}: ${d.title}`).toBe(true);
  } else {
    expect(d, where).toMatchObject({ inferredClass: false, italic: false, dotted: false });
    if (f.basis === 'stated') expect(d.title, where).toMatch(/^stated \((line|event) \d+\)$/);
  }
}

describe('a replay draws inferred facts apart, naming their rule, and stated ones plain', () => {
  it(`${LOG}: the pod page's header and step list`, async () => {
    const text = readFileSync(join(DATA, LOG), 'utf8');
    const { events } = importKubeletLog(text);
    const uid = podUIDOf(events.find((e) => 'pod' in e && e.pod === POD) as TraceEvent) as string;
    const s = new PodStateReducer().addAll(events).snapshot(uid);
    expect(s).toBeDefined();
    if (!s) return;
    const header: [string, Fact<unknown>][] = [
      ['pod-status', s.statusWord],
      ['pod-phase', s.phase],
      ['pod-ready', s.ready],
      ['pod-restarts', s.restarts],
      ['pod-worker', s.worker],
    ];
    // the log states some of them and infers others: both drawings are checked
    expect(header.some(([, f]) => f.basis === 'inferred')).toBe(true);
    expect(header.some(([, f]) => f.basis === 'stated')).toBe(true);
    const inferredEvents = events.filter((e) => e.inferred && podUIDOf(e) === uid);
    const statedEvents = events.filter((e) => !e.inferred && podUIDOf(e) === uid);
    expect(inferredEvents.length).toBeGreaterThan(0);
    expect(statedEvents.length).toBeGreaterThan(0);

    const page = await dash.browser.newPage({ viewport: { width: 1280, height: 1000 }, timezoneId: 'UTC' });
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    await page.goto(`${dash.baseUrl}/#/`);
    await page.locator('[data-testid="open-log"]').setInputFiles({
      name: LOG,
      mimeType: 'text/plain',
      buffer: Buffer.from(text),
    });
    await page.locator('[data-testid="log-banner"]').waitFor({ timeout: 30_000 });
    await page.locator(`[data-testid="deleted-${POD.slice(POD.indexOf('/') + 1)}"] a`).click();
    await page.locator('[data-testid="pod-title"]', { hasText: POD }).waitFor();
    await page.locator('[data-testid="events-table"]').waitFor({ timeout: 30_000 });

    for (const [testid, fact] of header)
      expectDrawn(await drawing(page, `[data-testid="${testid}"]`), fact, testid);

    // the step list: each event's WHAT cell, inferred ones by the importer's rule (core's words)
    const what = (seq: number) => `[data-testid="event-row-${seq}"] td:nth-child(4)`;
    for (const ev of inferredEvents) {
      const d = await drawing(page, what(ev.seq));
      expect(d, `event ${ev.seq}`).toMatchObject({ inferredClass: true, italic: true, dotted: true });
      expect(d.title, `event ${ev.seq}`).toBe(`inferred: ${RULES.startedBeforeDeath}`);
    }
    const shown = await page
      .locator('[data-testid="events-table"] tr[data-seq]')
      .evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-seq'))));
    const stated = statedEvents.filter((e) => shown.includes(e.seq));
    expect(stated.length).toBeGreaterThan(0);
    for (const ev of stated) {
      const d = await drawing(page, what(ev.seq));
      expect(d, `event ${ev.seq} (${ev.type})`).toMatchObject({
        inferredClass: false,
        italic: false,
        dotted: false,
        title: '',
      });
    }
    await page.close();
    expect(problems).toEqual([]);
  }, 120_000);
});
