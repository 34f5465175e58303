#!/usr/bin/env bash
# The whole test suite, what CI runs. First the static checks (typecheck, lint, web build, the server bundle
# the tests start their servers and simulated nodes from) beside the unit tier (its tests run on the fake
# clock in threads, and time out when all the other tiers take the cores); then every other tier, split into
# shards (vitest --shard, balanced by each file's recorded time: test/durations.json), at most
# $SYNCSCOPE_TEST_LANES (5) at once, longest first, so the cores stay busy to the end and no shard is left
# running alone. A shard's files run one after another in one process (vitest.config.ts), which loads the
# modules they share once, not once a file (the browser tier's files each in a process of their own). None
# shares a port, a data dir or containerd with another (most of the end-to-end time is waiting on the simulated
# node's clock, not CPU):
#   integration (3 shards), end-to-end on the simulated node (4), browser tests in Chromium (3);
#   scenarios on a private containerd (root only);
#   on the other supported lines, Node 20 (a fresh machine's) and 22, only the tests of what differs between
#      Node versions (LINE_SENSITIVE: gRPC, TLS, worker threads, child processes and signals, fs and FIFOs,
#      timers, V8 flags; the unit tier is the same code on the fake clock on every line);
#   a short benchmark smoke, in two halves (bench/run.ts --part; its figures are not judged: the other tiers
#      load the machine).
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
  local project="$1" out="$2" own=()
  shift 2
  # the browser files each in a process of their own: sharing one, later files of a shard failed in ways no
  # file shows alone (a pod page whose back-off ladder never reached 20 s, a stale page without its PLEG panel)
  [ "$project" = browser ] && own=(--poolOptions.forks.isolate=true)
  "$bin/vitest" run --project "$project" "${own[@]}" "$@" --reporter=default --reporter=json --outputFile.json="test-results/vitest-$out.json"
}
static() {
  # one incremental build over every tsconfig (tsconfig.json references them; build info in node_modules/.cache/tsc)
  "$bin/tsc" -b && "$bin/biome" ci --reporter=summary . && "$bin/knip" &&
    (cd apps/web && node_modules/.bin/vite build --logLevel warn) &&
    "$bin/tsx" --eval "import('./test/support/server-bundle.ts').then((m) => m.serverBundle())"
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
# The tiers after unit, longest first but one browser shard at a time at the start (three Chromiums at once on
# two cores starve each other's pages past their timeouts); the halves of the benchmark smoke and the Node lines
# are the short ones (100-200 s)
TIERS=(e2e-1 bench-smoke-1 browser-2 containerd integration-2 bench-smoke-2 integration-1 e2e-2 browser-3 e2e-3
  browser-1 e2e-4 node20 integration-3 node22)
# own_network CMD...: CMD in a network namespace of its own with only its loopback, when root. Pods the containerd
# tier starts beside a browser tier add and remove network interfaces on the host, and Chromium cancels every
# request in flight when it sees one (net::ERR_NETWORK_CHANGED, loopback too), so a page lost a chunk of the
# web app at random. The server under test, its simulated node and Chromium all run inside, on 127.0.0.1.
own_network() {
  if [ "$(id -u)" = 0 ]; then
    export -f vitest
    export bin
    unshare --net bash -c 'ip link set lo up && "$@"' own_network "$@"
  else
    "$@"
  fi
}
run_tier() {
  local name="$1" n="${1##*-}"
  case "$name" in
    integration-*) tier "$name" vitest integration "$name" --shard="$n/3" ;;
    e2e-*) tier "$name" vitest e2e "$name" --shard="$n/4" ;;
    browser-*) tier "$name" own_network vitest browser "$name" --shard="$n/3" ;;
    containerd)
      if [ "$(id -u)" = 0 ]; then tier containerd vitest containerd containerd; else echo "not root: skipping the containerd project"; fi
      ;;
    node20 | node22) tier "$name" on_line "${name#node}" ;;
    bench-smoke-*) tier "$name" "$bin/tsx" bench/run.ts --smoke --part "$n/2" ;;
  esac
}
show() { echo; echo "== $1"; cat "test-results/$1.log"; }

echo "main line: Node $(node --version); other lines: Node 20 ($("$node20/node" --version)) and 22"
# static and unit side by side: neither needs the other (unit builds nothing, static runs no test)
tier static static &
tier unit vitest unit unit
wait
show static
show unit
lanes="${SYNCSCOPE_TEST_LANES:-5}"
for t in "${TIERS[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$lanes" ]; do wait -n; done
  run_tier "$t" &
done
wait
for t in "${TIERS[@]}"; do [ -f "test-results/$t.log" ] && show "$t"; done
echo
echo "== time per tier (s), total $(($(date +%s) - t_all)) s (up to $lanes tiers side by side)"
awk '{ printf "%-14s %5d s %s\n", $1, $2, ($3 == 0 ? "ok" : "FAILED") }' test-results/tiers.txt
node scripts/test-summary.mjs
