/**
 * P5c, the dashboard on a busy node: the node view at 5,000 pods (250 of them crash-looping on the simulated
 * node, run in a process of its own) while two CPU hogs (`node -e 'for(;;);'`, normal priority) hold both
 * cores, against a blank page measured in the same run under the same hogs. Measures, in the page's clock:
 * the first pod rows after the navigation starts, the node view's idle frame p95 (as a ratio to the blank
 * page's), each keystroke of a filter from the input event to the painted rows (median and p95), and on a
 * fresh load of a crash-looping pod's page its header and its timeline (each recorded in the page's own first
 * frame showing it), beside that page's floor: a fresh page showing one small answer of the same server.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '@syncscope/server';
import { CHROMIUM, launchChromium } from '@syncscope/test/support/browser';
import { median, p95 } from '@syncscope/test/support/stats';
import type { Browser, Page } from 'playwright-core';
import type { BenchOptions } from './lib/bench.ts';
import { BENCH_MAX_PODS, benchPod, waitAllRunning, waitForTrace } from './lib/engine.ts';
import { startFrames } from './lib/frames.ts';
import { ensureWebBuilt, spawnTsx } from './lib/spawn.ts';
import { type Row, row, skipped } from './lib/table.ts';

const SEARCH = 'crash-24';

/** Two busy loops at normal priority, one per core of the project's machines. */
function startHogs(n = 2): ChildProcess[] {
  return Array.from({ length: n }, () =>
    spawn(process.execPath, ['-e', 'for(;;);'], { stdio: 'ignore', detached: false }),
  );
}

/**
 * Records in the page, from its document's start, the page's clock in the first frame where each selector of
 * `sels` is in the document (read by `recordedFrames`). Read there, neither the load event nor the round
 * trip of a poll from this process (both slow under the hogs) can delay the reading past the frame itself.
 */
async function recordFirstFrames(page: Page, sels: Record<string, string>): Promise<void> {
  // a string, not a function: tsx's helpers (__name) do not exist in the page
  await page.addInitScript(`(() => {
    const sels = ${JSON.stringify(sels)};
    const seen = (window.__firstFrames = {});
    const tick = () => {
      for (const k in sels) if (seen[k] === undefined && document.querySelector(sels[k])) seen[k] = performance.now();
      if (Object.keys(seen).length < Object.keys(sels).length) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  })()`);
}

/** The frames `recordFirstFrames` recorded, once every selector has been seen. */
async function recordedFrames(page: Page, n: number, timeout: number): Promise<Record<string, number>> {
  const seen = await page.waitForFunction(
    (count) => {
      const got = (window as unknown as { __firstFrames?: Record<string, number> }).__firstFrames ?? {};
      return Object.keys(got).length >= count ? got : null;
    },
    n,
    { timeout, polling: 'raf' },
  );
  return (await seen.jsonValue()) as Record<string, number>;
}

/**
 * The pod page's floor under the same hogs: a fresh page whose document is one small answer of the same
 * server (the pod's row, as JSON), to its first frame with that text. One request through the server's busy
 * event loop and one paint: no page can show the pod sooner.
 */
async function firstAnswerFrame(browser: Browser, base: string): Promise<number> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  await recordFirstFrames(page, { answer: 'body pre' });
  await page.goto(`${base}/api/v1/node/rows?namespace=default&name=crash-1`, { waitUntil: 'commit' });
  const { answer } = await recordedFrames(page, 1, 60_000);
  await page.close();
  return answer ?? Number.NaN;
}

/** Each keystroke of `text` typed into the focused input: input event to the painted frame after it. */
async function keystrokes(page: Page, text: string): Promise<number[]> {
  const out: number[] = [];
  for (const ch of text) {
    await page.evaluate(`new Promise((resolve) => {
      document.addEventListener('input', () => {
        const t0 = performance.now();
        requestAnimationFrame(() => {
          const c = new MessageChannel();
          c.port1.onmessage = () => { window.__keyMs = performance.now() - t0; };
          c.port2.postMessage(0);
        });
      }, { once: true, capture: true });
      window.__keyMs = undefined;
      resolve(undefined);
    })`);
    await page.keyboard.type(ch);
    const ms = await page.waitForFunction(() => (window as unknown as { __keyMs?: number }).__keyMs);
    out.push((await ms.jsonValue()) as number);
  }
  return out;
}

async function idleP95(page: Page, ms: number): Promise<number> {
  const stop = await startFrames(page);
  await new Promise((r) => setTimeout(r, ms)); // the measured window itself
  return p95((await stop()).slice(1));
}

