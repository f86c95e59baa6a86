#!/usr/bin/env bash
# dist.sh [OUT_DIR] — the release artifacts of this checkout, in OUT_DIR (default dist/):
#
#   graphwire-VERSION-linux-amd64.tar.gz         graphwire-VERSION-linux-amd64/ holding
#       bin/graphwire                            (cgo, the embedded engine loaded at run time)
#       LICENSE README.md docs/                  (docs/*.md and their pictures)
#       scripts/install-chdb.sh                  (fetches and checks the pinned libchdb.so)
#       deploy/                                  (the systemd unit and the Helm chart)
#   graphwire-VERSION-linux-amd64.cdx.json       CycloneDX SBOM of the modules in that binary,
#                                                by cyclonedx-gomod bin (pinned below, go run)
#   SHA256SUMS                                   sha256sum's format, for sha256sum -c
#
# VERSION is $GRAPHWIRE_VERSION (make passes its VERSION), else git describe --tags --always
# --dirty. File times and owners in the tarball are fixed (the last commit's time, root), so a
# commit gives the same tarball again. libchdb.so is not included: 560 MB, fetched by
# scripts/install-chdb.sh (or use the image, which has it).
set -euo pipefail
cd "$(dirname "$0")/.."

cyclonedx_gomod=github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@v1.10.0

out="${1:-dist}"
die() { echo "dist: $*" >&2; exit 1; }

version="${GRAPHWIRE_VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo devel)}"
version="$(printf '%s' "$version" | tr -c 'A-Za-z0-9_.+-' '-')"
[ -n "$version" ] || die "empty version"
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}"
goos=linux goarch=amd64
name="graphwire-$version-$goos-$goarch"

work="$(mktemp -d "${TMPDIR:-/tmp}/graphwire-dist.XXXXXX")"
trap 'rm -rf "$work"' EXIT
stage="$work/$name"
mkdir -p "$stage/bin" "$stage/docs" "$stage/scripts"

echo "dist: building $name" >&2
# -buildvcs=auto over a GOFLAGS of -buildvcs=false (.ci/run's): --version names the commit.
GOOS=$goos GOARCH=$goarch CGO_ENABLED=1 go build -trimpath -buildvcs=auto -o "$stage/bin/graphwire" ./cmd/graphwire
cp LICENSE README.md "$stage/"
cp docs/*.md docs/*.png "$stage/docs/"
cp scripts/install-chdb.sh "$stage/scripts/"
cp -R deploy "$stage/deploy"
chmod -R u+rwX,go+rX,go-w "$stage"

mkdir -p "$out"
rm -f "$out/$name.tar.gz" "$out/$name.cdx.json" "$out/SHA256SUMS"
tar -C "$work" --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
  -cf - "$name" | gzip -n -9 > "$out/$name.tar.gz"

echo "dist: SBOM with $cyclonedx_gomod" >&2
# bin: the modules recorded in the very binary shipped (go version -m), the main component
# named with the release's version. (app reads the version from git with go-git, which fails in a
# git worktree; bin's -licenses would go mod download the unpublished main module.)
go run "$cyclonedx_gomod" bin -json -version "$version" -output "$out/$name.cdx.json" "$stage/bin/graphwire" >&2

(cd "$out" && sha256sum "$name.tar.gz" "$name.cdx.json" > SHA256SUMS)
echo "dist: $(cd "$out" && cat SHA256SUMS | tr '\n' ' ')" >&2
echo "$out/$name.tar.gz"
