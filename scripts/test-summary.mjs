// The suite's last lines: every failed test named again (so the end of a long run says which and why), any
// tier that failed without a failed test (a leak, a crash, a lint error), and one line
// "tests: N passed, N failed, N skipped". Exits 1 when anything failed.
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const dir = 'test-results';
let pass = 0;
let failed = 0;
let skipped = 0;
for (const f of readdirSync(dir).filter((f) => /^vitest-.*\.json$/.test(f))) {
  const r = JSON.parse(readFileSync(`${dir}/${f}`, 'utf8'));
  pass += r.numPassedTests;
  failed += r.numFailedTests;
  skipped += r.numPendingTests + r.numTodoTests;
  if (r.numFailedTestSuites && !r.numFailedTests) failed += r.numFailedTestSuites;
  for (const file of r.testResults ?? []) {
    const where = `${f.replace(/^vitest-|\.json$/g, '')}: ${String(file.name).replace(`${process.cwd()}/`, '')}`;
    const first = (s) =>
      String(s ?? '')
        .split('\n')[0]
        .slice(0, 300);
    if (file.status === 'failed' && !(file.assertionResults ?? []).some((a) => a.status === 'failed'))
      console.log(`FAILED ${where}: ${first(file.message)}`);
    for (const a of file.assertionResults ?? [])
      if (a.status === 'failed')
        console.log(`FAILED ${where} > ${a.fullName}: ${first(a.failureMessages?.[0])}`);
  }
}
let tierFailed = false;
if (existsSync(`${dir}/tiers.txt`))
  for (const line of readFileSync(`${dir}/tiers.txt`, 'utf8').trim().split('\n')) {
    const [name, , rc] = line.split(' ');
    if (rc !== '0') {
      tierFailed = true;
      const log = readFileSync(`${dir}/${name}.log`, 'utf8').trim().split('\n');
      console.log(`FAILED tier ${name}; its last lines:\n  ${log.slice(-8).join('\n  ')}`);
    }
  }
console.log(`tests: ${pass} passed, ${failed} failed, ${skipped} skipped`);
if (failed > 0 || tierFailed) process.exit(1);
