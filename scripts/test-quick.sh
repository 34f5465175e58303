#!/usr/bin/env bash
# The edit-test loop (`pnpm test:quick`): typecheck, lint and the unit tier (no processes, sockets or wall
# clock), then a check that nothing was left running. Prints the time it took.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=node_modules/.bin
export SYNCSCOPE_TEST_RUN="quick-$$"
t0=$(date +%s)
fail=0
"$bin/tsc" -b || fail=1
"$bin/biome" ci --reporter=summary . || fail=1
"$bin/knip" || fail=1
"$bin/vitest" run --project unit || fail=1
bash scripts/leaks.sh --kill || fail=1
echo "test:quick: $(($(date +%s) - t0)) s, $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
