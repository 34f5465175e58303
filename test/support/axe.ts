/**
 * axe-core in a page under test: its source is evaluated through the DevTools protocol (the app's CSP
 * forbids inline scripts, and evaluation is not subject to it), then `axe.run` checks the page or a part of
 * it. Returns the serious and critical violations only, each as "id: help (n nodes: selectors)".
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);
let source: string | undefined;

interface AxeResult {
  violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
}

export async function axeViolations(page: Page, include?: string): Promise<string[]> {
  source ??= await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(source);
  const result = await page.evaluate(
    (sel) =>
      (window as unknown as { axe: { run: (c: unknown, o: unknown) => Promise<AxeResult> } }).axe.run(
        sel ? { include: [sel] } : document,
        { resultTypes: ['violations'] },
      ),
    include ?? null,
  );
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id}: ${v.help} (${v.nodes.length} nodes: ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 5)
          .join(', ')})`,
    );
}
