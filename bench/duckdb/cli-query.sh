#!/usr/bin/env bash
# cli-query.sh: end-to-end time of a local `graphwire query --embedded` (process start, engine
# boot, compile, run, format, exit) on a seeded graph, and the same query sent to a running
# `graphwire serve --embedded` on the same data with `query --server` (issue 27, Goal 4:
# figures, not a gate). Runs each five times; prints wall seconds and peak RSS of each run.
#   bash bench/duckdb/cli-query.sh [SCALE]     (default 10)
set -euo pipefail
cd "$(dirname "$0")/../.."
scale="${1:-10}"
source <(bash scripts/install-chdb.sh --env 2>/dev/null)
tmp="$(mktemp -d)"
pid=""
cleanup() { [[ -n "$pid" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
go build -o "$tmp/graphwire" ./cmd/graphwire
"$tmp/graphwire" seed --embedded "$tmp/data" --scale "$scale" 2>/dev/null
q='{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1,2,3,9,10,14]}],"neighbors":{"direction":"both"},"limit":50}'
echo "scale $scale, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for i in 1 2 3 4 5; do
  /usr/bin/time -f "local  run $i: %e s wall, %M KB peak RSS" "$tmp/graphwire" query --embedded "$tmp/data" --admin "$q" >/dev/null
done
head -c 48 /dev/urandom | base64 > "$tmp/secret"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
mport="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
"$tmp/graphwire" serve --embedded "$tmp/data" --listen "127.0.0.1:$port" --jwt-secret-file "$tmp/secret" \
  --metrics-listen "127.0.0.1:$mport" 2>"$tmp/serve.log" &
pid=$!
for _ in $(seq 1 600); do
  curl -sf "http://127.0.0.1:$mport/metrics" >/dev/null 2>&1 && break
  sleep 0.1
done
token="$("$tmp/graphwire" token --jwt-secret-file "$tmp/secret" --sub 1 --admin)"
for i in 1 2 3 4 5; do
  /usr/bin/time -f "server run $i: %e s wall, %M KB peak RSS (client)" "$tmp/graphwire" query --server "127.0.0.1:$port" --token "$token" "$q" >/dev/null
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