export async function run(o: BenchOptions): Promise<Row[]> {
  if (!existsSync(CHROMIUM)) return [skipped('P5c', 'dashboard on a busy node', `${CHROMIUM} missing`)];
  const nPods = o.smoke ? 100 : 5_000;
  const nCrash = o.smoke ? 10 : 250;
  const windowMs = o.smoke ? 500 : 3_000;
  ensureWebBuilt(o.smoke);
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-bench-p5c-'));
  const sim = await spawnTsx('bench/lib/sim-node-proc.ts', [join(dir, 'sim.sock')], 'ready ');
  const endpoint = sim.ready.slice('ready '.length).trim();
  const built = await buildApp({
    dataDir: join(dir, 'data'),
    examples: false,
    logger: false,
    runtimeEndpoint: endpoint,
    config: { maxPods: BENCH_MAX_PODS, podLogsDirectory: join(dir, 'pods') },
  });
  const browser = await launchChromium();
  let hogs: ChildProcess[] = [];
  try {
    const sleepers = Array.from({ length: nPods - nCrash }, (_, i) => benchPod(`idle-${i + 1}`, built.clock));
    const crashers = Array.from({ length: nCrash }, (_, i) =>
      benchPod(`crash-${i + 1}`, built.clock, { script: 'echo boom; exit 1' }),
    );
    const running = waitAllRunning(
      built.trace,
      sleepers.map((p) => p.metadata.uid as string),
      900_000,
    );
    const t0 = performance.now();
    for (const p of [...sleepers, ...crashers]) built.engine.addPod(p);
    await running;
    const crashUIDs = new Set(crashers.map((p) => p.metadata.uid as string));
    const died = new Set<string>();
    await waitForTrace(
      built.trace,
      'every crash-looping pod to have died once',
      (ev) => {
        if (ev?.type === 'pleg.event' && ev.event === 'ContainerDied' && crashUIDs.has(ev.podUID))
          died.add(ev.podUID);
        return died.size === crashUIDs.size;
      },
      300_000,
    );
    o.log(`${nPods} pods up, ${nCrash} crash-looping, in ${Math.round(performance.now() - t0)} ms`);
    const base = await built.app.listen({ port: 0, host: '127.0.0.1' });

    // the smoke run shares the machine with the test suite: it proves the path, without hogs
    hogs = o.smoke ? [] : startHogs();
    const blank = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await blank.goto('about:blank');
    const blankP95 = await idleP95(blank, windowMs);
    await blank.close();

    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await recordFirstFrames(page, { rows: '[data-testid="pod-row-crash-1"]' });
    await page.goto(`${base}/#/`, { waitUntil: 'commit' });
    const { rows: firstRows = Number.NaN } = await recordedFrames(page, 1, 120_000);
    await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 60_000 });
    const nodeP95 = await idleP95(page, windowMs);
    await page.locator('[data-testid="pod-search"]').focus();
    const keys = await keystrokes(page, SEARCH);
    await page.close();

    const floor = await firstAnswerFrame(browser, base);
    const pod = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await recordFirstFrames(pod, {
      header: '[data-testid="pod-title"]',
      timeline: '[data-testid="timeline"] svg',
    });
    await pod.goto(`${base}/#/pods/default/crash-1`, { waitUntil: 'commit' });
    const { header = Number.NaN, timeline = Number.NaN } = await recordedFrames(pod, 2, 120_000);
    await pod.close();
    o.log(
      `${o.smoke ? 'smoke, no hogs' : 'under two hogs'}: blank p95 ${blankP95.toFixed(1)} ms; first rows ${Math.round(firstRows)} ms, idle p95 ` +
        `${nodeP95.toFixed(1)} ms, keys ${keys.map((k) => k.toFixed(0)).join('/')} ms; pod header ` +
        `${Math.round(header)} ms, timeline ${Math.round(timeline)} ms (a small answer of the server: ${Math.round(floor)} ms)`,
    );
    const label = `${nPods} pods, ${nCrash} crash-looping, both cores hogged`;
    return [
      row({
        bench: 'P5c',
        metric: `node view: first rows after navigation start (${label})`,
        value: firstRows,
        unit: 'ms',
        target: { op: '<=', bound: 1000, on: 'value' },
      }),
      row({
        bench: 'P5c',
        metric: `node view: idle frame p95, vs a blank page under the same hogs (${label})`,
        value: nodeP95,
        floor: blankP95,
        unit: 'ms',
        target: { op: '<=', bound: 1.5, on: 'ratio' },
      }),
      row({
        bench: 'P5c',
        metric: `node view: filter, input to painted rows, median per keystroke (${keys.length} keys)`,
        value: median(keys),
        unit: 'ms',
        target: { op: '<=', bound: 50, on: 'value' },
      }),
      row({
        bench: 'P5c',
        metric: 'node view: filter, input to painted rows, p95 per keystroke',
        value: p95(keys),
        unit: 'ms',
        target: { op: '<=', bound: 100, on: 'value' },
      }),
      row({
        bench: 'P5c',
        metric: 'pod page (fresh load, a crash-looping pod): header',
        value: header,
        unit: 'ms',
        target: { op: '<=', bound: 500, on: 'value' },
      }),
      row({
        bench: 'P5c',
        metric:
          'pod page floor: a fresh page showing one small answer of the same server (the pod’s row as JSON), to its first frame',
        value: floor,
        unit: 'ms',
      }),
      row({
        bench: 'P5c',
        metric: 'pod page (fresh load, a crash-looping pod): timeline',
        value: timeline,
        unit: 'ms',
        target: { op: '<=', bound: 1000, on: 'value' },
      }),
    ];
  } finally {
    for (const h of hogs) h.kill('SIGKILL');
    await browser.close();
    await built.close();
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
