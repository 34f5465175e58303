/**
 * axe-core inside a page of the browser tests: its source is evaluated in the page through the DevTools
 * protocol (not a <script> tag, which the server's Content-Security-Policy rightly refuses), then axe.run
 * checks the document (or the part `include` selects) against WCAG 2.1 A/AA and axe's best practices. The
 * serious and critical violations
 * come back worded, one line each, so a failing expect names the rule, the element and what to fix.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);
let source: string | undefined;

interface AxeNode {
  target: string[];
  failureSummary?: string;
}
interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: AxeNode[];
}

/** The serious and critical violations on `page` as it is now, in the part `include` selects if given. */
export async function seriousViolations(page: Page, include?: string): Promise<string[]> {
  source ??= await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(source);
  const context = include ? `{ include: [${JSON.stringify(include)}] }` : 'document';
  const violations = await page.evaluate<AxeViolation[]>(`axe
    .run(${context}, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    })
    .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) })))`);
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) =>
      v.nodes
        .slice(0, 5)
        .map((n) => `${v.impact} ${v.id} (${v.help}) at ${n.target.join(' ')}: ${n.failureSummary ?? ''}`),
    );
}
