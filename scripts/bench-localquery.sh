#!/usr/bin/env bash
# bench-localquery.sh: end-to-end wall time of `graphwire query --embedded D` (issue 27, Goal 4)
# two ways, interleaved round by round on the same seeded graph: cold, on a copy of D that no
# process holds (process start, engine boot, compile, run, format, exit), and through the
# `graphwire serve` that holds D (the same command finds its local socket). Checks that both
# print the same bytes. Figures, not a gate.
#   bash scripts/bench-localquery.sh [SCALE [ROUNDS]]     (default 10, 5)
set -euo pipefail
cd "$(dirname "$0")/.."
scale="${1:-10}"
rounds="${2:-5}"
source <(bash scripts/install-chdb.sh --env 2>/dev/null)
tmp="$(mktemp -d)"
pid=""
cleanup() { if [[ -n "$pid" ]]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi; rm -rf "$tmp"; }
trap cleanup EXIT
go build -o "$tmp/graphwire" ./cmd/graphwire
gw="$tmp/graphwire"
"$gw" seed --embedded "$tmp/held" --scale "$scale" >/dev/null 2>&1
cp -a "$tmp/held" "$tmp/cold"
head -c 48 /dev/urandom | base64 >"$tmp/secret"
"$gw" serve --embedded "$tmp/held" --listen 127.0.0.1:0 --jwt-secret-file "$tmp/secret" 2>"$tmp/serve.log" &
pid=$!
for _ in $(seq 1 600); do
  grep -q '"msg":"listening"' "$tmp/serve.log" 2>/dev/null && break
  sleep 0.1
done
declare -A queries=(
  [neighbors]='{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1,2,3,9,10,14]}],"neighbors":{"direction":"both"},"limit":50}'
  [user]='{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1],"columns":["username"]}]}'
)
echo "scale $scale, $rounds rounds, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for name in neighbors user; do
  for who in "--admin" "--scope 1/"; do
    q="${queries[$name]}"
    # shellcheck disable=SC2086
    "$gw" query --embedded "$tmp/cold" $who "$q" >"$tmp/a.out"
    # shellcheck disable=SC2086
    "$gw" query --embedded "$tmp/held" $who "$q" >"$tmp/b.out"
    cmp -s "$tmp/a.out" "$tmp/b.out" || { echo "$name $who: answers differ" >&2; exit 1; }
    cold=() via=()
    for _ in $(seq 1 "$rounds"); do
      # shellcheck disable=SC2086
      cold+=("$( { /usr/bin/time -f %e "$gw" query --embedded "$tmp/cold" $who "$q" >/dev/null; } 2>&1 | tail -1)")
      # shellcheck disable=SC2086
      via+=("$( { /usr/bin/time -f %e "$gw" query --embedded "$tmp/held" $who "$q" >/dev/null; } 2>&1 | tail -1)")
    done
    med() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
    printf '%-9s %-10s cold: median %s s (%s)   via serve: median %s s (%s)   same bytes\n' \
      "$name" "$who" "$(med "${cold[@]}")" "${cold[*]}" "$(med "${via[@]}")" "${via[*]}"
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
