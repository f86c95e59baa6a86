//go:build cgo

package chdb

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/internal/cputime"
)

// BenchmarkStatementFloor measures the fixed cost of one statement: through Run (as the
// server sends it, with a deadline) against the bare library calls on one connection.
func BenchmarkStatementFloor(b *testing.B) {
	e := benchExecutor(b)
	ctx := context.Background()
	for _, s := range []string{
		"CREATE TABLE t (id Int64, v String, _version UInt64, _deleted Bool) ENGINE = ReplacingMergeTree(_version, _deleted) ORDER BY id",
		"INSERT INTO t SELECT number, toString(number), 1, false FROM numbers(100000)",
	} {
		if err := e.Exec(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
	stmts := map[string]string{
		"select1": "SELECT 1",
		"pkfinal": "SELECT id, v FROM t FINAL WHERE id = 4242",
	}
	cpu := func(b *testing.B) func() {
		start, _ := cputime.Process()
		return func() {
			end, _ := cputime.Process()
			b.ReportMetric(float64((end-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		}
	}
	for _, name := range []string{"select1", "pkfinal"} {
		sql := stmts[name]
		b.Run(name+"/raw-query", func(b *testing.B) {
			c := <-e.pool
			defer func() { e.pool <- c }()
			defer cpu(b)()
			for b.Loop() {
				if r := c.query(sql, outputFormat, nil, nil); r.errText != "" {
					b.Fatal(r.errText)
				}
			}
		})
		// drain runs sql as a raw stream on a pooled connection until its last block.
		drain := func(b *testing.B, sql string) {
			c := <-e.pool
			defer func() { e.pool <- c }()
			defer cpu(b)()
			for b.Loop() {
				s, et := c.startStream(sql, outputFormat, nil, nil)
				if et != "" {
					b.Fatal(et)
				}
				for {
					r := c.fetch(s)
					if r.errText != "" {
						b.Fatal(r.errText)
					}
					if len(r.data) == 0 {
						break
					}
				}
				c.endStream(s)
			}
		}
		b.Run(name+"/raw-stream", func(b *testing.B) { drain(b, sql) })
		b.Run(name+"/raw-stream-settings", func(b *testing.B) {
			withSettings, err := statementSQL(&compiler.Query{SQL: sql}, limits{left: 30 * time.Second, marker: "graphwire-00000000-1"})
			if err != nil {
				b.Fatal(err)
			}
			drain(b, withSettings)
		})
		b.Run(name+"/run-nodeadline", func(b *testing.B) {
			defer cpu(b)()
			for b.Loop() {
				rs, err := e.Run(ctx, &compiler.Query{SQL: sql})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := executor.Collect(rs); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/run", func(b *testing.B) {
			defer cpu(b)()
			for b.Loop() {
				dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				rs, err := e.Run(dctx, &compiler.Query{SQL: sql})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := executor.Collect(rs); err != nil {
					b.Fatal(err)
				}
				cancel()
			}
		})
	}
}

// benchExecutor opens an engine on a temporary directory for a benchmark, closed at its end;
// it skips when GRAPHWIRE_CHDB_LIB is not set.
func benchExecutor(b *testing.B) *Executor {
	b.Helper()
	lib := os.Getenv("GRAPHWIRE_CHDB_LIB")
	if lib == "" {
		b.Skip("GRAPHWIRE_CHDB_LIB is not set")
	}
	e, err := Open(Options{Library: lib, Path: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return e
}
