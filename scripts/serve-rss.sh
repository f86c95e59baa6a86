#!/usr/bin/env bash
# serve-rss.sh: resident memory of an idle `graphwire serve --embedded` (issue 27, Goal 4: a
# figure, not a gate). Seeds a temporary graph, starts serve, and reads VmRSS (with its
# anonymous and file-backed parts, /proc/PID/status) and the Go heap (/metrics): 35 s after
# start, 35 s after 60 queries (scripts/loadtest -per-query 10), then 5, 35, 70 and 100 s after
# a `graphwire load` of 200 changed MergeRequest rows through serve's local socket. Loopback
# only; removes its files. BIN (default: built from this tree) compares another binary on the
# same steps; run two at once on different PORT bases to interleave them.
#   bash scripts/serve-rss.sh [SCALE [BIN [PORT]]]      (default 1, this tree, a free port)
set -euo pipefail
cd "$(dirname "$0")/.."
scale="${1:-1}"
source <(bash scripts/install-chdb.sh --env 2>/dev/null)
tmp="$(mktemp -d)"
pid=""
cleanup() { if [[ -n "$pid" ]]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi; rm -rf "$tmp"; }
trap cleanup EXIT
gw="${2:-}"
if [[ -z "$gw" ]]; then
  go build -o "$tmp/graphwire" ./cmd/graphwire
  gw="$tmp/graphwire"
fi
go build -o "$tmp/loadtest" ./scripts/loadtest
free() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port="${3:-$(free)}"
mport="$((port + 1))"
[[ -n "${3:-}" ]] || mport="$(free)"
"$gw" seed --embedded "$tmp/data" --scale "$scale" >/dev/null 2>&1
"$gw" export --embedded "$tmp/data" --types MergeRequest "$tmp/export" >/dev/null 2>&1
head -200 "$tmp/export/MergeRequest.jsonl" | sed 's/"title":"/"title":"edited /' >"$tmp/MergeRequest.jsonl"
head -c 48 /dev/urandom | base64 >"$tmp/secret"
"$gw" serve --embedded "$tmp/data" --listen "127.0.0.1:$port" --jwt-secret-file "$tmp/secret" \
  --metrics-listen "127.0.0.1:$mport" --max-concurrent 16 --max-per-caller 16 2>"$tmp/serve.log" &
pid=$!
for _ in $(seq 1 600); do
  curl -sf "http://127.0.0.1:$mport/metrics" >/dev/null 2>&1 && break
  sleep 0.1
done
st() {
  awk '/^(VmRSS|RssAnon|RssFile)/ {printf "%s %.1f  ", $1, $2/1024}' "/proc/$pid/status"
  curl -s "http://127.0.0.1:$mport/metrics" |
    awk '/^go_memstats_(heap_inuse|heap_released|sys)_bytes / {sub("go_memstats_", "", $1); printf "%s %.1f  ", $1, $2/1048576}'
  echo
}
echo "scale $scale, $gw; load average $(cut -d' ' -f1-3 /proc/loadavg)"
sleep 35
echo "idle after start:     $(st)"
token="$("$gw" token --jwt-secret-file "$tmp/secret" --sub 1 --admin)"
"$tmp/loadtest" -addr "127.0.0.1:$port" -token "$token" -pid "$pid" -per-query 10 >/dev/null
sleep 35
echo "35 s after 60 queries: $(st)"
"$gw" load --embedded "$tmp/data" "$tmp/MergeRequest.jsonl" >/dev/null 2>&1
sleep 5
echo "5 s after the load:   $(st)"
for t in 35 70 100; do
  sleep $((t == 35 ? 30 : t == 70 ? 35 : 30))
  echo "$t s after the load:  $(st)"
done
grep -o '"msg":"merge"[^}]*' "$tmp/serve.log" || true
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
