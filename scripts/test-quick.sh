#!/usr/bin/env bash
# The edit-test loop (`pnpm test:quick`): typecheck, lint and the unit tier (no processes, sockets or wall
# clock) side by side, each into its own log shown when it fails, then a check that nothing was left running.
# Prints the time it took.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=node_modules/.bin
export SYNCSCOPE_TEST_RUN="quick-$$"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
t0=$(date +%s)
"$bin/tsc" -b >"$out/tsc" 2>&1 &
tsc=$!
{ "$bin/biome" ci --reporter=summary . && "$bin/knip"; } >"$out/lint" 2>&1 &
lint=$!
"$bin/vitest" run --project unit >"$out/unit" 2>&1 &
unit=$!
fail=0
for step in tsc lint unit; do
  if ! wait "${!step}"; then
    fail=1
    echo "== $step failed"
    cat "$out/$step"
  fi
done
tail -n 6 "$out/unit" | grep -E "Tests|Duration" || true
bash scripts/leaks.sh --kill || fail=1
echo "test:quick: $(($(date +%s) - t0)) s, $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
