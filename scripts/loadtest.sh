#!/usr/bin/env bash
# loadtest.sh [CLIENTS] [DURATION] — bounded load test on loopback: builds
# graphwire, seeds the embedded graph at scale 1, starts `graphwire serve` on
# a free loopback port, runs scripts/loadtest (CLIENTS concurrent clients,
# default 16, for DURATION, default 30s, mixed queries in every format) while
# sampling the server's RSS, scrapes its Prometheus /metrics and checks the
# service's series are there, then stops the server with SIGTERM and checks
# it exits cleanly. Fails on any request error, memory growth, missing
# series or unclean stop.
# Not part of `make test` (it takes DURATION plus about 20 s).
# PER_QUERY=N instead sends each query of the mix N times from one client, one at a time, and
# prints the server's CPU time per request of each (scripts/loadtest -per-query).
set -euo pipefail
cd "$(dirname "$0")/.."
clients="${1:-16}"
duration="${2:-30s}"

bash scripts/install-chdb.sh >/dev/null
tmp="$(mktemp -d)"
pid=""
cleanup() { [[ -n "$pid" ]] && kill "$pid" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

go build -o "$tmp/graphwire" ./cmd/graphwire
go build -o "$tmp/loadtest" ./scripts/loadtest
"$tmp/graphwire" seed --embedded "$tmp/data" --scale 1 2>/dev/null
head -c 48 /dev/urandom | base64 > "$tmp/secret"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
mport="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
# One admin token drives every client: let it use as many slots as clients.
"$tmp/graphwire" serve --embedded "$tmp/data" --listen "127.0.0.1:$port" --jwt-secret-file "$tmp/secret" \
  --max-concurrent "$clients" --max-per-caller "$clients" --metrics-listen "127.0.0.1:$mport" 2>"$tmp/serve.log" &
pid=$!
token="$("$tmp/graphwire" token --jwt-secret-file "$tmp/secret" --sub 1 --admin)"
if [[ -n "${PER_QUERY:-}" ]]; then
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  "$tmp/loadtest" -addr "127.0.0.1:$port" -token "$token" -pid "$pid" -per-query "$PER_QUERY"
else
  "$tmp/loadtest" -addr "127.0.0.1:$port" -token "$token" -clients "$clients" -duration "$duration" -pid "$pid"
fi
python3 - "http://127.0.0.1:$mport/metrics" <<'PY'
import sys, urllib.request
text = urllib.request.urlopen(sys.argv[1], timeout=10).read().decode()
want = ["graphwire_requests_total", "graphwire_request_duration_seconds_count", "graphwire_engine_duration_seconds_count",
        "graphwire_format_duration_seconds_count", "graphwire_answer_rows_total", "graphwire_answer_tokens_total",
        "graphwire_answer_bytes_total", "graphwire_admission_slots_in_use", "graphwire_admission_waiting",
        "graphwire_admission_slots", "graphwire_graph_answers_total"]
lines = [l for l in text.splitlines() if l.startswith("graphwire_")]
missing = [w for w in want if not any(l.startswith(w) for l in lines)]
for l in lines:
    if l.startswith(("graphwire_requests_total", "graphwire_engine_duration_seconds_count", "graphwire_format_duration_seconds_count",
                     "graphwire_graph_answers_total", "graphwire_admission_rejections_total")):
        print("metrics:", l)
if missing:
    sys.exit("metrics: missing series " + ", ".join(missing))
print("metrics: %d graphwire_ samples, every expected series present" % len(lines))
PY
kill -TERM "$pid"
if wait "$pid"; then
  echo "server: stopped cleanly on SIGTERM"
else
  echo "server: exit status $? after SIGTERM" >&2
  tail -5 "$tmp/serve.log" >&2
  exit 1
fi
pid=""
grep -c '"msg":"rpc"' "$tmp/serve.log" | xargs -I{} echo "server: logged {} calls"
