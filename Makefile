# graphwire — see README.md. `make test` is what CI runs (through .ci/run).
GO ?= go
PKGS := ./...

.PHONY: all demo test fmt-check vet test-go gates update-format-lock update-snapshots bench bench-go bench-sql fuzz build

all: build

build:
	$(GO) build -o bin/graphwire ./cmd/graphwire

## demo: run the main job on the embedded default and print every format.
demo:
	bash scripts/install-chdb.sh >/dev/null
	$(GO) run ./cmd/graphwire demo

## test: gofmt check, go vet, the race-enabled test suite and the format gates.
test: fmt-check vet test-go gates

fmt-check:
	@out="$$(gofmt -l $$(git ls-files --cached --others --exclude-standard '*.go'))"; \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi; echo "gofmt: clean"

vet:
	$(GO) vet $(PKGS)

test-go:
	$(GO) test -race -count=1 $(PKGS)

## gates: the format-version fingerprint (config/format-versions.lock) and the
## path gate's own tests. The path gate itself needs a base ref:
## scripts/check-format-version.sh origin/main
gates:
	$(GO) test -count=1 -run 'TestFormatVersionsLock|TestLockGateFailsWhenItShould' ./formatter
	$(GO) test -count=1 ./tests/gates

update-format-lock:
	UPDATE_FORMAT_LOCK=1 $(GO) test -count=1 -run TestFormatVersionsLock ./formatter

update-snapshots:
	UPDATE_SNAPS=true $(GO) test -count=1 $(PKGS)

## bench: the format scorecard, docs/scorecard.md and docs/scorecard.png.
bench:
	bash scripts/install-chdb.sh >/dev/null
	$(GO) run ./cmd/graphwire bench

## bench-go: the Go micro-benchmarks of the codecs (see docs/benchmarks.md).
bench-go:
	$(GO) test -run='^$$' -bench=. -benchmem ./goon ./graphresponse ./gcf ./gcx ./toon

## bench-sql: the compiled SQL next to hand-written reference SQL for the same question, per
## query type and caller, interleaved on one seeded graph (GRAPHWIRE_SEED_SCALE, default 10;
## SQLBENCH_ROUNDS rounds, at least 7); rewrites the table of docs/sql-bench.md.
SQLBENCH_ROUNDS ?= 9
bench-sql:
	bash scripts/install-chdb.sh >/dev/null
	GRAPHWIRE_SEED_SCALE=$${GRAPHWIRE_SEED_SCALE:-10} GRAPHWIRE_SQLBENCH_DOC=$(CURDIR)/docs/sql-bench.md \
		$(GO) test -count=1 -timeout 60m -run '^$$' -bench BenchmarkReferenceSQL -benchtime $(SQLBENCH_ROUNDS)x ./tests/sqlbench

fuzz:
	scripts/fuzz.sh
