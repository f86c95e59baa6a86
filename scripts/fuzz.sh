#!/usr/bin/env bash
# fuzz.sh [DURATION] — runs every native fuzz target for DURATION (default 60s)
# each. CI runs only the seed corpora (as part of go test); long runs live here.
set -euo pipefail
cd "$(dirname "$0")/.."
dur="${1:-60s}"
for pkg in $(go list ./...); do
  for target in $(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true); do
    echo "== $pkg $target ($dur)"
    go test -run='^$' -fuzz="^${target}\$" -fuzztime="$dur" "$pkg"
  done
done
