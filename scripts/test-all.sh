#!/usr/bin/env bash
# The whole test suite: system packages, typecheck, lint, web build, then each vitest project in turn (unit;
# slow: the soak and the wall-clock checks; end-to-end on the simulated node; scenarios on a private
# containerd; browser in Chromium), unit and end-to-end again on Node 22 and 24 (scripts/node-line.sh fetches
# them), then a short benchmark smoke. Ends with one line "tests: N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-system-deps.sh || exit 1
rm -rf test-results && mkdir -p test-results
bin=node_modules/.bin
step() { echo; echo "== $*"; }
fail=0

step typecheck
# one incremental build over every tsconfig (tsconfig.json references them; build info in node_modules/.cache/tsc)
"$bin/tsc" -b || fail=1
step lint
"$bin/biome" ci --reporter=summary . || fail=1
"$bin/knip" || fail=1
step "web build"
(cd apps/web && node_modules/.bin/vite build --logLevel warn) || fail=1

projects=(unit slow e2e browser)
if [ "$(id -u)" = 0 ]; then projects+=(containerd); else echo "not root: skipping the containerd project"; fi
for p in "${projects[@]}"; do
  step "vitest --project $p"
  "$bin/vitest" run --project "$p" --reporter=default --reporter=json --outputFile.json="test-results/vitest-$p.json" || fail=1
done

# Node 20 is what a fresh machine has; the current LTS lines run the unit and end-to-end projects too
for line in 22 24; do
  step "vitest --project unit --project e2e on Node $line"
  if nodebin=$(bash scripts/node-line.sh "$line"); then
    PATH="$nodebin:$PATH" SYNCSCOPE_NODE_LINE="$line" "$bin/vitest" run --project unit --project e2e \
      --reporter=default --reporter=json --outputFile.json="test-results/vitest-node$line.json" || fail=1
  else
    echo "Node $line could not be installed"; fail=1
  fi
done

step "bench smoke"
"$bin/tsx" bench/run.ts --smoke || fail=1

echo
node -e '
const fs = require("fs");
let pass = 0, failed = 0, skipped = 0;
for (const f of fs.readdirSync("test-results").filter((f) => /^vitest-.*\.json$/.test(f))) {
  const r = JSON.parse(fs.readFileSync("test-results/" + f, "utf8"));
  pass += r.numPassedTests; failed += r.numFailedTests; skipped += r.numPendingTests + r.numTodoTests;
  if (r.numFailedTestSuites && !r.numFailedTests) failed += r.numFailedTestSuites;
  // name every failure again here, so the last lines of a long run say which test failed and why
  for (const file of r.testResults ?? []) {
    const where = `${f.replace(/^vitest-|\.json$/g, "")}: ${String(file.name).replace(process.cwd() + "/", "")}`;
    if (file.status === "failed" && !(file.assertionResults ?? []).some((a) => a.status === "failed"))
      console.log(`FAILED ${where}: ${String(file.message ?? "").split("\n")[0].slice(0, 300)}`);
    for (const a of file.assertionResults ?? [])
      if (a.status === "failed")
        console.log(`FAILED ${where} > ${a.fullName}: ${String(a.failureMessages?.[0] ?? "").split("\n")[0].slice(0, 300)}`);
  }
}
console.log(`tests: ${pass} passed, ${failed} failed, ${skipped} skipped`);
if (failed > 0) process.exit(1);
' || fail=1
exit $fail
