#!/usr/bin/env bash
# with-clickhouse-server.sh CMD [ARG...] runs CMD with GRAPHWIRE_CLICKHOUSE_DSN (and
# GRAPHWIRE_CLICKHOUSE_HTTP_DSN) naming a ClickHouse 26.7 server. When the DSN is already set
# (.ci/run starts a server and exports it) CMD runs against that one; otherwise a private
# server is started from the embedded engine's library (scripts/clickhouse-server.sh) in a
# temporary directory and stopped, with its data, when CMD ends. The exit status is CMD's.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -gt 0 ]] || { echo "usage: with-clickhouse-server.sh CMD [ARG...]" >&2; exit 2; }
if [[ -n ${GRAPHWIRE_CLICKHOUSE_DSN:-} ]]; then
  exec "$@"
fi
GRAPHWIRE_CLICKHOUSE_DIR="$(mktemp -d "${TMPDIR:-/tmp}/graphwire-clickhouse-XXXXXX")"
export GRAPHWIRE_CLICKHOUSE_DIR
export GRAPHWIRE_CLICKHOUSE_PORT="${GRAPHWIRE_CLICKHOUSE_PORT:-29300}"
trap 'bash scripts/clickhouse-server.sh --stop || true' EXIT
source <(bash scripts/clickhouse-server.sh --env)
status=0
"$@" || status=$?
exit "$status"
