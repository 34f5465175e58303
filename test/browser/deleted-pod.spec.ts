/**
 * A deleted pod's page keeps its name: a pod created and deleted through the API, its page open while it goes
 * and a page opened after it has gone and a busy node's trace has moved on (more events since than the page
 * holds of the newest), both titled namespace/name and saying the pod is no longer on the node, with its
 * history below.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dashboard, startDashboard } from '../support/browser.ts';
import { until } from '../support/until.ts';

const MANIFEST = `apiVersion: v1
kind: Pod
metadata:
  name: soon-gone
  namespace: team-a
spec:
  containers:
    - name: app
      image: busybox
      command: ["sh", "-c", "sleep 3600"]
`;

let dash: Dashboard;
const problems: string[] = [];

beforeAll(async () => {
  dash = await startDashboard({ examples: false });
});

afterAll(async () => {
  await dash?.close();
});

async function openPod(): Promise<Page> {
  const page = await dash.browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  await page.goto(`${dash.baseUrl}/#/pods/team-a/soon-gone`);
  await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 60_000 });
  return page;
}

describe('a deleted pod’s page', () => {
  it('keeps the pod’s namespace and name, open while it goes and opened after', async () => {
    await fetch(`${dash.baseUrl}/api/v1/namespaces`, {
      method: 'POST',
      body: '{"metadata":{"name":"team-a"}}',
    });
    const created = await fetch(`${dash.baseUrl}/api/v1/namespaces/team-a/pods`, {
      method: 'POST',
      headers: { 'content-type': 'application/yaml' },
      body: MANIFEST,
    });
    expect(created.status).toBe(201);
    const open = await openPod();
    const title = open.locator('[data-testid="pod-title"]');
    await title.waitFor({ timeout: 60_000 });
    expect(await title.textContent()).toBe('team-a/soon-gone');
    await open.locator('[data-testid="pod-status"]', { hasText: /^Running$/ }).waitFor({ timeout: 60_000 });

    const deleted = await fetch(
      `${dash.baseUrl}/api/v1/namespaces/team-a/pods/soon-gone?gracePeriodSeconds=0`,
      {
        method: 'DELETE',
      },
    );
    expect(deleted.status).toBe(200);
    // gone from the API's list
    await until('the pod gone from the API', async () => {
      const res = await fetch(`${dash.baseUrl}/api/v1/namespaces/team-a/pods/soon-gone`);
      return res.status === 404;
    });

    await open.locator('[data-testid="pod-gone"]').waitFor({ timeout: 60_000 });
    expect(await open.locator('[data-testid="pod-title"]').textContent()).toBe('team-a/soon-gone');

    // a busy node: more housekeeping runs recorded since than a page keeps of the newest events
    for (let i = 0; i < 25_000; i++)
      dash.built.trace.record({
        type: 'housekeeping',
        durationMs: 1,
        forgotten: 0,
        orphansKilled: 0,
        restarted: 0,
      });
    const after = await openPod();
    await after.locator('[data-testid="pod-gone"]').waitFor({ timeout: 60_000 });
    expect(await after.locator('[data-testid="pod-title"]').textContent()).toBe('team-a/soon-gone');
    expect(await after.locator('p.bad', { hasText: 'not found in namespace' }).count()).toBe(0);
    await after.locator('[data-testid="timeline"]').waitFor({ timeout: 60_000 });
    await open.close();
    await after.close();
    expect(problems).toEqual([]);
  }, 240_000);
});
