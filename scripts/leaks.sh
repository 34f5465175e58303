#!/usr/bin/env bash
# Lists the processes a test tier left running: every process whose environment carries this run's marker
# (SYNCSCOPE_TEST_RUN=<id>, set by test-all.sh and test-quick.sh and inherited by every child, detached
# simulated nodes, servers, containerd and Chromium included), except this script's own ancestry. With
# --kill it also kills them. Exits 1 when any was found, naming each with its command line.
set -uo pipefail
id="${SYNCSCOPE_TEST_RUN:?SYNCSCOPE_TEST_RUN is not set}"
kill_them="${1:-}"
mine=" $$ "
p=$$
while [ "$p" -gt 1 ] 2>/dev/null; do
  p=$(awk '{print $4}' "/proc/$p/stat" 2>/dev/null || echo 1)
  mine+="$p "
done
found=0
for d in /proc/[0-9]*; do
  pid=${d#/proc/}
  [[ "$mine" == *" $pid "* ]] && continue
  { tr '\0' '\n' <"$d/environ"; } 2>/dev/null | grep -qx "SYNCSCOPE_TEST_RUN=$id" || continue
  state=$(awk '{print $3}' "$d/stat" 2>/dev/null || echo Z)
  [ "$state" = Z ] && continue
  echo "LEAKED pid $pid: $({ tr '\0' ' ' <"$d/cmdline"; } 2>/dev/null | cut -c1-200)"
  found=1
  [ "$kill_them" = --kill ] && kill -9 "$pid" 2>/dev/null
done
exit $found
