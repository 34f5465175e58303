#!/usr/bin/env bash
# Installs the Debian packages the test suite runs against, if missing: Chromium for the browser tests,
# containerd + runc + busybox-static + CNI plugins + iptables for the real-node tests, iproute2 (the browser
# tests' own network namespace brings its loopback up with `ip`), and kubectl (Debian's
# kubernetes-client) for the kubectl tests unless a kubectl is already on PATH (and 1.20 beside it, unpacked by
# scripts/kubectl-legacy.sh), python3-kubernetes and ruby-kubeclient for the client tests. Needs root (apt-get).
# With --check it installs nothing: it names what is missing and the command that installs it, and exits 1.
set -euo pipefail
check="${1:-}"
pkgs=(containerd runc busybox-static containernetworking-plugins iptables iproute2 chromium python3-kubernetes ruby-kubeclient)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
command -v kubectl >/dev/null 2>&1 || missing+=(kubernetes-client)
# kubectl 1.20 for the SPDY stream tests, unpacked in a cache beside the PATH one; --check only looks for it
if [ "$check" = --check ]; then "$(dirname "$0")/kubectl-legacy.sh" --check >/dev/null || legacy=missing
else "$(dirname "$0")/kubectl-legacy.sh" >/dev/null; fi
[ ${#missing[@]} -eq 0 ] && { [ "${legacy:-}" != missing ]; exit; }
if [ "$check" = --check ]; then
  echo "missing Debian packages: ${missing[*]}; install them with: sudo apt-get install -y ${missing[*]}" >&2
  echo "(or run .ci/run, which installs them)" >&2
  exit 1
fi
if [ "$(id -u)" != 0 ]; then
  echo "ensure-system-deps: missing ${missing[*]}; run as root or: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "ensure-system-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
