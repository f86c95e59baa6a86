#!/usr/bin/env bash
# start-clickhouse-server.sh starts Debian's clickhouse-server (18.16) on 127.0.0.1 for the
# driver-level executor checks, installing the package first when it is missing.
#
# The server runs as a background process with a throwaway data directory
# (${GRAPHWIRE_LEGACY_CLICKHOUSE_DIR:-${TMPDIR:-/tmp}/graphwire-clickhouse-legacy}), native port
# ${GRAPHWIRE_LEGACY_CLICKHOUSE_PORT:-19000} and HTTP port (native port + 1). The script is
# idempotent: when that server already answers it only prints the DSN.
#
#   bash scripts/start-clickhouse-server.sh           prints the DSN
#   bash scripts/start-clickhouse-server.sh --env     prints export GRAPHWIRE_LEGACY_CLICKHOUSE_DSN=…
#   bash scripts/start-clickhouse-server.sh --stop    stops the server and removes its directory
set -euo pipefail

mode=dsn
case "${1:-}" in
  "") ;;
  --env) mode=env ;;
  --stop) mode=stop ;;
  -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "start-clickhouse-server.sh: unknown argument: $1" >&2; exit 2 ;;
esac

log() { echo "start-clickhouse-server: $*" >&2; }

dir="${GRAPHWIRE_LEGACY_CLICKHOUSE_DIR:-${TMPDIR:-/tmp}/graphwire-clickhouse-legacy}"
port="${GRAPHWIRE_LEGACY_CLICKHOUSE_PORT:-19000}"
http_port=$((port + 1))
pidfile="$dir/clickhouse-server.pid"
dsn="clickhouse://127.0.0.1:$port/default"

emit() {
  if [[ $mode == env ]]; then
    printf 'export GRAPHWIRE_LEGACY_CLICKHOUSE_DSN=%q\n' "$dsn"
  else
    echo "$dsn"
  fi
}

answers() { curl -fsS --max-time 2 "http://127.0.0.1:$http_port/ping" 2>/dev/null | grep -q '^Ok'; }

running_pid() {
  [[ -f $pidfile ]] || return 1
  local pid
  pid="$(cat "$pidfile")"
  [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

if [[ $mode == stop ]]; then
  if pid="$(running_pid)"; then
    kill "$pid"
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    log "stopped server (pid $pid)"
  fi
  rm -rf "$dir"
  exit 0
fi

if running_pid >/dev/null && answers; then
  log "clickhouse-server already running on 127.0.0.1:$port"
  emit
  exit 0
fi

if ! command -v clickhouse-server >/dev/null 2>&1 && [[ ! -x /usr/sbin/clickhouse-server ]]; then
  if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
    log "clickhouse-server is not installed; install Debian's package: apt-get install clickhouse-server"
    exit 1
  fi
  log "installing Debian's clickhouse-server"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y --no-install-recommends clickhouse-server >&2; then
    apt-get update >&2
    apt-get install -y --no-install-recommends clickhouse-server >&2
  fi
fi
server="$(command -v clickhouse-server || echo /usr/sbin/clickhouse-server)"

# A stale directory from a dead server is thrown away: the data is disposable.
if pid="$(running_pid)"; then kill "$pid" 2>/dev/null || true; fi
rm -rf "$dir"
mkdir -p "$dir/data" "$dir/tmp" "$dir/user_files" "$dir/log" "$dir/format_schemas"

cat > "$dir/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
    <logger>
        <level>warning</level>
        <log>$dir/log/server.log</log>
        <errorlog>$dir/log/error.log</errorlog>
        <size>10M</size>
        <count>1</count>
    </logger>
    <listen_host>127.0.0.1</listen_host>
    <tcp_port>$port</tcp_port>
    <http_port>$http_port</http_port>
    <max_connections>256</max_connections>
    <keep_alive_timeout>3</keep_alive_timeout>
    <max_concurrent_queries>100</max_concurrent_queries>
    <uncompressed_cache_size>268435456</uncompressed_cache_size>
    <mark_cache_size>268435456</mark_cache_size>
    <path>$dir/data/</path>
    <tmp_path>$dir/tmp/</tmp_path>
    <user_files_path>$dir/user_files/</user_files_path>
    <format_schema_path>$dir/format_schemas/</format_schema_path>
    <users_config>$dir/users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <timezone>UTC</timezone>
    <mlock_executable>false</mlock_executable>
</yandex>
XML

cat > "$dir/users.xml" <<XML
<?xml version="1.0"?>
<yandex>
    <profiles>
        <default>
            <max_memory_usage>4000000000</max_memory_usage>
        </default>
    </profiles>
    <users>
        <default>
            <password></password>
            <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
            <profile>default</profile>
            <quota>default</quota>
        </default>
    </users>
    <quotas>
        <default>
            <interval>
                <duration>3600</duration>
                <queries>0</queries>
                <errors>0</errors>
                <result_rows>0</result_rows>
                <read_rows>0</read_rows>
                <execution_time>0</execution_time>
            </interval>
        </default>
    </quotas>
</yandex>
XML

log "starting $server on 127.0.0.1:$port (data in $dir)"
(
  cd "$dir"
  nohup "$server" --config-file="$dir/config.xml" --pid-file="$pidfile" \
    >"$dir/log/stdout.log" 2>"$dir/log/stderr.log" </dev/null &
  echo $! > "$pidfile.launch"
)

for _ in $(seq 1 300); do
  if answers; then
    # The server writes its own pid file; fall back to the launcher's pid.
    [[ -s $pidfile ]] || cp "$pidfile.launch" "$pidfile"
    log "clickhouse-server is up"
    emit
    exit 0
  fi
  if ! kill -0 "$(cat "$pidfile.launch")" 2>/dev/null; then
    log "clickhouse-server exited during start-up; its logs:"
    tail -n 30 "$dir/log/stderr.log" "$dir/log/error.log" >&2 2>/dev/null || true
    exit 1
  fi
  sleep 0.1
done
log "clickhouse-server did not answer on 127.0.0.1:$http_port within 30s; its logs:"
tail -n 30 "$dir/log/stderr.log" "$dir/log/error.log" >&2 2>/dev/null || true
exit 1
