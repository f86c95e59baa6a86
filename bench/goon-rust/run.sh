#!/usr/bin/env bash
# run.sh ENCODE_RS [ROUNDS] — measure graphwire's Go GOON encoder side by side
# with Orbit's Rust encoder on the same inputs: the 62 conformance inputs
# (each encoded once per op) and graphgen.Graph(42, 500, 800).
#
# ENCODE_RS is Orbit's crates/query-engine/formatters/src/goon/encode.rs
# (gitlabhq/orbit-knowledge-graph; the GOON reference is commit 11decdab, see
# shared/specs/goon.md). It is copied into a scratch crate ($WORK, default
# /tmp/orbit-goon) with this directory's Cargo.toml and src/ (the response
# types and the bench main, written for graphwire); nothing of Orbit's is kept
# in this repository. Two adaptations are applied to the copy, and only to it:
# its `use super::super::graph::` becomes `use crate::graph::`, and a revision
# that prints `total_rows:` in the header prints `next_cursor:` as the
# reference revision does (the pagination cases then match the conformance
# text).
#
# Needs cargo and Debian's crates, used offline through source replacement:
#   apt-get install librust-serde-json-dev librust-semver-dev librust-chrono-dev
# and GRAPHWIRE_CONFORMANCE_DIR (the shared conformance folder, holding goon/).
#
# Outputs are compared byte for byte first (Go with --goon-version 1.0.0, the
# version the conformance cases use). Then ROUNDS (default 5) interleaved
# rounds measure CPU time (user + system, /usr/bin/time) per op: an N-op run
# minus a 1-op run of the same binary, divided by N − 1, so setup and input
# loading cancel. The median per row and the ratio Rust / Go are printed with
# the load average. Not part of make test.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
enc="${1:?usage: run.sh ENCODE_RS [ROUNDS]}"
rounds="${2:-5}"
work="${WORK:-/tmp/orbit-goon}"
export GRAPHWIRE_CONFORMANCE_DIR="${GRAPHWIRE_CONFORMANCE_DIR:?set GRAPHWIRE_CONFORMANCE_DIR to the shared conformance folder (it holds goon/)}"
conf="$GRAPHWIRE_CONFORMANCE_DIR/goon"
n_conf="${N_CONF:-20000}"
n_graph="${N_GRAPH:-3000}"

[[ -d "$conf" ]] || { echo "run.sh: no conformance inputs at $conf (set GRAPHWIRE_CONFORMANCE_DIR)" >&2; exit 2; }
mkdir -p "$work/src" "$work/.cargo" "$work/out" "$work/goout"
cp "$here/Cargo.toml" "$work/"
cp "$here/src/graph.rs" "$here/src/main.rs" "$work/src/"
cp "$enc" "$work/src/encode.rs"
sed -i 's/use super::super::graph::{/use crate::graph::{/' "$work/src/encode.rs"
perl -0pi -e 's/let _ = writeln!\(out, "total_rows:\{\}", p\.total_rows\);/if let Some(c) = &p.next_cursor { let _ = writeln!(out, "next_cursor:{c}"); }/' "$work/src/encode.rs"
cat > "$work/.cargo/config.toml" <<'CFG'
[source.crates-io]
replace-with = "debian"

[source.debian]
directory = "/usr/share/cargo/registry"

[net]
offline = true
CFG
(cd "$work" && cargo build --release --offline -q)
rust="$work/target/release/goonbench"

(cd "$root" && go run ./bench/goon-rust/gengraph 500 800 > "$work/graph_500_800.json")
(cd "$root" && go build -o "$work/graphwire" ./cmd/graphwire && go test -c -o "$work/goon.test" ./goon)
inputs=("$conf"/*.input.json)

# Byte equality.
"$rust" write "$work/out" "${inputs[@]}" "$work/graph_500_800.json"
same=0 differ=()
for f in "${inputs[@]}" "$work/graph_500_800.json"; do
  n="$(basename "$f" .input.json)"; n="${n%.json}"
  "$work/graphwire" format --to goon --goon-version 1.0.0 "$f" > "$work/goout/$n.goon"
  if cmp -s "$work/goout/$n.goon" "$work/out/$n.goon"; then same=$((same + 1)); else differ+=("$n"); fi
done
echo "byte-equal: $same of $(( ${#inputs[@]} + 1 )); differ: ${differ[*]:-none}"

cpu() { # prints user+system seconds of "$@"
  /usr/bin/time -f "%U %S" -o "$work/time.txt" "$@" >/dev/null 2>&1
  awk '{print $1 + $2}' "$work/time.txt"
}
per_op() { # $1 = N; rest: the command, with @N@ where the op count goes
  local n="$1"; shift
  local big small
  big="$(cpu "${@/@N@/$n}")"; small="$(cpu "${@/@N@/1}")"
  awk -v b="$big" -v s="$small" -v n="$n" 'BEGIN { printf "%.2f", (b - s) * 1e6 / (n - 1) }'
}
gconf=() rconf=() ggraph=() rgraph=()
for ((i = 1; i <= rounds; i++)); do
  gconf+=("$(per_op "$n_conf" "$work/goon.test" -test.run '^$' -test.bench '^BenchmarkEncodeConformance$' -test.benchtime=@N@x)")
  rconf+=("$(per_op "$n_conf" "$rust" conf @N@ "${inputs[@]}")")
  ggraph+=("$(per_op "$n_graph" "$work/goon.test" -test.run '^$' -test.bench '^BenchmarkEncode$/^500_800$' -test.benchtime=@N@x)")
  rgraph+=("$(per_op "$n_graph" "$rust" one @N@ "$work/graph_500_800.json")")
  echo "round $i: conformance go ${gconf[-1]} rust ${rconf[-1]} µs/op; 500/800 go ${ggraph[-1]} rust ${rgraph[-1]} µs/op; $(uptime | sed 's/.*load/load/')"
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
mg="$(median "${gconf[@]}")" mr="$(median "${rconf[@]}")"
gg="$(median "${ggraph[@]}")" rg="$(median "${rgraph[@]}")"
awk -v g="$mg" -v r="$mr" 'BEGIN { printf "62 conformance inputs: Go %.1f µs/op, Rust %.1f µs/op CPU (medians): Go is %.2fx Rust\n", g, r, r / g }'
awk -v g="$gg" -v r="$rg" 'BEGIN { printf "500/800 response:      Go %.1f µs/op, Rust %.1f µs/op CPU (medians): Go is %.2fx Rust\n", g, r, r / g }'
uptime
