/**
 * `import-log FILE --explain` as a user runs it: a real process on sample 03 of the importer's test data with
 * its one back-off line (line 637) edited to say 20s where the kubelet's rule gives 10s. stdout holds, per
 * pod, its steps explained, agreeing, differing and unexplained, and the differing step with its line and
 * both values; the same lines the explanation of the log imported in this process gives. The log as the
 * kubelet wrote it: no pod differs.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeExplainers } from '@syncscope/core/explain';
import { importKubeletLog } from '@syncscope/core/kubelet-log';
import { afterAll, describe, expect, it } from 'vitest';
import { explanationLines } from './import-log-explain.ts';
import { outputOf, type ProcessOutput } from './process-testing.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const CLI = join(ROOT, 'apps', 'server', 'src', 'import-log.ts');
const SAMPLE = join(
  ROOT,
  'packages/core/src/kubelet-log/testdata/03-v1.31-openshift-journald-v2-static-pods-probes-crashloop.log',
);
const CVO = 'openshift-cluster-version/bootstrap-cluster-version-operator-localhost.localdomain';
const tmp = mkdtempSync(join(tmpdir(), 'import-log-explain-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function run(args: string[]): Promise<ProcessOutput> {
  const p = spawn(TSX, [CLI, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  const output = outputOf(p);
  p.stdin.end();
  return output;
}

/** The lines the command should print for `text`, explained in this process. */
function expected(text: string): string[] {
  const x = new NodeExplainers({ keep: 'differs' });
  for (const ev of importKubeletLog(text, { year: 2025 }).events) x.add(ev);
  return explanationLines(x.result());
}

// real processes: on a busy machine one can take seconds
describe('import-log --explain', { timeout: 60_000 }, () => {
  it("prints each pod's counts and the differing step with its line and both values", async () => {
    const text = readFileSync(SAMPLE, 'utf8').replace('back-off 10s restarting', 'back-off 20s restarting');
    const file = join(tmp, 'edited.log');
    writeFileSync(file, text);
    const r = await run([file, '--year', '2025', '--explain']);
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines).toEqual(expected(text));
    expect(lines[0]).toMatch(/^node localhost\.localdomain: .*crash-loop back-off 10s doubling to 5m0s/);
    const pods = lines.filter((l) => /^ {2}\S/.test(l));
    expect(pods).toHaveLength(8);
    for (const l of pods)
      expect(l).toMatch(
        l.startsWith(`  ${CVO}:`)
          ? /: \d+ steps, \d+ explained: \d+ agree, 1 differ; \d+ unexplained; back-off windows 0\/1 by the rule$/
          : /: \d+ steps, \d+ explained: \d+ agree, 0 differ; \d+ unexplained/,
      );
    const differing = lines.filter((l) => l.startsWith('    '));
    expect(differing).toHaveLength(1);
    expect(differing[0]).toMatch(
      /^ {4}line 637: container back-off 20s for cluster-version-operator — backoff-delay: expected back-off 10s; seen back-off 20s \(doBackOff/,
    );
    expect(lines.at(-1)).toMatch(/^all: \d+ steps, \d+ explained: \d+ agree, 1 differ;/);
    // the summary still goes to stderr
    expect(r.err).toMatch(/886 lines read/);
  });

  it('the log as the kubelet wrote it: no pod differs', async () => {
    const r = await run([SAMPLE, '--year', '2025', '--explain']);
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines).toEqual(expected(readFileSync(SAMPLE, 'utf8')));
    expect(lines.filter((l) => l.startsWith('    '))).toEqual([]);
    expect(lines.at(-1)).toMatch(/ 0 differ; .*back-off windows 1\/1 by the rule$/);
  });
});
