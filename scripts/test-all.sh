#!/usr/bin/env bash
# The whole test suite: system packages, typecheck, lint, web build, then every vitest project (unit,
# end-to-end on the simulated node, browser in Chromium, scenarios on a private containerd). Ends with one
# line "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-system-deps.sh || exit 1
mkdir -p test-results
bin=node_modules/.bin
step() { echo; echo "== $*"; }

step typecheck
"$bin/tsc" -p packages/core && "$bin/tsc" -p apps/server && "$bin/tsc" -p apps/web && "$bin/tsc" -p test || exit 1
step lint
"$bin/biome" ci --reporter=summary . || exit 1
step "web build"
(cd apps/web && node_modules/.bin/vite build --logLevel warn) || exit 1

step "vitest (unit, e2e, browser, containerd)"
"$bin/vitest" run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json
status=$?
node -e '
const r = require("./test-results/vitest.json");
const failed = r.numFailedTests + (r.numFailedTestSuites || 0) * 0;
console.log("");
console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`);
' || { echo "0 passed, 1 failed"; exit 1; }
exit $status
