#!/usr/bin/env bash
# clickhouse-server.sh starts and stops ClickHouse 26.7 servers on 127.0.0.1, made from the
# embedded engine's own library: clickhouse-local inside libchdb.so opens its TCP (native) and
# HTTP listeners on SYSTEM START LISTEN when run through chdb_query_cmdline with --listen_host,
# --tcp_port and --http_port (scripts/chserver/chserver.c, compiled once with gcc into the
# cache). A last statement that sleeps until the process is stopped keeps the listeners open.
#
# Each server i (1..N) has the directory $GRAPHWIRE_CLICKHOUSE_DIR/s<i> (default
# ${TMPDIR:-/tmp}/graphwire-clickhouse) holding its data, log and pid, native port
# $GRAPHWIRE_CLICKHOUSE_PORT + 2(i-1) (default 29100) and HTTP port one above. A port held by
# another process is skipped. Starting is idempotent: servers that answer are kept, and one
# that died is started again on its data directory.
#
#   bash scripts/clickhouse-server.sh [--servers N]        starts them, prints one DSN a line
#   bash scripts/clickhouse-server.sh [--servers N] --env  also prints export lines:
#        GRAPHWIRE_CLICKHOUSE_DSN (server 1, native), GRAPHWIRE_CLICKHOUSE_HTTP_DSN (server 1,
#        HTTP) and GRAPHWIRE_CLICKHOUSE_DSNS (all, native, space-separated)
#   bash scripts/clickhouse-server.sh --stop               stops every server, removes the dirs
#   bash scripts/clickhouse-server.sh [--servers N] --cluster NAME [--env]
#        starts N servers (default 2) that share a config ($GRAPHWIRE_CLICKHOUSE_DIR/cluster.xml)
#        whose <remote_servers> names a cluster NAME with every server as a shard of one
#        replica: a loopback N-shard cluster (docs/cluster.md). --env also prints
#        GRAPHWIRE_CLUSTER=NAME. Servers already running without that config are restarted.
#
# What it is not: clickhouse-server. It is the same engine code as the embedded engine, with
# the only user `default` and no password (loopback only), and the keep-alive statement shows
# in system.processes. ClickHouse Keeper is not started (no ON CLUSTER, no Replicated tables).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=dsn
servers=""
cluster=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --env) mode=env ;;
    --stop) mode=stop ;;
    --servers) servers="${2:?--servers needs a number}"; shift ;;
    --cluster) cluster="${2:?--cluster needs a name}"; shift ;;
    -h|--help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "clickhouse-server.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done
