package executortest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/clickhouse"
)

// running counts the statements on the server whose text holds marker, other than the one
// asking.
func running(t *testing.T, e *clickhouse.Executor, marker string) int64 {
	t.Helper()
	rows, err := executor.CollectRows(context.Background(), e, &compiler.Query{
		SQL:    "SELECT toInt64(count()) FROM system.processes WHERE query_id != queryID() AND position(query, {m:String}) > 0",
		Params: []compiler.Param{{Name: "m", Type: "String", Value: marker}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows.Values[0][0].(int64)
}

// TestServerCancel: a statement whose context is cancelled, or whose deadline passes, while it
// runs on the server stops there: it leaves system.processes, over the native protocol and over
// HTTP, while reading rows and before the first. The statement would run for an hour
// otherwise (max_execution_time is 3600 s); the poll is bounded at 60 s and the test logs the
// time from cancel to gone.
func TestServerCancel(t *testing.T) {
	native, httpDSN := serverDSNs(t)
	for _, proto := range []struct{ name, dsn string }{{"native", native}, {"http", httpDSN}} {
		for _, how := range []string{"cancel", "deadline"} {
			t.Run(proto.name+"/"+how, func(t *testing.T) {
				e := openClickHouse(t, proto.dsn)
				marker := fmt.Sprintf("cancel_%s_%s_%d", proto.name, how, time.Now().UnixNano())
				q := &compiler.Query{
					// Ten rows a second for an hour: rows arrive (streaming), the server checks
					// for cancellation between them, and it never ends by itself in the test.
					SQL: "SELECT number, '" + marker + "' FROM numbers(36000) WHERE sleepEachRow(0.1) = 0" +
						" SETTINGS max_block_size = 1, function_sleep_max_microseconds_per_block = 0",
					Settings: []compiler.Setting{{Key: "max_execution_time", Value: int64(3600)}},
				}
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if how == "deadline" {
					ctx, cancel = context.WithTimeout(t.Context(), 3*time.Second)
					defer cancel()
				}
				// Run and the reading in a goroutine: over HTTP, Run itself waits for the
				// server's first block, which the server's output buffer holds back.
				done := make(chan error, 1)
				go func() {
					rows, err := e.Run(ctx, q)
					if err == nil {
						for rows.Next() {
						}
						err = rows.Err()
						rows.Close()
					}
					done <- err
				}()
				waitUntil(t, "the statement runs on the server", func() bool { return running(t, e, marker) == 1 })
				var stopped time.Time
				if how == "cancel" {
					stopped = time.Now()
					cancel()
				}
				err := <-done
				if how == "deadline" {
					stopped = time.Now() // the deadline passed by the time the call gave up
				}
				want := executor.ErrCanceled
				if how == "deadline" {
					want = executor.ErrTimeout
				}
				if !errors.Is(err, want) {
					t.Errorf("the call ended with %v, want %v", err, want)
				}
				waitUntil(t, "the statement is gone from system.processes", func() bool { return running(t, e, marker) == 0 })
				t.Logf("%s %s: gone from system.processes %v after the %s", proto.name, how, time.Since(stopped).Round(time.Millisecond), how)
			})
		}
	}
}

// waitUntil polls cond every 20 ms for at most 60 s (a bound for a broken run, not a timing
// assertion).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 60 s", what)
		}
	}
}
