/**
 * A replay of a real kubelet log states only what the log said. Each log of the importer's test data
 * (packages/core/src/kubelet-log/testdata) is opened in the dashboard, and also sample 03 cut just after its
 * back-off line (the log as a kubelet had written it by then, its pod in CrashLoopBackOff at the log's end):
 * - each pod the log leaves in a container back-off (a back-off line after its last start, not removed) reads
 *   `CrashLoopBackOff` in the pods table (or `Error`, as kubectl says between a death and its back-off line),
 *   and searching `CrashLoop` finds it;
 * - the node page and a pod page say nothing the log cannot tell: no "live", "runtime ready" or "healthy"
 *   (whole words, any case; the log's own lines and Events, shown as they are, aside) and no "0 ms" (a
 *   duration the log did not state);
 * - a crash-looping pod reads RESTARTS as the kubelet counts them (the deaths the log shows after the first
 *   start, less the one in back-off), marked inferred; its page has the back-off inspector with the log's
 *   ladder of delays and the death (line, exit code) that opened the window.
 * Screenshots of the cut log's node page, pod page and back-off inspector at 1280 and 1920 px, light and dark,
 * into $SHOTS (default test-results/replay-truth).
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importKubeletLog } from '@syncscope/core/kubelet-log';
import type { TraceEvent } from '@syncscope/core/trace';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dashboard, RESULTS, ROOT, startDashboard } from '../support/browser.ts';

const DATA = join(ROOT, 'packages/core/src/kubelet-log/testdata');
const LOGS = readdirSync(DATA).filter((f) => f.endsWith('.log'));
const SHOTS = process.env.SHOTS ?? join(RESULTS, 'replay-truth');
const CRASHLOOP_LOG = '03-v1.31-openshift-journald-v2-static-pods-probes-crashloop.log';
const CRASHLOOP_POD = 'openshift-cluster-version/bootstrap-cluster-version-operator-localhost.localdomain';

/** Words a replay never says unless its source did, and a duration no log states. */
const UNSTATED = [/\blive\b/i, /\bruntime ready\b/i, /\bhealthy\b/i, /\b0 ms\b/];

let dash: Dashboard;
const problems: string[] = [];

beforeAll(async () => {
  dash = await startDashboard({ examples: false });
  mkdirSync(SHOTS, { recursive: true });
});

afterAll(async () => {
  await dash?.close();
});

/**
 * The pods a log leaves crash-looping, read from the importer's events without the web's reducer: a
 * container back-off line after the pod's last ContainerStarted, and the pod not REMOVEd after it.
 */
function crashLooping(events: readonly TraceEvent[]): string[] {
  const last = new Map<string, { backoff: number; started: number; removed: boolean }>();
  for (const ev of events) {
    if (!('pod' in ev) || !ev.pod) continue;
    const p = last.get(ev.pod) ?? { backoff: -1, started: -1, removed: false };
    if (ev.type === 'backoff' && ev.kind === 'container') p.backoff = ev.seq;
    else if (ev.type === 'pleg.event' && ev.event === 'ContainerStarted') p.started = ev.seq;
    else if (ev.type === 'config.update')
      p.removed = ev.op === 'REMOVE' ? true : ev.op === 'ADD' ? false : p.removed;
    last.set(ev.pod, p);
  }
  return [...last].filter(([, p]) => p.backoff > p.started && !p.removed).map(([pod]) => pod);
}

async function openLog(name: string, text: string, width = 1280): Promise<Page> {
  // the log's stamps are read as UTC (no zone in them): the page shows them in UTC too
  const page = await dash.browser.newPage({ viewport: { width, height: 1000 }, timezoneId: 'UTC' });
  page.on('pageerror', (err) => problems.push(`${name}: page error: ${err.message}`));
  await page.goto(`${dash.baseUrl}/#/`);
  await page.locator('[data-testid="open-log"]').setInputFiles({
    name,
    mimeType: 'text/plain',
    buffer: Buffer.from(text),
  });
  await page.locator('[data-testid="log-banner"]').waitFor({ timeout: 30_000 });
  await page.locator('[data-testid="node-health"]').waitFor();
  return page;
}

/**
 * The page's words, less the log's own: its raw lines, the step's log line, and the events table's log.raw and
 * k8s.event rows (what the kubelet wrote, shown as written).
 */
