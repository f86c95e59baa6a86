#!/usr/bin/env bash
# build-image.sh [OUT_DIR] — builds graphwire's OCI image without a Docker daemon, with Debian's
# umoci, into an OCI image layout at OUT_DIR (default build/image), tagged with the version
# (GRAPHWIRE_VERSION, else git describe --tags --always --dirty). Each layer is a tar made here with GNU tar (owners, modes and
# times set explicitly) and appended by `umoci raw add-layer`, which gzips it once, straight into
# the layout: no root, no user namespace, no container run. (buildah, tried first, copies the whole
# 560 MB rootfs into its vfs storage for every layer and commits uncompressed by default: 4 min
# for the same image on this 2-core machine.)
#
# The image is distroless-style: three layers and nothing else.
#   1. base    the dynamic loader and the shared libraries that ldd lists for the binary and for
#              libchdb.so (glibc, from this machine's Debian packages, with their copyright files
#              and a dpkg status record each, so scanners see the package versions),
#              ca-certificates (for --jwks-url), /etc/passwd and /etc/group with the user
#              graphwire (65532), /home/graphwire, /data (the data volume) and /tmp, both 65532's.
#   2. engine  libchdb.so (scripts/install-chdb.sh, pinned and checksummed) at
#              /usr/lib/graphwire/libchdb.so: it changes only with the pinned chDB version, so
#              a registry keeps the 560 MB layer across graphwire releases.
#   3. app     /usr/local/bin/graphwire and its LICENSE.
# It runs as 65532:65532, with GRAPHWIRE_DATA=/data (a volume) and HOME/XDG directories set, so
# a read-only root file system works (docs/deploy.md). Timestamps come from the last commit
# (SOURCE_DATE_EPOCH), so the same commit gives the same layers.
#
# Environment: GRAPHWIRE_IMAGE_WORK (scratch directory for the staged layers, about 1.3 GB; default
# a temporary one, removed at the end). It prints the layout's
# reference (oci:DIR:TAG) as its last line, and the image's size before it.
set -euo pipefail
cd "$(dirname "$0")/.."

out="${1:-build/image}"
uid=65532

log() { echo "build-image: $*" >&2; }
die() { echo "build-image: $*" >&2; exit 1; }

command -v umoci >/dev/null || die "umoci is missing (apt-get install umoci)"
[ "$(uname -m)" = x86_64 ] || die "libchdb.so exists for x86_64 only, this is $(uname -m)"

work="${GRAPHWIRE_IMAGE_WORK:-}"
if [ -z "$work" ]; then
  work="$(mktemp -d "${TMPDIR:-/tmp}/graphwire-image.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"

export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}"
created="$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)"

log "building the binary"
# -buildvcs=auto over a GOFLAGS of -buildvcs=false (.ci/run's): --version names the commit.
CGO_ENABLED=1 go build -trimpath -buildvcs=auto -o "$work/graphwire" ./cmd/graphwire
lib="$(bash scripts/install-chdb.sh | tail -n1)"
# The version: $GRAPHWIRE_VERSION (make passes its VERSION), else git describe. The binary's own
# --version shows the revision when the toolchain stamped it (not in a git worktree, whose .git
# is a file the go command does not recognise), so the tag is not read from it.
version="${GRAPHWIRE_VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo devel)}"
revision="$(git rev-parse HEAD 2>/dev/null || true)"
# An OCI tag is [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}.
tag="$(printf '%s' "$version" | tr -c 'A-Za-z0-9_.-' '-' | sed 's/^[-.]*//' | cut -c1-128)"
tag="${tag:-devel}"

