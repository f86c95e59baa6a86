# graphwire — see README.md. `make test` is what CI runs (through .ci/run).
GO ?= go
PKGS := ./...
## TEST_TIMEOUT: go test's per-package deadline (its default, 10m, was not enough on a busy
## machine). Sized for a shared 2-core machine under -race: the slowest package, tests/compiler,
## took 253 s there at load average 15-19 (its property runs wait on the engine, not on Go).
TEST_TIMEOUT ?= 30m

.PHONY: image image-test dist all demo test test-server test-server-suites test-cluster bench-cluster test-short fmt-check tidy-check buf-lint vet test-go test-scorecard gates update-format-lock update-snapshots bench bench-go bench-sql bench-index bench-duckdb fuzz build

all: build

build:
	$(GO) build -o bin/graphwire ./cmd/graphwire

## demo: run the main job on the embedded default and print every format.
demo:
	bash scripts/install-chdb.sh >/dev/null
	$(GO) run ./cmd/graphwire demo

## test: gofmt check, go.mod tidiness, buf lint, go vet, the race-enabled test suite (and the
## scorecard build's). What CI runs. The suite includes the format gates' tests (./formatter,
## ./tests/gates), so test does not run the gates target again.
test: fmt-check tidy-check buf-lint vet test-go test-scorecard test-server test-cluster

## test-short: the inner loop. go vet and go test -short without -race: it leaves out the race
## detector, the scorecard build, the gates and tidiness, and -short cuts the long property and
## authorization-matrix runs (gcx, toon, tests/compiler). Run make test before you push.
test-short:
	$(GO) vet $(PKGS)
	$(GO) test -short -count=1 -timeout $(TEST_TIMEOUT) $(PKGS)

fmt-check:
	@out="$$(gofmt -l $$(git ls-files --cached --others --exclude-standard '*.go'))"; \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi; echo "gofmt: clean"

## tidy-check: go.mod and go.sum are what go mod tidy makes of them.
tidy-check:
	@if ! out="$$($(GO) mod tidy -diff 2>&1)"; then \
		echo "go.mod/go.sum are not tidy; run go mod tidy:"; echo "$$out"; exit 1; fi; echo "go mod tidy: clean"

## buf-lint: buf lint on proto/ (proto/buf.yaml; exceptions are justified in the .proto). The
## script installs buf from npm into the cache once.
buf-lint:
	bash scripts/buf-lint.sh

vet:
	$(GO) vet $(PKGS)
	$(GO) vet -tags scorecard ./cmd/graphwire

test-go:
	$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) $(PKGS)

## test-server: the engine-level suites again, on a ClickHouse server (GRAPHWIRE_TEST_ENGINE=server:
## each suite gets a database of its own on GRAPHWIRE_CLICKHOUSE_DSN, tests/serverdb; without a
## DSN, scripts/with-clickhouse-server.sh starts a private ClickHouse 26.7 server from the
## embedded engine's library for the run). Whole: tests/orbit, tests/e2e, tests/mcp. Of
## tests/compiler and cmd/graphwire, the tests that read the engine: the authorization
## properties, cursors and paging, and the load/export/index round trips (SERVER_RUN), under
## -short: a third of the property cases (the whole count runs on the embedded engine in test-go).
SERVER_WHOLE := ./tests/orbit ./tests/e2e ./tests/mcp
SERVER_RUN := ^(TestAuthorization.*|TestAdminOnlyNeverReachesScopedCaller|TestGlobalNodesInAggregation|TestVariableLengthHopsReadIntermediates|TestReplacingMergeTreeVersions|TestCursorWalk|TestCursorReplay|TestPathCursorWalk|TestExportQueryCLI|TestIndexQueryReindex|TestLocalCursorAcrossRuns)$$
test-server:
	bash scripts/with-clickhouse-server.sh $(MAKE) --no-print-directory test-server-suites

test-server-suites:
	GRAPHWIRE_TEST_ENGINE=server $(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) $(SERVER_WHOLE)
	GRAPHWIRE_TEST_ENGINE=server $(GO) test -race -short -count=1 -timeout $(TEST_TIMEOUT) -run '$(SERVER_RUN)' ./tests/compiler ./cmd/graphwire

## test-cluster: the graph sharded over a loopback 2-shard ClickHouse cluster (docs/cluster.md):
## tests/orbit on the cluster (about 2 min), TestClusterNeighborsBetweenCentres and TestClusterMatchesEmbedded (200 random queries
## and 20 cursor walks, byte-identical to the embedded engine; about 2-5 min), with
## GRAPHWIRE_TEST_ENGINE=cluster. Without
## GRAPHWIRE_CLUSTER_DSN, scripts/with-clickhouse-cluster.sh starts a private cluster
## (CLUSTER_SHARDS=3 for 3 shards). The cluster's faults (tests/cluster, private clusters of
## their own) run in test-go.
test-cluster:
	bash scripts/with-clickhouse-cluster.sh env GRAPHWIRE_TEST_ENGINE=cluster sh -c '$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) ./tests/orbit && \
		$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) -run "^(TestClusterMatchesEmbedded|TestClusterNeighborsBetweenCentres)$$" ./tests/compiler'

## test-scorecard: graphwire bench lives behind the scorecard build tag, so that the binary
## users build does not link the plotting stack (gonum/plot); this runs its tests.
test-scorecard:
	$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) -tags scorecard -run 'Bench' ./cmd/graphwire

## gates: the format-version fingerprint (config/format-versions.lock) and the
## path gate's own tests, alone (test-go runs them too). The path gate itself needs a base ref:
## scripts/check-format-version.sh origin/main
gates:
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) -run 'TestFormatVersionsLock|TestLockGateFailsWhenItShould' ./formatter
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) ./tests/gates