if [[ -z $servers ]]; then if [[ -n $cluster ]]; then servers=2; else servers=1; fi; fi
[[ -z $cluster || $cluster =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || { echo "clickhouse-server.sh: --cluster wants a name of letters, digits and _, got $cluster" >&2; exit 2; }
[[ $servers =~ ^[1-9][0-9]?$ ]] || { echo "clickhouse-server.sh: --servers wants 1..99, got $servers" >&2; exit 2; }

log() { echo "clickhouse-server: $*" >&2; }

root="${GRAPHWIRE_CLICKHOUSE_DIR:-${TMPDIR:-/tmp}/graphwire-clickhouse}"
base="${GRAPHWIRE_CLICKHOUSE_PORT:-29100}"

alive() { [[ -f $1/pid ]] && kill -0 "$(cat "$1/pid")" 2>/dev/null; }

stop_one() {
  local d=$1 pid
  if alive "$d"; then
    pid="$(cat "$d/pid")"
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
    log "stopped $(basename "$d") (pid $pid)"
  fi
  rm -rf "$d"
}

if [[ $mode == stop ]]; then
  shopt -s nullglob
  for d in "$root"/s*; do stop_one "$d"; done
  rm -rf "$root"
  exit 0
fi

# ping answers when the HTTP listener of port $1 says Ok.
ping() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsS --max-time 2 "http://127.0.0.1:$1/ping" 2>/dev/null | grep -q '^Ok'
  else
    (exec 3<>"/dev/tcp/127.0.0.1/$1" && printf 'GET /ping HTTP/1.0\r\n\r\n' >&3 && timeout 2 cat <&3 | grep -q '^Ok') 2>/dev/null
  fi
}
# in_use reports a listener on port $1.
in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

lib="$(bash scripts/install-chdb.sh 2>/dev/null | tail -n 1)"
[[ -f $lib ]] || { log "libchdb.so is not installed (bash scripts/install-chdb.sh)"; exit 1; }

# The loader, compiled once per version of its source.
src=scripts/chserver/chserver.c
sum="$(sha256sum "$src" | cut -c1-16)"
cache="$(bash scripts/install-chdb.sh --cache-dir)/chserver/$sum"
bin="$cache/chserver"
if [[ ! -x $bin ]]; then
  command -v gcc >/dev/null 2>&1 || { log "gcc is needed to build the loader (apt-get install gcc)"; exit 1; }
  mkdir -p "$cache"
  gcc -O2 -Wall -o "$bin.tmp" "$src" -ldl
  mv "$bin.tmp" "$bin"
fi

# Ports first: a cluster's config names every server before any starts. A server that answers
# keeps its port, unless the cluster config it was started with is not the one wanted.
want_cfg=""
ports=()
port=$base
for i in $(seq 1 "$servers"); do
  d="$root/s$i"
  if alive "$d" && [[ -f $d/port ]] && ping "$(( $(cat "$d/port") + 1 ))"; then
    ports+=("$(cat "$d/port")")
    port=$(( $(cat "$d/port") + 2 ))
    continue
  fi
  for _ in $(seq 1 200); do
    in_use "$port" || in_use "$((port + 1))" || break
    port=$((port + 2))
  done
  ports+=("$port")
  port=$((port + 2))
done
if [[ -n $cluster ]]; then
  mkdir -p "$root"
  {
    echo "<clickhouse>"
    echo "  <remote_servers>"
    echo "    <$cluster>"
    for p in "${ports[@]}"; do
      echo "      <shard><replica><host>127.0.0.1</host><port>$p</port></replica></shard>"
    done
    echo "    </$cluster>"
    echo "  </remote_servers>"
    echo "</clickhouse>"
  } > "$root/cluster.xml.tmp"
  mv "$root/cluster.xml.tmp" "$root/cluster.xml"
  want_cfg="$(sha256sum "$root/cluster.xml" | cut -c1-16)"
fi

keepalive="SYSTEM START LISTEN TCP; SYSTEM START LISTEN HTTP; SELECT sleepEachRow(1) FROM numbers(1000000000) SETTINGS max_block_size = 1, function_sleep_max_microseconds_per_block = 0 FORMAT Null"

dsns=()
for i in $(seq 1 "$servers"); do
  d="$root/s$i"
  port="${ports[$((i - 1))]}"
  if alive "$d" && [[ -f $d/port ]] && [[ $(cat "$d/port") == "$port" ]] && [[ "$(cat "$d/cluster" 2>/dev/null || true)" == "$want_cfg" ]] && ping "$((port + 1))"; then
    dsns+=("clickhouse://127.0.0.1:$port/default")
    continue
  fi
  # A dead or half-started one, or one of another config: stopped, and started again on its
  # data (a shard that was killed comes back with its rows).
  if alive "$d"; then
    pid="$(cat "$d/pid")"; kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$d/pid"
  mkdir -p "$d/data"
  echo "$port" > "$d/port"
  echo "$want_cfg" > "$d/cluster"
  cfg=()
  [[ -n $cluster ]] && cfg=(--config-file="$root/cluster.xml")
  log "starting s$i on 127.0.0.1:$port (native) and :$((port + 1)) (HTTP), data in $d"
  (
    cd "$d"
    GRAPHWIRE_CHDB_LIB="$lib" nohup "$bin" "${cfg[@]}" --path="$d/data/" --listen_host=127.0.0.1 \
      --tcp_port="$port" --http_port="$((port + 1))" \
      --multiquery --query "$keepalive" >"$d/server.log" 2>&1 </dev/null &
    echo $! > "$d/pid"
  )
  up=""
  for _ in $(seq 1 600); do
    if ping "$((port + 1))"; then up=1; break; fi
    if ! alive "$d"; then break; fi
    sleep 0.1
  done
  if [[ -z $up ]]; then
    if alive "$d"; then log "s$i did not answer on 127.0.0.1:$((port + 1)) within 60 s; its log:"; else log "s$i exited during start-up; its log:"; fi
    tail -n 30 "$d/server.log" >&2 || true
    stop_one "$d"
    exit 1
  fi
  dsns+=("clickhouse://127.0.0.1:$port/default")
done

if [[ $mode == env ]]; then
  printf 'export GRAPHWIRE_CLICKHOUSE_DSN=%q\n' "${dsns[0]}"
  first="${dsns[0]#clickhouse://127.0.0.1:}"
  printf 'export GRAPHWIRE_CLICKHOUSE_HTTP_DSN=%q\n' "http://127.0.0.1:$(( ${first%%/*} + 1 ))/default"
  printf 'export GRAPHWIRE_CLICKHOUSE_DSNS=%q\n' "${dsns[*]}"
  [[ -z $cluster ]] || printf 'export GRAPHWIRE_CLUSTER=%q\n' "$cluster"
else
  printf '%s\n' "${dsns[@]}"
fi
