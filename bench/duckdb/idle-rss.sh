#!/usr/bin/env bash
# idle-rss.sh: resident memory of an idle `graphwire serve` on the embedded engine at scale 1
# (issue 27, Goal 4: a figure, not a gate). Seeds a temporary data directory, starts serve,
# waits until its metrics endpoint answers, then samples VmRSS every 5 s for 30 s with no
# request sent, and once more after one metrics scrape. Loopback only; removes its files.
#   bash bench/duckdb/idle-rss.sh [SCALE]
set -euo pipefail
cd "$(dirname "$0")/../.."
scale="${1:-1}"
source <(bash scripts/install-chdb.sh --env 2>/dev/null)
tmp="$(mktemp -d)"
pid=""
cleanup() { [[ -n "$pid" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
go build -o "$tmp/graphwire" ./cmd/graphwire
"$tmp/graphwire" seed --embedded "$tmp/data" --scale "$scale" 2>/dev/null
head -c 48 /dev/urandom | base64 > "$tmp/secret"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
mport="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
start=$(date +%s.%N)
"$tmp/graphwire" serve --embedded "$tmp/data" --listen "127.0.0.1:$port" --jwt-secret-file "$tmp/secret" \
  --metrics-listen "127.0.0.1:$mport" 2>"$tmp/serve.log" &
pid=$!
for _ in $(seq 1 600); do
  curl -sf "http://127.0.0.1:$mport/metrics" >/dev/null 2>&1 && break
  sleep 0.1
done
ready=$(date +%s.%N)
rss() { awk '/^VmRSS/ {printf "%.0f", $2/1024}' "/proc/$pid/status"; }
hwm() { awk '/^VmHWM/ {printf "%.0f", $2/1024}' "/proc/$pid/status"; }
split() { awk '/^Rss(Anon|File|Shmem)/ {printf "%s %.0f MB  ", $1, $2/1024}' "/proc/$pid/status"; }
printf 'serve scale %s: metrics answering after %.2f s; load average %s\n' "$scale" \
  "$(echo "$ready - $start" | bc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
for t in 0 5 10 15 20 25 30; do
  [[ $t -gt 0 ]] && sleep 5
  echo "idle ${t}s: RSS $(rss) MB (peak $(hwm) MB): $(split)"
done
