#!/usr/bin/env bash
# install-test-tools.sh [--where] — installs the external tools the test suites drive, pinned,
# into graphwire's cache (scripts/install-chdb.sh --cache-dir: $GRAPHWIRE_CACHE, else
# ${XDG_CACHE_HOME:-$HOME/.cache}/graphwire), where the tests look for them:
#
#   inspector/  the MCP Inspector (npm), for tests/mcp
#   tools/bin/  grpcurl and grpc-health-probe (Go modules), for tests/e2e; helm, for tests/release
#   codegraph/  npm packages whose sources codeindex's TestRealCode indexes (TypeScript, Java,
#               Kotlin, C#, C++ no one here wrote), each unpacked as codegraph/NAME-VERSION/package,
#               and the TypeScript compiler it checks the TypeScript calls with (codegraph/typescript)
#
# It is idempotent: a tool already installed at its pinned version is left alone. --where only
# prints the two directories ("inspector DIR", "tools DIR"), installing nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

inspector_version=2.12.0 # keep in step with inspectorVersion in tests/mcp/inspector_test.go
codegraph_packages=(zod@3.25.76 react-native-maps@1.10.0 react-native-screens@3.29.0 edge-js@20.10.0) # keep in step with codeindex/realcode_test.go
go_tools=(github.com/fullstorydev/grpcurl/cmd/grpcurl@v1.9.4 github.com/grpc-ecosystem/grpc-health-probe@v0.4.61 helm.sh/helm/v3/cmd/helm@v3.22.0)

cache="$(bash scripts/install-chdb.sh --cache-dir)"
inspector_dir="$cache/inspector"
tools_dir="$cache/tools"
case "${1:-}" in
  "") ;;
  --where) printf 'inspector %s\ntools %s\n' "$inspector_dir" "$tools_dir"; exit 0 ;;
  *) echo "install-test-tools.sh: unknown argument: $1 (usage: install-test-tools.sh [--where])" >&2; exit 2 ;;
esac

if [ "$(cat "$inspector_dir/.version" 2>/dev/null)" != "$inspector_version" ] || [ ! -x "$inspector_dir/node_modules/.bin/mcp-inspector" ]; then
  mkdir -p "$inspector_dir"
  npm install --no-audit --no-fund --prefix "$inspector_dir" "@modelcontextprotocol/inspector@$inspector_version" >/dev/null
  echo "$inspector_version" > "$inspector_dir/.version"
fi

for p in "${codegraph_packages[@]}"; do
  d="$cache/codegraph/${p/@/-}"
  if [ ! -f "$d/package/package.json" ]; then
    rm -rf "$d" && mkdir -p "$d"
    (cd "$d" && npm pack --silent "$p" >/dev/null && tar xzf ./*.tgz && rm -f ./*.tgz)
  fi
done

typescript_version=5.6.3 # keep in step with codeindex/realcode_test.go
if [ ! -f "$cache/codegraph/typescript/node_modules/typescript/package.json" ] ||
  ! grep -q "\"version\": \"$typescript_version\"" "$cache/codegraph/typescript/node_modules/typescript/package.json"; then
  mkdir -p "$cache/codegraph/typescript"
  npm install --no-audit --no-fund --prefix "$cache/codegraph/typescript" "typescript@$typescript_version" >/dev/null
fi

# Debian has no grpcurl package; both tools are Go modules, installed by version.
for t in "${go_tools[@]}"; do
  name="$(basename "${t%@*}")"
  if [ "$(cat "$tools_dir/$name.version" 2>/dev/null)" != "$t" ] || [ ! -x "$tools_dir/bin/$name" ]; then
    mkdir -p "$tools_dir/bin"
    GOBIN="$tools_dir/bin" go install "$t"
    echo "$t" > "$tools_dir/$name.version"
  fi
done
