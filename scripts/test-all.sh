#!/usr/bin/env bash
# The whole test suite, what CI runs. First the static checks (typecheck, lint, web build) and the unit tier
# (alone: its tests run on the fake clock in threads, and time out when the lanes take the cores); then five lanes
# side by side, none sharing a port, a data dir or containerd with another (most of the end-to-end time is
# waiting on the simulated node's clock, not CPU):
#   A: integration, then scenarios on a private containerd (root only);
#   B and C: end-to-end on the simulated node, half of its files each (vitest --shard);
#   D: browser tests (Chromium);
#   E: on the other supported lines, Node 20 (a fresh machine's) and 22, only the tests of
#      what differs between Node versions (LINE_SENSITIVE: gRPC, TLS, worker threads, child processes and
#      signals, fs and FIFOs, timers, V8 flags; the unit tier is the same code on the fake clock on every line);
#      then a short benchmark smoke (its figures are not judged: the other lanes load the machine).
# The main line is Node 24 (scripts/node-line.sh fetches it and Node 22 from the npm registry into
# ~/.cache/syncscope); Node 20 is the node on PATH. Each tier runs under its own SYNCSCOPE_TEST_RUN marker,
# and a tier that leaves a process behind fails (scripts/leaks.sh). Ends with each tier's time and one line
# "tests: N passed, N failed, N skipped". Installs nothing: a missing Debian package is named with its command.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-system-deps.sh --check || exit 1
rm -rf test-results && mkdir -p test-results
bin=node_modules/.bin
run="${SYNCSCOPE_TEST_RUN:-run-$$}"
t_all=$(date +%s)
node20="$(dirname "$(command -v node)")"
main_line=$(bash scripts/node-line.sh 24) || {
  echo "Node 24 could not be installed"
  exit 1
}
export PATH="$main_line:$PATH"

# tier NAME CMD...: runs CMD under the tier's marker into test-results/NAME.log, checks for leaks, records time
tier() {
  local name="$1"
  shift
  local t0 rc=0
  t0=$(date +%s)
  SYNCSCOPE_TEST_RUN="$run-$name" "$@" >"test-results/$name.log" 2>&1 || rc=1
  if ! SYNCSCOPE_TEST_RUN="$run-$name" bash scripts/leaks.sh --kill >>"test-results/$name.log"; then
    echo "FAILED $name: left processes running (see above)" >>"test-results/$name.log"
    rc=1
  fi
  echo "$name $(($(date +%s) - t0)) $rc" >>test-results/tiers.txt
  return $rc
}
vitest() {
  local project="$1" out="$2"
  shift 2
  "$bin/vitest" run --project "$project" "$@" --reporter=default --reporter=json --outputFile.json="test-results/vitest-$out.json"
}
static() {
  # one incremental build over every tsconfig (tsconfig.json references them; build info in node_modules/.cache/tsc)
  "$bin/tsc" -b && "$bin/biome" ci --reporter=summary . && "$bin/knip" &&
    (cd apps/web && node_modules/.bin/vite build --logLevel warn)
}
LINE_SENSITIVE=(
  packages/core/src/cri/remote-runtime.int.test.ts
  packages/core/src/cri/remote-runtime-reconnect.int.test.ts
  packages/core/src/clock/clock.int.test.ts
  apps/server/src/kube-api/kube-tls.int.test.ts
  apps/server/src/kube-api/patch-thread.int.test.ts
  apps/server/src/routes/imports-load.int.test.ts
  apps/server/src/routes/logs-follow.int.test.ts
  apps/server/src/store/journal-kill.int.test.ts
  apps/server/src/store/lock.int.test.ts
  apps/server/src/store/plain-file.int.test.ts
  apps/server/src/sim-node/respawn.int.test.ts
  apps/server/src/observe/journal-follow.int.test.ts
  apps/server/src/heap.int.test.ts
)
on_line() {
  local line="$1" nodebin="$node20"
  [ "$line" = 20 ] || nodebin=$(bash scripts/node-line.sh "$line") || {
    echo "Node $line could not be installed"
    return 1
  }
  PATH="$nodebin:$PATH" SYNCSCOPE_NODE_LINE="$line" vitest integration "node$line-integration" "${LINE_SENSITIVE[@]}"
}
lane_a() {
  tier integration vitest integration integration
  if [ "$(id -u)" = 0 ]; then tier containerd vitest containerd containerd; else echo "not root: skipping the containerd project"; fi
}
lane_b() { tier e2e-1 vitest e2e e2e-1 --shard=1/2; }
lane_c() { tier e2e-2 vitest e2e e2e-2 --shard=2/2; }
lane_d() { tier browser vitest browser browser; }
lane_e() { tier node20 on_line 20; tier node22 on_line 22; tier bench-smoke "$bin/tsx" bench/run.ts --smoke; }
show() { echo; echo "== $1"; cat "test-results/$1.log"; }

echo "main line: Node $(node --version); lane C: Node 20 ($("$node20/node" --version)) and 22"
tier static static
show static
tier unit vitest unit unit
show unit
lane_a &
lane_b &
lane_c &
lane_d &
lane_e &
wait
for t in integration browser containerd e2e-1 e2e-2 node20 node22 bench-smoke; do [ -f "test-results/$t.log" ] && show "$t"; done

echo
echo "== time per tier (s), total $(($(date +%s) - t_all)) s (lanes A to E side by side)"
awk '{ printf "%-14s %5d s %s\n", $1, $2, ($3 == 0 ? "ok" : "FAILED") }' test-results/tiers.txt
node scripts/test-summary.mjs
