#!/usr/bin/env bash
# gen-proto.sh [--check] — regenerates the Go code of proto/ with Debian's
# protoc and the protoc-gen-go / protoc-gen-go-grpc versions pinned as go
# tools in go.mod. --check regenerates into a temporary tree and fails when
# the committed code differs (CI uses it).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v protoc >/dev/null 2>&1; then
  echo "gen-proto: protoc is missing; install Debian's protobuf-compiler (apt-get install protobuf-compiler)" >&2
  exit 1
fi

bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/protoc-gen-go" google.golang.org/protobuf/cmd/protoc-gen-go
go build -o "$bin/protoc-gen-go-grpc" google.golang.org/grpc/cmd/protoc-gen-go-grpc

out="."
if [[ "${1:-}" == "--check" ]]; then
  out="$bin/out"
  mkdir -p "$out"
fi

protos=$(find proto -name '*.proto' | sort)
PATH="$bin:$PATH" protoc -I proto \
  --go_out="$out" --go_opt=module=github.com/graphwire/graphwire \
  --go-grpc_out="$out" --go-grpc_opt=module=github.com/graphwire/graphwire \
  $protos

if [[ "${1:-}" == "--check" ]]; then
  status=0
  for f in $(cd "$out" && find proto -name '*.go' | sort); do
    if ! cmp -s "$out/$f" "$f"; then
      echo "gen-proto: $f is stale; run scripts/gen-proto.sh and commit the result" >&2
      status=1
    fi
  done
  for f in $(find proto -name '*.pb.go' | sort); do
    [[ -f "$out/$f" ]] || { echo "gen-proto: $f has no .proto source" >&2; status=1; }
  done
  [[ $status -eq 0 ]] && echo "gen-proto: generated code is fresh"
  exit $status
fi
