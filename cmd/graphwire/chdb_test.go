package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/executor/clickhouse"
)

// requireCHDB skips when libchdb.so is missing, or fails under CI=true.
func requireCHDB(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(chdb.DefaultLibrary()); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and libchdb.so is missing at %s (run bash scripts/install-chdb.sh)", chdb.DefaultLibrary())
		}
		t.Skipf("libchdb.so is missing at %s (run bash scripts/install-chdb.sh)", chdb.DefaultLibrary())
	}
}

// graphFlags returns the flags that select a new, empty graph for one test: --embedded dir,
// or with GRAPHWIRE_TEST_ENGINE=server (make test-server) --clickhouse and a DSN naming a
// database of the test's own on the server GRAPHWIRE_CLICKHOUSE_DSN names, dropped when the
// test ends. (tests/serverdb does this for the suites under tests/; cmd/ does not import tests/.)
func graphFlags(t *testing.T, dir string) []string {
	t.Helper()
	switch v := os.Getenv("GRAPHWIRE_TEST_ENGINE"); v {
	case "", "embedded":
		return []string{"--embedded", dir}
	case "server":
	default:
		t.Fatalf("GRAPHWIRE_TEST_ENGINE=%q: want embedded or server", v)
	}
	base := os.Getenv("GRAPHWIRE_CLICKHOUSE_DSN")
	if base == "" {
		t.Fatal("GRAPHWIRE_TEST_ENGINE=server and GRAPHWIRE_CLICKHOUSE_DSN is not set (source <(bash scripts/clickhouse-server.sh --env))")
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("GRAPHWIRE_CLICKHOUSE_DSN: %v", err)
	}
	db := fmt.Sprintf("gw_cmdtest_%d_%d", os.Getpid(), time.Now().UnixNano())
	u.Path = "/" + db
	t.Cleanup(func() {
		e, err := clickhouse.Open(clickhouse.Options{DSN: base})
		if err != nil {
			t.Errorf("drop %s: %v", db, err)
			return
		}
		defer e.Close()
		if err := e.Exec(context.Background(), "DROP DATABASE IF EXISTS "+db+" SYNC"); err != nil {
			t.Errorf("drop %s: %v", db, err)
		}
	})
	return []string{"--clickhouse", u.String()}
}

// on is the arguments of graphwire cmd on the graph that graph (graphFlags) selects.
func on(graph []string, cmd string, args ...string) []string {
	return slices.Concat([]string{cmd}, graph, args)
}
