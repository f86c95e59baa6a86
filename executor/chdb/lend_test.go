//go:build cgo

package chdb_test

import (
	"context"
	"testing"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/chdb"
)

// TestLendOnlyWhenIdle: Lend takes a connection only while no statement runs (every pool
// connection idle), never with a pool of one; a lent connection runs one statement and goes
// back to the pool, as does one released unused (Close, which waits for every connection,
// returns).
func TestLendOnlyWhenIdle(t *testing.T) {
	ctx := context.Background()
	e := open(t, chdb.Options{PoolSize: 3})
	var _ executor.Lender = e
	r, release, ok := e.Lend()
	if !ok {
		t.Fatal("Lend on an idle engine: not lent")
	}
	if _, again, ok := e.Lend(); ok {
		again()
		t.Error("Lend with a connection already lent: lent another")
	}
	res, err := executor.Collect(mustRun(t, ctx, r, &compiler.Query{SQL: "SELECT number FROM numbers(3)"}))
	if err != nil || len(res.Rows) != 3 {
		t.Fatalf("statement on the lent connection: %v rows, %v", res, err)
	}
	release() // the statement took it: nothing to give back
	if _, release, ok := e.Lend(); !ok {
		t.Error("Lend after the lent statement ended: not lent")
	} else {
		release()
	}

	// A statement streaming its rows holds its connection until they are closed.
	rows := mustRun(t, ctx, e, &compiler.Query{SQL: "SELECT number FROM numbers(100000000)"})
	if _, again, ok := e.Lend(); ok {
		again()
		t.Error("Lend while a statement runs: lent")
	}
	rows.Close()
	_, release, ok = e.Lend()
	if !ok {
		t.Fatal("Lend after the running statement closed: not lent")
	}
	release()
	release() // twice: still one connection back
	wantFiveNumbers(t, ctx, e)
	if err := e.Close(); err != nil { // waits for every connection to be back
		t.Fatal(err)
	}

	one := open(t, chdb.Options{PoolSize: 1})
	if _, again, ok := one.Lend(); ok {
		again()
		t.Error("Lend with a pool of one: lent")
	}
}

func mustRun(t *testing.T, ctx context.Context, r executor.Runner, q *compiler.Query) executor.Rows {
	t.Helper()
	rows, err := r.Run(ctx, q)
	if err != nil {
		t.Fatalf("Run(%q): %v", q.SQL, err)
	}
	return rows
}
