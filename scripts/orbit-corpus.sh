#!/usr/bin/env bash
# orbit-corpus.sh: compile and run every query of Orbit's query corpus on graphwire (embedded
# engine, seeded graph, as an admin) and list what is refused; fails on a refusal that
# tests/orbit/corpus_test.go (corpusRefusals) does not list with its reason.
#   bash scripts/orbit-corpus.sh DIR
# DIR is a copy of fixtures/queries/corpus from gitlab-org/orbit-knowledge-graph (one YAML file
# per suite). Orbit is under GitLab's EE licence: keep the copy outside this repository; nothing
# of it is committed here. Not part of `make test`. docs/orbit-parity.md, "Orbit's query corpus".
set -euo pipefail
if [[ $# -ne 1 || ! -d "$1" ]]; then
  echo "usage: $0 DIR   (DIR: a copy of Orbit's fixtures/queries/corpus)" >&2
  exit 2
fi
dir="$(cd "$1" && pwd)"
cd "$(dirname "$0")/.."
source <(bash scripts/install-chdb.sh --env 2>/dev/null)
GRAPHWIRE_ORBIT_CORPUS="$dir" go test -count=1 -timeout 20m -run '^TestOrbitCorpus$' -v ./tests/orbit/