update-format-lock:
	UPDATE_FORMAT_LOCK=1 $(GO) test -count=1 -timeout $(TEST_TIMEOUT) -run TestFormatVersionsLock ./formatter

update-snapshots:
	UPDATE_SNAPS=true $(GO) test -count=1 -timeout $(TEST_TIMEOUT) $(PKGS)

## bench: the format scorecard, docs/scorecard.md and docs/scorecard.png (the scorecard build:
## -tags scorecard).
bench:
	bash scripts/install-chdb.sh >/dev/null
	$(GO) run -tags scorecard ./cmd/graphwire bench

## bench-go: the Go micro-benchmarks of the codecs (see docs/benchmarks.md).
bench-go:
	$(GO) test -run='^$$' -bench=. -benchmem ./goon ./graphresponse ./gcf ./gcx ./toon

## bench-index: graphwire index end to end per language (files/s, rows/s, a one-file re-index),
## with the load average; scripts/bench-index.sh, docs/codegraph.md.
bench-index:
	bash scripts/bench-index.sh

## bench-sql: the compiled SQL next to hand-written reference SQL for the same question, per
## query type and caller, interleaved on one seeded graph (GRAPHWIRE_SEED_SCALE, default 10;
## SQLBENCH_ROUNDS rounds, at least 7); rewrites the table of docs/sql-bench.md.
SQLBENCH_ROUNDS ?= 9
bench-sql:
	bash scripts/install-chdb.sh >/dev/null
	GRAPHWIRE_SEED_SCALE=$${GRAPHWIRE_SEED_SCALE:-10} GRAPHWIRE_SQLBENCH_DOC=$(CURDIR)/docs/sql-bench.md \
		$(GO) test -count=1 -timeout 60m -run '^$$' -bench BenchmarkReferenceSQL -benchtime $(SQLBENCH_ROUNDS)x ./tests/sqlbench

## bench-duckdb: graphwire (compiled SQL on chDB) next to DuckDB on the same versioned graph,
## per query type and caller, interleaved (DUCKDB_SCALES, default 10; DUCKDB_ROUNDS rounds), with
## cold starts; bench/duckdb is its own Go module, so graphwire never links DuckDB. Writes the
## tables to docs/duckdb-results.md (see docs/duckdb.md). Not part of make test.
DUCKDB_SCALES ?= 10
DUCKDB_ROUNDS ?= 7
bench-duckdb:
	bash scripts/install-chdb.sh >/dev/null
	cd bench/duckdb && $(GO) run . -scales $(DUCKDB_SCALES) -rounds $(DUCKDB_ROUNDS) -out $(CURDIR)/docs/duckdb-results.md

## bench-cluster: every query type on one ClickHouse 26.7 server and on loopback clusters of 2
## and 3 shards, seeded alike at scales 10 and 100 (BENCH_CLUSTER_SCALES), interleaved, equal
## answers checked; median wall and mean server CPU per query (docs/cluster.md, "Bench").
BENCH_CLUSTER_SCALES ?= 10 100
BENCH_CLUSTER_ROUNDS ?= 7
bench-cluster:
	bash scripts/install-chdb.sh >/dev/null
	GRAPHWIRE_CLUSTER_BENCH=1 GRAPHWIRE_CLUSTER_BENCH_SCALES="$(BENCH_CLUSTER_SCALES)" GRAPHWIRE_CLUSTER_BENCH_ROUNDS=$(BENCH_CLUSTER_ROUNDS) \
		$(GO) test -count=1 -timeout 120m -v -run '^TestBenchCluster$$' ./tests/cluster

fuzz:
	scripts/fuzz.sh

## VERSION names the image tag and the release tarballs.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
IMAGE_DIR ?= build/image

## dist: the release artifacts in dist/: graphwire-$(VERSION)-linux-amd64.tar.gz (binary, LICENSE,
## README, docs, the chDB installer, deploy/), its CycloneDX SBOM and SHA256SUMS (TestDist checks
## them, in make test).
dist:
	GRAPHWIRE_VERSION=$(VERSION) bash scripts/dist.sh dist

## image: the OCI image (an image layout in $(IMAGE_DIR), tag $(VERSION)) with Debian's umoci,
## without a Docker daemon: non-root, the embedded engine included (docs/deploy.md). Push it with
## skopeo copy oci:$(IMAGE_DIR):TAG docker://REGISTRY/graphwire:TAG.
image:
	GRAPHWIRE_VERSION=$(VERSION) bash scripts/build-image.sh $(IMAGE_DIR)

## image-test: builds the image and runs its binary with podman (read-only root, no network) and
## with chroot into its unpacked layers, seeding a graph and answering a query (tests/release;
## about 2 min here; CI runs it after make test). PODMAN_GLOBAL_FLAGS and PODMAN_RUN_FLAGS are
## what this machine kind needs: crun refuses its hybrid cgroup hierarchy, and podman's default
## open-file and process limits are above what its containers may set.
PODMAN_GLOBAL_FLAGS ?= --runtime=runc --cgroup-manager=cgroupfs
PODMAN_RUN_FLAGS ?= --ulimit=nofile=$$(ulimit -Hn):$$(ulimit -Hn) --ulimit=nproc=8192:8192
image-test: image
	GRAPHWIRE_IMAGE=$(abspath $(IMAGE_DIR)) GRAPHWIRE_PODMAN_GLOBAL_FLAGS="$(PODMAN_GLOBAL_FLAGS)" GRAPHWIRE_PODMAN_RUN_FLAGS="$(PODMAN_RUN_FLAGS)" \
		$(GO) test -count=1 -timeout $(TEST_TIMEOUT) -v -run '^TestImage$$' ./tests/release
