#!/usr/bin/env bash
# loadtest.sh [CLIENTS] [DURATION] — bounded load test on loopback: builds
# graphwire, seeds the embedded graph at scale 1, starts `graphwire serve` on
# a free loopback port, runs scripts/loadtest (CLIENTS concurrent clients,
# default 16, for DURATION, default 30s, mixed queries in every format) while
# sampling the server's RSS, then stops the server with SIGTERM and checks it
# exits cleanly. Fails on any request error, memory growth or unclean stop.
# Not part of `make test` (it takes DURATION plus about 20 s).
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
# One admin token drives every client: let it use as many slots as clients.
"$tmp/graphwire" serve --embedded "$tmp/data" --listen "127.0.0.1:$port" --jwt-secret-file "$tmp/secret" \
  --max-concurrent "$clients" --max-per-caller "$clients" 2>"$tmp/serve.log" &
pid=$!
token="$("$tmp/graphwire" token --jwt-secret-file "$tmp/secret" --sub 1 --admin)"
"$tmp/loadtest" -addr "127.0.0.1:$port" -token "$token" -clients "$clients" -duration "$duration" -pid "$pid"
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