function pageWords(page: Page): Promise<string> {
  return page.evaluate(() => {
    const main = document.querySelector('main') as HTMLElement;
    const own = [
      ...main.querySelectorAll<HTMLElement>(
        '[data-testid="raw-lines"], [data-testid="step-log"], [data-testid="log-lines"]',
      ),
      ...[...main.querySelectorAll<HTMLElement>('tr[data-testid^="event-row-"]')].filter((tr) =>
        ['log.raw', 'k8s.event'].includes(tr.children[2]?.textContent ?? ''),
      ),
    ];
    for (const el of own) el.style.display = 'none';
    // biome-ignore lint/performance/useDomNodeTextContent: the words as shown (hidden ones left out, cells apart)
    const text = main.innerText;
    for (const el of own) el.style.display = '';
    return text;
  });
}

async function expectNothingUnstated(page: Page, where: string): Promise<void> {
  const text = await pageWords(page);
  for (const re of UNSTATED) expect(re.exec(text)?.[0], `${where}: ${re}`).toBeUndefined();
}

async function statusOf(page: Page, pod: string): Promise<string> {
  const name = pod.slice(pod.indexOf('/') + 1);
  return (await page.locator(`[data-testid="pod-row-${name}"] td.status`).textContent()) ?? '';
}

/** The log's own words about the crash-looping pod: the lines of its deaths, and its back-off delays. */
function crashLoopFacts(text: string) {
  const lines = text.split('\n');
  const lineOf = (re: RegExp) => lines.flatMap((l, i) => (re.test(l) ? [i + 1] : []));
  const deaths = lineOf(/container finished" podID="aba17767\S+ containerID="\w+" exitCode=/);
  const delays = [
    ...text.matchAll(/back-off (\S+) restarting failed container=cluster-version-operator/g),
  ].map((m) => m[1]);
  return { deaths, delays };
}

/** The back-off inspector's ladder, death and outcome as shown. */
async function inspectorShows(page: Page) {
  const inspector = page.locator('[data-testid="backoff-inspector"]');
  await inspector.waitFor();
  return {
    ladder: await inspector
      .locator('[data-testid="backoff-ladder"] [data-delay]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-delay'))),
    death: (await inspector.locator('[data-testid="backoff-death"]').textContent()) ?? '',
    outcome: await inspector.locator('[data-testid="backoff-outcome"]').getAttribute('data-outcome'),
  };
}

async function openPod(page: Page, pod: string): Promise<void> {
  await page.locator(`a[aria-label="trace of ${pod}"]`).click();
  await page.locator('[data-testid="pod-title"]', { hasText: pod }).waitFor();
}

/** The crash-looping pods read CrashLoopBackOff (or Error) and searching CrashLoop finds each of them. */
async function expectCrashLoops(page: Page, pods: string[]): Promise<void> {
  for (const pod of pods) expect(await statusOf(page, pod), pod).toMatch(/^(CrashLoopBackOff|Error)$/);
  const search = page.locator('[data-testid="pod-search"]');
  await search.fill('CrashLoop');
  const shown = await page
    .locator('tr[data-testid^="pod-row-"]')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-testid')?.slice('pod-row-'.length)));
  for (const pod of pods) {
    if ((await statusOf(page, pod)) === 'CrashLoopBackOff')
      expect(shown, pod).toContain(pod.slice(pod.indexOf('/') + 1));
  }
  await search.fill('');
}

