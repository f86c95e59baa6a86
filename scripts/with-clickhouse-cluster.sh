#!/usr/bin/env bash
# with-clickhouse-cluster.sh CMD [ARG...] runs CMD with GRAPHWIRE_CLUSTER_DSN and
# GRAPHWIRE_CLUSTER naming a loopback ClickHouse 26.7 cluster of CLUSTER_SHARDS servers
# (default 2), each a shard (scripts/clickhouse-server.sh --cluster). When
# GRAPHWIRE_CLUSTER_DSN is already set CMD runs against that cluster; otherwise a private one
# is started in a temporary directory (ports from GRAPHWIRE_CLICKHOUSE_PORT, default 29400)
# and stopped, with its data, when CMD ends. The exit status is CMD's.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -gt 0 ]] || { echo "usage: with-clickhouse-cluster.sh CMD [ARG...]" >&2; exit 2; }
if [[ -n ${GRAPHWIRE_CLUSTER_DSN:-} ]]; then
  export GRAPHWIRE_CLUSTER="${GRAPHWIRE_CLUSTER:-gw}"
  exec "$@"
fi
GRAPHWIRE_CLICKHOUSE_DIR="$(mktemp -d "${TMPDIR:-/tmp}/graphwire-cluster-XXXXXX")"
export GRAPHWIRE_CLICKHOUSE_DIR
export GRAPHWIRE_CLICKHOUSE_PORT="${GRAPHWIRE_CLICKHOUSE_PORT:-29400}"
trap 'bash scripts/clickhouse-server.sh --stop || true' EXIT
env="$(bash scripts/clickhouse-server.sh --servers "${CLUSTER_SHARDS:-2}" --cluster gw --env)"
first="$(sed -n 's/^export GRAPHWIRE_CLICKHOUSE_DSN=//p' <<<"$env")"
export GRAPHWIRE_CLUSTER_DSN="$first" GRAPHWIRE_CLUSTER=gw
status=0
"$@" || status=$?
exit "$status"
