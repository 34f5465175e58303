#!/usr/bin/env bash
# Prints the path of a kubectl 1.20 binary (Debian 12's kubernetes-client, what apt gives a fresh machine), for
# the tests that speak to the server as that older client does (SPDY/3.1 streams). The kubectl on PATH is
# printed when it is already 1.20; otherwise the package is fetched once with `apt-get download` and unpacked
# with `dpkg -x` under ~/.cache/syncscope/kubectl-1.20 (nothing installed, the PATH kubectl left alone).
# With --check it fetches nothing: it prints the path when the binary is there, else names the command and
# exits 1.
set -euo pipefail
check="${1:-}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/syncscope/kubectl-1.20"
bin="$cache/usr/bin/kubectl"

is_120() { "$1" version --client --short 2>/dev/null | grep -q 'v1\.20\.'; }

if command -v kubectl >/dev/null 2>&1 && is_120 "$(command -v kubectl)"; then
  command -v kubectl
  exit 0
fi
if [ -x "$bin" ] && is_120 "$bin"; then
  echo "$bin"
  exit 0
fi
if [ "$check" = --check ]; then
  echo "missing kubectl 1.20 (Debian's kubernetes-client); fetch it with: scripts/kubectl-legacy.sh" >&2
  exit 1
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download -qq kubernetes-client >/dev/null 2>&1) || {
  apt-get update -qq >/dev/null 2>&1 || true
  (cd "$work" && apt-get download -qq kubernetes-client >/dev/null)
}
deb="$(ls "$work"/kubernetes-client_*.deb)"
mkdir -p "$cache"
dpkg -x "$deb" "$work/root"
rm -rf "$cache/usr"
mv "$work/root/usr" "$cache/usr"
is_120 "$bin" || { echo "kubectl-legacy: $deb holds no kubectl 1.20" >&2; exit 1; }
echo "$bin"
