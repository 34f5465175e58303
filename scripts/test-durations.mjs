// `node scripts/test-durations.mjs [results-dir] [out]`: each test file's time in the last run (seconds, from the
// tiers' JSON reports in test-results/), merged into test/durations.json, which the shards are balanced by
// (test/support/duration-sequencer.ts). Only the sharded tiers' reports (vitest-<project>-<shard>.json) count.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';

const dir = process.argv[2] ?? 'test-results';
const out = process.argv[3] ?? 'test/durations.json';
const durations = existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) : {};
for (const f of readdirSync(dir)) {
  const project = /^vitest-([a-z0-9]+?)-\d+\.json$/.exec(f)?.[1];
  if (!project) continue;
  const r = JSON.parse(readFileSync(`${dir}/${f}`, 'utf8'));
  for (const file of r.testResults ?? []) {
    if (!file.startTime || !file.endTime) continue;
    durations[project] ??= {};
    durations[project][relative(process.cwd(), file.name)] =
      Math.round((file.endTime - file.startTime) / 100) / 10;
  }
}
const sorted = Object.fromEntries(
  Object.keys(durations)
    .sort()
    .map((p) => [p, Object.fromEntries(Object.entries(durations[p]).sort(([a], [b]) => (a < b ? -1 : 1)))]),
);
writeFileSync(out, `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`${out}: ${Object.values(sorted).reduce((n, p) => n + Object.keys(p).length, 0)} files`);
