#!/usr/bin/env bash
# install-chdb.sh installs chDB's libchdb.so (embedded ClickHouse) for graphwire.
#
# The library ships in the npm package @chdb/lib-linux-x64-gnu. This script fetches the pinned
# version with `npm pack`, verifies the SHA-256 of the tarball and of the library, and installs it to
#
#   $GRAPHWIRE_CACHE/chdb/<version>/libchdb.so, by default
#   ${XDG_CACHE_HOME:-$HOME/.cache}/graphwire/chdb/<version>/libchdb.so
#
# It is idempotent: when the library is already there with the pinned checksum it does nothing
# (no network). It prints the library path on stdout as its last line; with --env it prints
# `export GRAPHWIRE_CHDB_LIB=<path>` instead, for `source <(bash scripts/install-chdb.sh --env)`;
# with --where it only prints the path, installing nothing; with --cache-dir it only prints
# graphwire's cache directory, the root every script and test keeps its tools under.
set -euo pipefail

CHDB_NPM_PACKAGE="@chdb/lib-linux-x64-gnu"
CHDB_VERSION="26.7.3-stable.1"
CHDB_TARBALL_SHA256="c0d32b129e988f2b9a9a31c9141aecf5e1e2453f9a079efc4d36ab8e3f92b2ad"
CHDB_LIB_SHA256="36ad4e999882821ef13cf2d0f52c93f48e6ee1b4498b35a201c23ce4b8d15bf5"

mode=path
case "${1:-}" in
  "") ;;
  --env) mode=env ;;
  --where) mode=where ;;
  --cache-dir) mode=cache-dir ;;
  -h|--help)
    sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
    exit 0 ;;
  *) echo "install-chdb.sh: unknown argument: $1 (usage: install-chdb.sh [--env|--where|--cache-dir])" >&2; exit 2 ;;
esac

log() { echo "install-chdb: $*" >&2; }

# The XDG base directory spec ignores a relative XDG_CACHE_HOME; so do we (and the Go code).
xdg_cache="$HOME/.cache"
if [[ ${XDG_CACHE_HOME:-} == /* ]]; then xdg_cache="$XDG_CACHE_HOME"; fi
cache="${GRAPHWIRE_CACHE:-$xdg_cache/graphwire}"
if [[ $mode == cache-dir ]]; then
  echo "$cache"
  exit 0
fi
dest_dir="$cache/chdb/$CHDB_VERSION"
lib="$dest_dir/libchdb.so"
if [[ $mode == where ]]; then
  echo "$lib"
  exit 0
fi

emit() {
  if [[ $mode == env ]]; then
    printf 'export GRAPHWIRE_CHDB_LIB=%q\n' "$lib"
  else
    echo "$lib"
  fi
}

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

if [[ "$(uname -s)/$(uname -m)" != "Linux/x86_64" ]]; then
  log "only linux x86_64 is supported (this is $(uname -s)/$(uname -m))"
  exit 1
fi

# Fast path: installed and verified before. The stamp records the checksum that was verified so
# that a re-run does not hash 560 MB every time; a size change still triggers a full check.
stamp="$dest_dir/.verified"
if [[ -f $lib && -f $stamp ]] && [[ "$(cat "$stamp")" == "$CHDB_LIB_SHA256 $(stat -c %s "$lib")" ]]; then
  log "libchdb $CHDB_VERSION already installed at $lib"
  emit
  exit 0
fi
if [[ -f $lib ]] && [[ "$(sha256_of "$lib")" == "$CHDB_LIB_SHA256" ]]; then
  echo "$CHDB_LIB_SHA256 $(stat -c %s "$lib")" > "$stamp"
  log "libchdb $CHDB_VERSION already installed at $lib (checksum verified)"
  emit
  exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
  log "npm is not installed; it is needed to fetch $CHDB_NPM_PACKAGE@$CHDB_VERSION."
  log "install it first (Debian: apt-get update && apt-get install -y npm), then re-run this script."
  exit 1
fi

mkdir -p "$dest_dir"
work="$(mktemp -d "$cache/chdb/.install.XXXXXX")"
trap 'rm -rf "$work"' EXIT

log "fetching $CHDB_NPM_PACKAGE@$CHDB_VERSION with npm pack (about 180 MB)"
if ! tarball_name="$(cd "$work" && npm pack --silent "$CHDB_NPM_PACKAGE@$CHDB_VERSION" 2>"$work/npm.log" | tail -n1)"; then
  tarball_name=""
fi
tarball="$work/$tarball_name"
if [[ -z $tarball_name || ! -f $tarball ]]; then
  log "npm pack $CHDB_NPM_PACKAGE@$CHDB_VERSION produced no tarball; npm said:"
  grep -v 'Unknown user config' "$work/npm.log" >&2 || true
  exit 1
fi

got="$(sha256_of "$tarball")"
if [[ $got != "$CHDB_TARBALL_SHA256" ]]; then
  log "checksum mismatch for $tarball_name: got $got, want $CHDB_TARBALL_SHA256"
  exit 1
fi

tar -xzf "$tarball" -C "$work" package/libchdb.so
got="$(sha256_of "$work/package/libchdb.so")"
if [[ $got != "$CHDB_LIB_SHA256" ]]; then
  log "checksum mismatch for libchdb.so: got $got, want $CHDB_LIB_SHA256"
  exit 1
fi

# Rename into place so that a reader never sees a half-written library.
mv -f "$work/package/libchdb.so" "$lib.tmp"
chmod 0755 "$lib.tmp"
mv -f "$lib.tmp" "$lib"
echo "$CHDB_LIB_SHA256 $(stat -c %s "$lib")" > "$stamp"
log "installed libchdb $CHDB_VERSION at $lib"
emit