# A tar of DIR whose files belong to root, but for the paths after it, which belong to $uid.
mktar() { # DIR TAR [PATH...]
  local dir="$1" tarfile="$2"; shift 2
  local excl=()
  for p in "$@"; do excl+=(--exclude "./$p"); done
  tar -C "$dir" --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
    "${excl[@]}" -cf "$tarfile" .
  if [ $# -gt 0 ]; then
    tar -C "$dir" --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner="$uid" --group="$uid" --numeric-owner \
      --no-recursion -rf "$tarfile" "${@/#/./}"
  fi
}

log "staging the base layer"
base="$work/base"
rm -rf "$base"
mkdir -p "$base"/{etc/ssl/certs,home/graphwire,data,tmp,usr/local/bin,usr/lib/graphwire,var/lib/dpkg/status.d}
chmod 0755 "$base"/home/graphwire
chmod 0750 "$base"/data
chmod 1777 "$base"/tmp
cat > "$base/etc/passwd" <<EOF
root:x:0:0:root:/root:/sbin/nologin
graphwire:x:$uid:$uid:graphwire:/home/graphwire:/sbin/nologin
EOF
cat > "$base/etc/group" <<EOF
root:x:0:
graphwire:x:$uid:
EOF
printf 'passwd: files\ngroup: files\nhosts: files dns\n' > "$base/etc/nsswitch.conf"
cp -L /etc/ssl/certs/ca-certificates.crt "$base/etc/ssl/certs/ca-certificates.crt" ||
  die "no /etc/ssl/certs/ca-certificates.crt (apt-get install ca-certificates)"
# Every shared object the binary and the engine load, as ldd resolves them on this machine
# (Debian's glibc), at the same paths, the loader included.
libs="$( { ldd "$work/graphwire"; ldd "$lib"; } | awk '/=> \//{print $3} /^\t\/[^ ]+ \(/{print $1}' | sort -u)"
[ -n "$libs" ] || die "ldd listed no libraries"
pkgs=()
for l in $libs; do
  mkdir -p "$base$(dirname "$l")"
  cp -L "$l" "$base$l"
  pkg="$(dpkg -S "$l" 2>/dev/null | head -n1 | cut -d: -f1 || true)"
  if [ -z "$pkg" ]; then
    pkg="$(dpkg -S "$(readlink -f "$l")" 2>/dev/null | head -n1 | cut -d: -f1 || true)"
  fi
  [ -n "$pkg" ] && pkgs+=("$pkg")
done
pkgs+=(ca-certificates)
for p in $(printf '%s\n' "${pkgs[@]}" | sort -u); do
  mkdir -p "$base/usr/share/doc/$p"
  cp -L "/usr/share/doc/$p/copyright" "$base/usr/share/doc/$p/copyright"
  dpkg-query -s "$p" | grep -E '^(Package|Version|Architecture|Source|Status|Maintainer|Homepage):' \
    > "$base/var/lib/dpkg/status.d/$p"
done
mktar "$base" "$work/base.tar" home/graphwire data tmp

log "staging the engine and app layers"
engine="$work/engine"
rm -rf "$engine"; mkdir -p "$engine/usr/lib/graphwire"
cp "$lib" "$engine/usr/lib/graphwire/libchdb.so"
chmod 0644 "$engine/usr/lib/graphwire/libchdb.so"
mktar "$engine" "$work/engine.tar"
app="$work/app"
rm -rf "$app"; mkdir -p "$app/usr/local/bin" "$app/usr/share/doc/graphwire"
cp "$work/graphwire" "$app/usr/local/bin/graphwire"
chmod 0755 "$app/usr/local/bin/graphwire"
cp LICENSE "$app/usr/share/doc/graphwire/LICENSE"
mktar "$app" "$work/app.tar"

log "assembling with umoci $(umoci --version | awk '{print $NF}')"
rm -rf "$out"
mkdir -p "$(dirname "$out")"
umoci init --layout "$out"
umoci new --image "$out:$tag"
for layer in base engine app; do
  umoci raw add-layer --image "$out:$tag" --history.created "$created" \
    --history.created_by "scripts/build-image.sh: $layer layer" "$work/$layer.tar"
done
umoci config --image "$out:$tag" --created "$created" --history.created "$created" \
  --history.created_by "scripts/build-image.sh: configuration" \
  --os linux --architecture amd64 \
  --config.user "$uid:$uid" \
  --config.workingdir /home/graphwire \
  --clear config.env \
  --config.env PATH=/usr/local/bin:/usr/bin:/bin \
  --config.env HOME=/home/graphwire \
  --config.env XDG_CACHE_HOME=/tmp \
  --config.env TMPDIR=/tmp \
  --config.env GRAPHWIRE_DATA=/data \
  --config.env GRAPHWIRE_CHDB_LIB=/usr/lib/graphwire/libchdb.so \
  --config.env GRAPHWIRE_LISTEN=0.0.0.0:7447 \
  --config.env GRAPHWIRE_METRICS_LISTEN=0.0.0.0:9464 \
  --config.volume /data \
  --config.exposedports 7447/tcp --config.exposedports 9464/tcp \
  --config.stopsignal SIGTERM \
  --config.entrypoint /usr/local/bin/graphwire \
  --config.cmd serve \
  --config.label org.opencontainers.image.title=graphwire \
  --config.label "org.opencontainers.image.description=graph query service for AI agents (embedded chDB engine included)" \
  --config.label "org.opencontainers.image.version=$version" \
  --config.label "org.opencontainers.image.revision=$revision" \
  --config.label "org.opencontainers.image.created=$created" \
  --config.label org.opencontainers.image.licenses=Apache-2.0
umoci gc --layout "$out"

# The size a registry stores and a pull downloads: manifest, config and compressed layers.
manifest="$(sed -n 's/.*"digest":"sha256:\([0-9a-f]*\)".*/\1/p' "$out/index.json" | head -n1)"
compressed="$(du -cb "$out/blobs/sha256/"* | tail -n1 | cut -f1)"
unpacked="$(du -cb "$base.tar" "$work/engine.tar" "$work/app.tar" | tail -n1 | cut -f1)"
log "image graphwire:$tag (manifest sha256:$manifest): $((compressed / 1000000)) MB compressed, $((unpacked / 1000000)) MB unpacked"
echo "oci:$out:$tag"
