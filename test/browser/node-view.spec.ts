import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dashboard, RESULTS, startDashboard, WEB_DIST } from '../support/browser.ts';

const dist = WEB_DIST;

let dash: Dashboard;
let page: Page;
let baseUrl: string;
let staticServer: Server | undefined;
const pageErrors: string[] = [];

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
};

/** The built app alone: every /api request is a 404, the WebSocket has nowhere to go. */
async function serveDist(): Promise<string> {
  staticServer = createServer((req, res) => {
    const path = normalize(decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/'));
    const file = join(dist, path === '/' ? 'index.html' : path);
    if (!file.startsWith(dist) || path.startsWith('/api')) {
      res.writeHead(404).end();
      return;
    }
    readFile(file).then(
      (body) =>
        res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => staticServer?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(staticServer.address() as AddressInfo).port}/`;
}

/** A page of its own on the live node view: no test leans on where an earlier one left the page. */
async function openNode() {
  await page?.close();
  page = await dash.browser.newPage({ viewport: { width: 1400, height: 1000 }, acceptDownloads: true });
  page.on('pageerror', (err) => pageErrors.push(err.message));
  await page.goto(baseUrl);
  await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });
}

/** The example `file` created through the API under the name `name`. */
async function createExampleAs(file: string, name: string) {
  const examples = (await (await fetch(`${baseUrl}/api/v1/examples`)).json()) as {
    items: { file: string; yaml: string }[];
  };
  const yaml = (examples.items.find((e) => e.file === file)?.yaml ?? '').replace(
    /^(\s*)name: .*$/m,
    `$1name: ${name}`,
  );
  const res = await fetch(`${baseUrl}/api/v1/namespaces/default/pods`, {
    method: 'POST',
    headers: { 'content-type': 'application/yaml' },
    body: yaml,
  });
  expect(res.status).toBe(201);
}

async function applyExample(file: string) {
  await page.locator('[data-testid="apply-example"]').selectOption(file);
  await page.locator('[data-testid="apply-submit"]').click();
  await page.locator('[data-testid="apply-result"]').waitFor();
}

beforeAll(async () => {
  dash = await startDashboard({ examples: false });
  baseUrl = dash.baseUrl;
});

afterAll(async () => {
  await dash?.close();
  await new Promise((resolve) => (staticServer ? staticServer.close(resolve) : resolve(undefined)));
});

describe('node view', () => {
  it('shows the loop live and applies the crash-loop example through the editor', async () => {
    await openNode();
    await page.locator('[data-testid="runtime-health"]', { hasText: 'runtime ready' }).waitFor();
    await page.locator('[data-testid="pleg-health"]', { hasText: /PLEG healthy, last relist/ }).waitFor();
    // the 1 s sync ticker fills the sync lane
    await page.waitForFunction(
      () => Number(document.querySelector('[data-testid="loop-source-sync"]')?.textContent) >= 2,
      undefined,
      { timeout: 20_000 },
    );
    await page.locator('[data-testid="apply-editor"]').waitFor();

    await applyExample('crashloop.yaml');
    const row = page.locator('[data-testid="pod-row-crashloop"]');
    await row.locator('td.status', { hasText: /^(Error|CrashLoopBackOff)$/ }).waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(RESULTS, 'apply.png'), fullPage: true });
  });

  it('shows the field and reason of a refused manifest inline', async () => {
    await openNode();
    const editor = page.locator('[data-testid="apply-editor"]');
    await editor.waitFor();
    // the page puts the first example in once the examples arrive: typed before that, the text would be replaced
    await expect.poll(() => editor.textContent()).toContain('kind: Pod');
    // the example as the server gives it (the code editor draws only the lines in view, so its DOM may not
    // hold them all)
    const examples = (await (await fetch(`${baseUrl}/api/v1/examples`)).json()) as {
      items: { file: string; yaml: string }[];
    };
    const yaml = (examples.items.find((e) => e.file === 'crashloop.yaml')?.yaml ?? '')
      .replace(/^\s*image: .*$/m, '')
      .replace('name: crashloop', 'name: noimage');
    // typed as a user would: fill() edits through execCommand, whose inline styles the page's CSP refuses
    await editor.focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(yaml);
    await page.locator('[data-testid="apply-submit"]').click();
    const error = page.locator('[data-testid="apply-error"]');
    await error.waitFor();
    await expect(error.locator('[data-testid="apply-cause"]').first().textContent()).resolves.toContain(
      'spec.containers[0].image',
    );
    await expect(page.locator('[data-testid="pod-row-noimage"]').count()).resolves.toBe(0);
  });

  it('shows a fault on the loop strip as soon as it is injected', async () => {
    await openNode();
    await applyExample('healthy.yaml');
    await page
      .locator('[data-testid="pod-row-healthy"] td.status', { hasText: /^Running$/ })
      .waitFor({ timeout: 60_000 });
    await page.locator('[data-testid="fault-panel"]').waitFor();
    await page.locator('[data-testid="fault-pod"]').selectOption('default/healthy');
    await expect(page.locator('[data-testid="loop-fault"]').count()).resolves.toBe(0);
    await page.locator('[data-testid="fault-containerExit"]').click();
    await page.locator('[data-testid="fault-result"].ok').waitFor();
    await page.locator('[data-testid="loop-fault"][data-fault="containerExit"]').waitFor({ timeout: 10_000 });
    // the kubelet notices the exit and restarts the container
    await page
      .locator('[data-testid="pod-row-healthy"] td', { hasText: /^1 \(.*ago\)$/ })
      .waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(RESULTS, 'node-view.png'), fullPage: true });
  });

  it('exports the node trace and replays it with no server behind it', async () => {
    // pods of its own, so the export holds them whatever ran before
    await createExampleAs('crashloop.yaml', 'replay-crashloop');
    await createExampleAs('healthy.yaml', 'replay-healthy');
    await openNode();
    await page
      .locator('[data-testid="pod-row-replay-healthy"] td.status', { hasText: /^Running$/ })
      .waitFor({ timeout: 60_000 });
    await page
      .locator('[data-testid="pod-row-replay-crashloop"] td.status', {
        hasText: /^(Error|CrashLoopBackOff)$/,
      })
      .waitFor({ timeout: 60_000 });
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('[data-testid="export-node"]').click(),
    ]);
    const file = join(dash.dataDir, 'node.ndjson');
    await download.saveAs(file);
    const text = await readFile(file, 'utf8');
    expect(text.split('\n').filter(Boolean).length).toBeGreaterThan(10);

    const offline = await dash.browser.newPage({ viewport: { width: 1400, height: 1000 } });
    offline.on('pageerror', (err) => pageErrors.push(err.message));
    await offline.goto(await serveDist());

    // a broken file is refused with the number of its bad line
    const bad = join(dash.dataDir, 'bad.ndjson');
    await writeFile(bad, `${text.split('\n')[0]}\n{"seq":1,"time":1,"type":"nope"}\n`);
    await offline.locator('[data-testid="import-file"]').setInputFiles(bad);
    await offline.locator('[data-testid="import-error"]', { hasText: 'line 2: unknown type nope' }).waitFor();

    await offline.locator('[data-testid="import-file"]').setInputFiles(file);
    await offline.locator('[data-testid="replay-banner"]').waitFor();
    await offline.locator('[data-testid="pod-row-replay-crashloop"]').waitFor();
    await offline.locator('[data-testid="pod-row-replay-healthy"]').click();
    await offline.waitForURL('**/#/pods/default/replay-healthy');
    await expect(offline.locator('[data-testid="pod-title"]').textContent()).resolves.toBe(
      'default/replay-healthy',
    );
    await offline.locator('[data-testid="worker-band"] rect.tl-worker-sync').first().waitFor();
    await offline.screenshot({ path: join(RESULTS, 'replay.png'), fullPage: true });
    await offline.close();

    expect(pageErrors).toEqual([]);
  });
});
