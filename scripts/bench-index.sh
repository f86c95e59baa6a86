#!/usr/bin/env bash
# bench-index.sh — `make bench-index`: graphwire index, end to end into a fresh embedded data
# directory, over one package per language (the corpora of codeindex's TestRealCode, which
# .ci/run installs), then a re-index after a one-line edit of one file. Prints per language the
# files, rows, extraction and total seconds, files/s and rows/s, with the load average before
# each run, and the command. extract_s is graphwire's own figure for parsing (and, for Go,
# type-checking) and resolving, before the load; files/s and rows/s are end to end. BENCH_INDEX_CORPORA="lang=dir ..." replaces the list.
set -euo pipefail
cd "$(dirname "$0")/.."

source <(bash scripts/install-chdb.sh --env)
cache="$(bash scripts/install-chdb.sh --cache-dir)/codegraph"
goroot="$(go env GOROOT)"
default=(
  "python=/usr/lib/python3/dist-packages/oauthlib"
  "typescript=$cache/zod-3.25.76/package/src"
  "javascript=/usr/lib/node_modules/npm/lib"
  "java=$cache/react-native-maps-1.10.0/package/android"
  "rust=$(ls -d /usr/share/cargo/registry/smallvec-* 2>/dev/null | tail -1)"
  "c=$goroot/src/runtime/cgo"
  "cpp=$cache/edge-js-20.10.0/package/src"
  "ruby=$(ls -d /usr/share/rubygems-integration/all/gems/rack-* 2>/dev/null | tail -1)/lib"
  "csharp=$cache/edge-js-20.10.0/package/src/double"
  "kotlin=$cache/react-native-screens-3.29.0/package/android"
  "php=/usr/share/php/Symfony/Component/Console"
  "lua=$(ls -d /usr/share/lua/5.*/pl 2>/dev/null | tail -1)"
  "go=$goroot/src/net/http"
)
read -r -a corpora <<<"${BENCH_INDEX_CORPORA:-${default[*]}}"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/graphwire" ./cmd/graphwire

printf '%-11s %6s %8s %9s %8s %9s %9s %9s %8s %s\n' language files rows extract_s total_s extract_f/s files/s rows/s edit_s load
for c in "${corpora[@]}"; do
  lang="${c%%=*}" dir="${c#*=}"
  if [ ! -d "$dir" ]; then
    printf '%-11s not installed: %s\n' "$lang" "$dir"
    continue
  fi
  # A copy, so the edit below does not touch the installed package; Go needs its module.
  src="$tmp/src-$lang"
  if [ "$lang" = go ]; then
    mkdir -p "$src" && cp -r "$dir"/. "$src" && printf 'module example.com/bench\n\ngo 1.24\n' >"$src/go.mod"
  else
    cp -rL "$dir" "$src" # -L: Debian links a Lua version's files to another's
  fi
  load="$(cut -d' ' -f1-3 /proc/loadavg)"
  out="$("$tmp/graphwire" index --embedded "$tmp/data-$lang" "$src" 2>&1)" || { echo "$out"; exit 1; }
  files="$(sed -n 's/.* \([0-9]*\) files (.*/\1/p' <<<"$out")"
  rows="$(sed -n 's/^loaded .*: \([0-9]*\) rows in.*/\1/p' <<<"$out")"
  total="$(sed -n 's/^time \([0-9.]*\)\(m\?s\) (.*/\1 \2/p' <<<"$out" | awk '{print ($2=="ms") ? $1/1000 : $1}')"
  extract="$(sed -n 's/.*(type-check and extract \([0-9.]*\)\(m\?s\),.*/\1 \2/p' <<<"$out" | awk '{print ($2=="ms") ? $1/1000 : $1}')"
  # One-line edit of the first indexed file, then the incremental re-index.
  f="$(find "$src" -type f \( -name '*.py' -o -name '*.ts' -o -name '*.js' -o -name '*.java' -o -name '*.rs' -o -name '*.c' -o -name '*.cpp' -o -name '*.rb' -o -name '*.cs' -o -name '*.kt' -o -name '*.php' -o -name '*.lua' -o -name '*.scala' -o -name '*.zig' -o -name '*.sh' -o -name '*.go' \) ! -name '*_test.go' | sort | sed -n 1p)"
  case "$f" in *.py|*.rb|*.sh) echo "# edited" >>"$f" ;; *.lua) echo "-- edited" >>"$f" ;; *) echo "// edited" >>"$f" ;; esac
  s=$(date +%s.%N)
  "$tmp/graphwire" index --embedded "$tmp/data-$lang" "$src" >/dev/null 2>&1
  edit=$(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
  awk -v l="$lang" -v f="$files" -v r="$rows" -v e="$extract" -v t="$total" -v ed="$edit" -v ld="$load" \
    'BEGIN { printf "%-11s %6d %8d %9.2f %8.2f %9.0f %9.0f %9.0f %8.2f %s\n", l, f, r, e, t, f/e, f/t, r/t, ed, ld }'
done
echo "command: make bench-index ($(nproc) cores, $(go version | cut -d' ' -f3), load average now $(cut -d' ' -f1-3 /proc/loadavg))"
