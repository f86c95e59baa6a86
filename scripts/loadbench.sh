#!/usr/bin/env bash
# loadbench.sh [CALLS] [DEFS] [RUNS] — load throughput of `graphwire load`, as in docs/loading.md.
#
# Builds graphwire, writes DEFS Definition rows (default 200000) and CALLS distinct CALLS
# edges between them (default 1000000) as JSON Lines, loads them RUNS times (default 3), each
# time into a fresh embedded data directory, then has the engine write the same graph as
# Parquet (`graphwire export --format parquet`) and loads that RUNS times. Every run prints
# rows, wall seconds, rows/s, CPU seconds and peak RSS (from /usr/bin/time -v), and the
# load's own note. Not part of `make test`: it takes about a minute and 1 GB of disk.
#
# Set KEEP=1 to keep the scratch directory (printed at the start), TRACE=1 to pass --trace,
# BIN=PATH to measure that graphwire binary instead of building this tree (to compare two
# commits in one sitting on a shared machine, where the load average moves the wall times).
set -euo pipefail
cd "$(dirname "$0")/.."
calls="${1:-1000000}"
defs="${2:-200000}"
runs="${3:-3}"

source <(bash scripts/install-chdb.sh --env)
tmp="$(mktemp -d)"
echo "scratch: $tmp" >&2
cleanup() { [[ "${KEEP:-}" == 1 ]] || rm -rf "$tmp"; }
trap cleanup EXIT

if [[ -n "${BIN:-}" ]]; then
  cp "$BIN" "$tmp/graphwire"
else
  go build -o "$tmp/graphwire" ./cmd/graphwire
fi
mkdir -p "$tmp/jsonl" "$tmp/parquet"

# The same shape as BenchmarkLoad (package load): (j, j/defs) is distinct for every j, so
# every edge is distinct.
awk -v n="$defs" 'BEGIN { for (i = 0; i < n; i++)
  printf "{\"id\":%d,\"traversal_path\":\"1/10/\",\"name\":\"f%d\",\"fqn\":\"pkg.f%d\",\"definition_type\":\"Function\",\"file_path\":\"pkg/f%d.go\",\"start_line\":%d,\"end_line\":%d,\"project_id\":1,\"branch\":\"main\"}\n",
    i + 1, i, i, i % 1000, i % 500, i % 500 + 10 }' > "$tmp/jsonl/Definition.jsonl"
awk -v n="$calls" -v d="$defs" 'BEGIN { for (j = 0; j < n; j++)
  printf "{\"traversal_path\":\"1/10/\",\"source_kind\":\"Definition\",\"source_id\":%d,\"target_kind\":\"Definition\",\"target_id\":%d}\n",
    j % d + 1, (j * 7919 + int(j / d) + 13) % d + 1 }' > "$tmp/jsonl/CALLS.jsonl"

rows=$((calls + defs))
bench() { # bench FORMAT RUN FILE...
  local format="$1" run="$2"
  shift 2
  local dir="$tmp/data-$format-$run"
  local trace=()
  [[ "${TRACE:-}" == 1 ]] && trace=(--trace)
  # Write out what earlier steps left in memory (the input files, the previous run's deleted
  # data directory) first: on a file system without a journal, such as this machine's, every
  # file created while freed inodes are still unwritten costs a scan over them (ext4's
  # recently_deleted, 10% of a run's CPU in perf), a cost of the previous run, not of this one.
  sync
  /usr/bin/time -v -o "$tmp/time" "$tmp/graphwire" load --embedded "$dir" "${trace[@]}" "$@" 2>"$tmp/note"
  local wall rss user sys
  wall="$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$tmp/time")"
  rss="$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$tmp/time")"
  user="$(awk -F': ' '/User time/ { print $2 }' "$tmp/time")"
  sys="$(awk -F': ' '/System time/ { print $2 }' "$tmp/time")"
  printf '%-8s run %d: %d rows in %.2f s wall = %.0f rows/s; CPU %.2f s; peak RSS %d MB\n' \
    "$format" "$run" "$rows" "$wall" "$(echo "$rows / $wall" | bc -l)" "$(echo "$user + $sys" | bc -l)" "$rss"
  if [[ "${TRACE:-}" == 1 ]]; then cat "$tmp/note"; else grep -E '^(loaded|rows queryable|time)' "$tmp/note" | sed 's/^/    /'; fi
  [[ "$run" == 1 && "$format" == jsonl ]] || rm -rf "$dir"
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "input: $defs Definition + $calls CALLS rows; JSONL $(du -sh "$tmp/jsonl" | cut -f1)"
for run in $(seq 1 "$runs"); do
  bench jsonl "$run" "$tmp/jsonl/Definition.jsonl" "$tmp/jsonl/CALLS.jsonl"
done
"$tmp/graphwire" export --embedded "$tmp/data-jsonl-1" --format parquet "$tmp/parquet" >/dev/null
rm -rf "$tmp/data-jsonl-1"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "input: the same graph as Parquet written by the engine, $(du -sh "$tmp/parquet" | cut -f1)"
for run in $(seq 1 "$runs"); do
  bench parquet "$run" "$tmp"/parquet/*.parquet
done