describe('a kubelet log replayed says only what the log said', () => {
  for (const name of LOGS) {
    it(name, async () => {
      const text = readFileSync(join(DATA, name), 'utf8');
      const { events } = importKubeletLog(text);
      const page = await openLog(name, text);
      await expectNothingUnstated(page, `${name}, node page`);
      expect(await page.locator('[data-testid="pleg-health"]').textContent()).toContain(
        'PLEG health: not in the log',
      );
      expect(await page.locator('[data-testid="runtime-health"]').textContent()).toBe(
        'runtime status: not in the log',
      );
      await expectCrashLoops(page, crashLooping(events));
      // a pod's page: the crash-looping one, else the first pod the table lists
      const links = page.locator('a[aria-label^="trace of "]');
      if ((await links.count()) > 0) {
        const pod = (await links.first().getAttribute('aria-label'))?.slice('trace of '.length) ?? '';
        await openPod(page, name === CRASHLOOP_LOG ? CRASHLOOP_POD : pod);
        await page.locator('[data-testid="step-panel"]').waitFor();
        await expectNothingUnstated(page, `${name}, pod page`);
        expect(await page.locator('[data-testid="step-position"]').textContent()).not.toMatch(/live/);
      }
      await page.close();
      expect(problems).toEqual([]);
    }, 120_000);
  }

  it("a graceful delete (sample 01): the worker's states its lines imply, the grace deadline, the pod's name kept", async () => {
    const name = '01-v1.17-windows-glog-v4-full-lifecycle.log';
    const pod = 'gcp-filestore-csi-driver/gcp-filestore-csi-node-glfr9';
    const page = await openLog(name, readFileSync(join(DATA, name), 'utf8'));
    // REMOVEd: not in the table, listed as deleted; its page keeps its name and last state
    await page.locator('[data-testid="deleted-gcp-filestore-csi-node-glfr9"] a').click();
    await page.locator('[data-testid="pod-title"]', { hasText: pod }).waitFor();
    await page.locator('[data-testid="pod-gone"]').waitFor();
    // the kubelet's own last word on the worker (line 375: Forgotten) after the inferred ones
    expect(await page.locator('[data-testid="pod-worker"]').getAttribute('data-basis')).toBe('stated');
    expect(await page.locator('[data-testid="pod-worker"]').textContent()).toMatch(/^Forgotten since /);
    // "Killing container … with 30 second grace period" at 21:10:40 (line 200)
    expect(await page.locator('[data-testid="pod-grace"]').textContent()).toBe(
      '30s from 21:10:40, deadline 21:11:10',
    );
    const bands = await page
      .locator('[data-testid="worker-band"] rect')
      .evaluateAll((rs) =>
        rs.map((r) => `${r.getAttribute('data-state')}${r.getAttribute('data-inferred') ? '*' : ''}`),
      );
    expect(bands).toEqual(['SyncPod*', 'TerminatingPod*', 'TerminatedPod*', 'Finished*', 'Forgotten']);
    await page.locator('[data-testid="grace-deadline"]').waitFor();
    await expectNothingUnstated(page, `${name}, deleted pod page`);
    await page.screenshot({ path: join(SHOTS, 'deleted-pod-1280-light.png'), fullPage: true });
    await page.close();
    expect(problems).toEqual([]);
  }, 120_000);

  it('a log cut after a back-off line: CrashLoopBackOff, found by search, the inspector; screenshots', async () => {
    const full = readFileSync(join(DATA, CRASHLOOP_LOG), 'utf8');
    const backoff = importKubeletLog(full).events.find(
      (e) => e.type === 'backoff' && e.pod === CRASHLOOP_POD,
    );
    const line = backoff?.origin?.line ?? 0;
    expect(line).toBeGreaterThan(0);
    const text = `${full.split('\n').slice(0, line).join('\n')}\n`;
    expect(crashLooping(importKubeletLog(text).events)).toEqual([CRASHLOOP_POD]);

    for (const scheme of ['light', 'dark'] as const) {
      for (const width of [1280, 1920]) {
        const page = await openLog(CRASHLOOP_LOG, text, width);
        await page.emulateMedia({ colorScheme: scheme });
        await expectCrashLoops(page, [CRASHLOOP_POD]);
        expect(await statusOf(page, CRASHLOOP_POD)).toBe('CrashLoopBackOff');
        // RESTARTS: the deaths the cut log shows after the first start, less the one in back-off (the
        // kubelet counts a restart when it creates the next instance), inferred and marked so
        const f = crashLoopFacts(text);
        expect(f.deaths.length).toBe(2);
        const restarts = page.locator(
          `[data-testid="pod-row-${CRASHLOOP_POD.slice(CRASHLOOP_POD.indexOf('/') + 1)}"] [data-testid="cell-restarts"]`,
        );
        expect(await restarts.textContent()).toMatch(new RegExp(`^${f.deaths.length - 1}\\b`));
        expect(await restarts.getAttribute('data-basis')).toBe('inferred');
        await expectNothingUnstated(page, 'cut log, node page');
        await page.screenshot({ path: join(SHOTS, `node-${width}-${scheme}.png`), fullPage: true });
        await openPod(page, CRASHLOOP_POD);
        const inspector = page.locator('[data-testid="backoff-inspector"]');
        await inspector.waitFor();
        expect(await page.locator('[data-testid="pod-status"]').textContent()).toBe('CrashLoopBackOff');
        // the ladder is the log's delays; the death that opened the window is the last one, exit 0 stated
        const shown = await inspectorShows(page);
        expect(shown.ladder).toEqual(f.delays);
        expect(shown.death).toMatch(new RegExp(`\\(line ${f.deaths.at(-1)}\\), exit 0$`));
        expect(shown.outcome).toBe('ends-inside');
        await expectNothingUnstated(page, 'cut log, pod page');
        await page.screenshot({ path: join(SHOTS, `pod-${width}-${scheme}.png`), fullPage: true });
        await inspector.screenshot({ path: join(SHOTS, `backoff-${width}-${scheme}.png`) });
        await page.close();
      }
    }
    expect(problems).toEqual([]);
  }, 240_000);
});
