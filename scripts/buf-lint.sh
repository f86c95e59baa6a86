#!/usr/bin/env bash
# buf-lint.sh [--install] — runs `buf lint` on proto/ (rules in proto/buf.yaml; every exception is
# a buf:lint:ignore comment in the .proto saying why). buf comes from npm (@bufbuild/buf, pinned
# below) and is installed once into buf/ under graphwire's cache (scripts/install-chdb.sh
# --cache-dir: $GRAPHWIRE_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/graphwire); --install only
# installs it. A buf on PATH of the same version is used as it is.
set -euo pipefail
cd "$(dirname "$0")/.."

version=1.75.0
dir="$(bash scripts/install-chdb.sh --cache-dir)/buf"
buf="$dir/node_modules/.bin/buf"

if command -v buf >/dev/null 2>&1 && [ "$(buf --version 2>/dev/null)" = "$version" ]; then
  buf="$(command -v buf)"
elif [ "$(cat "$dir/.version" 2>/dev/null)" != "$version" ] || [ ! -x "$buf" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "buf-lint: npm is missing; it installs buf (@bufbuild/buf $version)" >&2
    exit 1
  fi
  mkdir -p "$dir"
  npm install --no-audit --no-fund --prefix "$dir" "@bufbuild/buf@$version" >/dev/null
  echo "$version" > "$dir/.version"
fi
[[ "${1:-}" == "--install" ]] && exit 0
cd proto && "$buf" lint && echo "buf lint: clean"
