package executortest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tcclickhouse "github.com/testcontainers/testcontainers-go/modules/clickhouse"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/executor/clickhouse"
	executortest "github.com/graphwire/graphwire/tests/executor"
)

// inCI reports whether missing prerequisites must fail the run instead of skipping.
func inCI() bool { return os.Getenv("CI") == "true" }

// missing skips locally and fails in CI.
func missing(t *testing.T, format string, args ...any) {
	t.Helper()
	if inCI() {
		t.Fatalf("CI=true and "+format, args...)
	}
	t.Skipf(format, args...)
}

func TestChDB(t *testing.T) {
	lib := chdb.DefaultLibrary()
	if _, err := os.Stat(lib); err != nil {
		missing(t, "libchdb.so not found at %s (run bash scripts/install-chdb.sh or set GRAPHWIRE_CHDB_LIB): %v", lib, err)
	}
	e, err := chdb.Open(chdb.Options{Library: lib, Path: t.TempDir(), PoolSize: 4, RequireVersion: "26.7"})
	if errors.Is(err, executor.ErrUnavailable) && !cgoEnabled {
		missing(t, "built without cgo: %v", err)
	}
	if err != nil {
		t.Fatalf("open chdb: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	executortest.RunContract(t, e)
}

func openClickHouse(t *testing.T, dsn string) *clickhouse.Executor {
	t.Helper()
	e, err := clickhouse.Open(clickhouse.Options{DSN: dsn, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("open %s: %v", dsn, err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// TestLegacyClickHouse runs the driver-level checks against Debian's clickhouse-server 18.16,
// started by scripts/start-clickhouse-server.sh. It is opt-in, and skips without the DSN even
// under CI=true: that server predates server-side parameters, so no graphwire query runs on
// it, and CI no longer starts it (the ClickHouse 26.7 server of scripts/clickhouse-server.sh
// runs the whole contract, TestClickHouseDSN).
func TestLegacyClickHouse(t *testing.T) {
	dsn := os.Getenv("GRAPHWIRE_LEGACY_CLICKHOUSE_DSN")
	if dsn == "" {
		t.Skip("GRAPHWIRE_LEGACY_CLICKHOUSE_DSN is not set (opt-in: source <(bash scripts/start-clickhouse-server.sh --env))")
	}
	e := openClickHouse(t, dsn)
	executortest.RunDriverChecks(t, e, "18.")
	t.Run("ProgressCallback", func(t *testing.T) {
		var calls atomic.Int64
		var last atomic.Uint64
		pe, err := clickhouse.Open(clickhouse.Options{DSN: dsn, Progress: func(s executor.Stats) {
			calls.Add(1)
			last.Store(s.RowsRead)
		}})
		if err != nil {
			t.Fatal(err)
		}
		defer pe.Close()
		rows, err := pe.Run(t.Context(), &compiler.Query{SQL: "SELECT count() FROM numbers(100000)"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := executor.Collect(rows); err != nil {
			t.Fatal(err)
		}
		if calls.Load() == 0 || last.Load() == 0 {
			t.Errorf("progress callback: %d calls, last rows read %d; want progress", calls.Load(), last.Load())
		}
	})
}

// TestClickHouseDSN runs the full contract against the server named by GRAPHWIRE_CLICKHOUSE_DSN
// (a ClickHouse recent enough for server-side parameters) and, when GRAPHWIRE_CLICKHOUSE_HTTP_DSN
// is set, against the same server over HTTP. scripts/clickhouse-server.sh --env sets both for a
// 26.7 server made from the embedded engine's library; .ci/run starts one, so CI=true requires
// them.
func TestClickHouseDSN(t *testing.T) {
	dsn := os.Getenv("GRAPHWIRE_CLICKHOUSE_DSN")
	if dsn == "" {
		missing(t, "GRAPHWIRE_CLICKHOUSE_DSN is not set (run: source <(bash scripts/clickhouse-server.sh --env))")
	}
	t.Run("native", func(t *testing.T) { executortest.RunContract(t, openClickHouse(t, dsn)) })
	if h := os.Getenv("GRAPHWIRE_CLICKHOUSE_HTTP_DSN"); h != "" {
		t.Run("http", func(t *testing.T) { executortest.RunContract(t, openClickHouse(t, h)) })
	} else if inCI() {
		t.Error("CI=true and GRAPHWIRE_CLICKHOUSE_HTTP_DSN is not set")
	}
}

// TestClickHouseContainer runs the full contract against ClickHouse in a container, when a
// Docker engine is reachable.
func TestClickHouseContainer(t *testing.T) {
	testcontainers.SkipIfProviderIsNotHealthy(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	ctr, err := tcclickhouse.Run(ctx, "clickhouse/clickhouse-server:26.7")
	testcontainers.CleanupContainer(t, ctr)
	if err != nil {
		t.Fatalf("start ClickHouse container: %v", err)
	}
	dsn, err := ctr.ConnectionString(ctx)
	if err != nil {
		t.Fatalf("connection string: %v", err)
	}
	executortest.RunContract(t, openClickHouse(t, dsn))
}

// TestUnavailable checks that engines that cannot be reached report ErrUnavailable.
func TestUnavailable(t *testing.T) {
	t.Run("chdb missing library", func(t *testing.T) {
		_, err := chdb.Open(chdb.Options{Library: filepath.Join(t.TempDir(), "libchdb.so")})
		if !errors.Is(err, executor.ErrUnavailable) {
			t.Fatalf("err = %v, want ErrUnavailable", err)
		}
	})
	t.Run("clickhouse refused", func(t *testing.T) {
		e := openClickHouse(t, "clickhouse://127.0.0.1:1/default?dial_timeout=2s")
		if err := e.Ping(t.Context()); !errors.Is(err, executor.ErrUnavailable) {
			t.Fatalf("Ping = %v, want ErrUnavailable", err)
		}
	})
}
