//go:build cgo

package chdb_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/chdb"
)

// These tests run the real engine. Each opens its own executor on its own data directory and
// closes it before the next starts, so each boots the engine afresh (the memory budget is read
// at boot).

func open(t *testing.T, opts chdb.Options) *chdb.Executor {
	t.Helper()
	lib := os.Getenv("GRAPHWIRE_CHDB_LIB")
	if lib == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and GRAPHWIRE_CHDB_LIB is not set")
		}
		t.Skip("GRAPHWIRE_CHDB_LIB is not set (source <(bash scripts/install-chdb.sh --env))")
	}
	opts.Library = lib
	if opts.Path == "" {
		opts.Path = t.TempDir()
	}
	e, err := chdb.Open(opts)
	if err != nil {
		t.Fatalf("open chdb: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func collect(ctx context.Context, e executor.Executor, q *compiler.Query) (*executor.Result, error) {
	rows, err := e.Run(ctx, q)
	if err != nil {
		return nil, err
	}
	return executor.Collect(rows)
}

func mustCollect(t *testing.T, ctx context.Context, e executor.Executor, q *compiler.Query) *executor.Result {
	t.Helper()
	res, err := collect(ctx, e, q)
	if err != nil {
		t.Fatalf("Run(%q): %v", q.SQL, err)
	}
	return res
}

// wantFiveNumbers runs SELECT number FROM numbers(5) and checks columns and rows exactly.
func wantFiveNumbers(t *testing.T, ctx context.Context, e executor.Executor) {
	t.Helper()
	res := mustCollect(t, ctx, e, &compiler.Query{SQL: "SELECT number FROM numbers(5)"})
	if diff := cmp.Diff([]executor.Column{{Name: "number", Type: "UInt64"}}, res.Columns); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	want := [][]any{{int64(0)}, {int64(1)}, {int64(2)}, {int64(3)}, {int64(4)}}
	if diff := cmp.Diff(want, res.Rows); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

// TestNoOutputAfterEngineError: a statement that fails after producing output must not hand
// that output to the next statement on the same connection (a pool of one makes it the same).
func TestNoOutputAfterEngineError(t *testing.T) {
	e := open(t, chdb.Options{PoolSize: 1})
	failing := []struct {
		name string
		q    compiler.Query
		kind error
	}{
		{"memory limit", compiler.Query{
			// About 2 MB of rows first, then blocks that need 400 MB each.
			SQL: "SELECT number AS n0_id, range(if(number < 200000, 0, 100000)) AS a FROM numbers(300000) " +
				"SETTINGS max_block_size = 1000, max_threads = 1, max_memory_usage = 30000000",
		}, executor.ErrResourceExhausted},
		{"value rejected", compiler.Query{
			SQL:    "SELECT number AS n0_id, toInt64(if(number < 20000, '1', {p0:String})) AS v FROM numbers(100000) SETTINGS max_block_size = 1000",
			Params: []compiler.Param{{Name: "p0", Type: "String", Value: "not a number"}},
		}, executor.ErrInvalidQuery},
		{"timeout", compiler.Query{
			SQL:      "SELECT number AS n0_id, sleepEachRow(0.01) FROM numbers(1000) SETTINGS max_block_size = 10",
			Settings: []compiler.Setting{{Key: "max_execution_time", Value: int64(1)}},
		}, executor.ErrTimeout},
	}
	for _, tt := range failing {
		t.Run(tt.name, func(t *testing.T) {
			_, err := collect(t.Context(), e, &tt.q)
			if !errors.Is(err, tt.kind) {
				t.Fatalf("failing statement: err = %v, want %v", err, tt.kind)
			}
			wantFiveNumbers(t, t.Context(), e)
		})
	}
}

// heavySQL would run for minutes on one thread; probeSQL finds it in system.processes
// without matching itself.
const (
	heavySQL = "SELECT /* cancel-probe */ count() FROM numbers(1000000000000) WHERE number % 7 = 3"
	probeSQL = "SELECT count() FROM system.processes WHERE position(query, concat('cancel', '-probe')) > 0"
)

// waitRunning returns once the heavy statement shows in the engine's process list, polling
// through observer (another executor on the same engine).
func waitRunning(t *testing.T, ctx context.Context, observer executor.Executor) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		res := mustCollect(t, ctx, observer, &compiler.Query{SQL: probeSQL})
		if n := res.Rows[0][0].(int64); n > 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("heavy statement never started: %v", ctx.Err())
		case <-tick.C:
		}
	}
}

// TestCancelStopsEngine: canceling a statement stops it in the engine, so that the only
// connection of the pool serves the next query long before the statement could have finished
// on its own.
func TestCancelStopsEngine(t *testing.T) {
	dir := t.TempDir()
	e := open(t, chdb.Options{Path: dir, PoolSize: 1, MaxThreads: 1})
	observer := open(t, chdb.Options{Path: dir, PoolSize: 1})
	// The test's own deadline: far below what the heavy statement needs (minutes).
	ctx, cancelTest := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancelTest()

	t.Run("cancel", func(t *testing.T) {
		qctx, stop := context.WithCancel(ctx)
		defer stop()
		errc := make(chan error, 1)
		go func() { _, err := collect(qctx, e, &compiler.Query{SQL: heavySQL}); errc <- err }()
		waitRunning(t, ctx, observer)
		stop()
		err := <-errc
		if !errors.Is(err, executor.ErrCanceled) || !errors.Is(err, context.Canceled) {
			t.Fatalf("heavy statement: err = %v, want ErrCanceled wrapping context.Canceled", err)
		}
		// The pool has one connection: this waits for it, and fails on ctx's deadline if the
		// heavy statement still holds it.
		wantFiveNumbers(t, ctx, e)
		res := mustCollect(t, ctx, observer, &compiler.Query{SQL: probeSQL})
		if n := res.Rows[0][0].(int64); n != 0 {
			t.Errorf("%d heavy statements still running after the cancel", n)
		}
	})

	t.Run("context deadline", func(t *testing.T) {
		qctx, stop := context.WithTimeout(ctx, 500*time.Millisecond)
		defer stop()
		_, err := collect(qctx, e, &compiler.Query{SQL: heavySQL})
		if !errors.Is(err, executor.ErrTimeout) {
			t.Fatalf("heavy statement: err = %v, want ErrTimeout", err)
		}
		// Answered at the deadline, the statement may still be stopping: Ended says when
		// the engine has let go of it.
		if ended := executor.Ended(err); ended != nil {
			select {
			case <-ended:
			case <-ctx.Done():
				t.Fatal("the abandoned statement never ended")
			}
		}
		wantFiveNumbers(t, ctx, e)
	})

	t.Run("rows closed early", func(t *testing.T) {
		// Streams rows for minutes; the caller reads one and walks away.
		rows, err := e.Run(ctx, &compiler.Query{SQL: "SELECT /* cancel-probe */ number FROM system.numbers WHERE number % 100000000 = 0"})
		if err != nil {
			t.Fatal(err)
		}
		if !rows.Next() {
			t.Fatalf("no first row: %v", rows.Err())
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		wantFiveNumbers(t, ctx, e)
	})
}

// TestMemoryBudget: with a small budget, concurrent statements that want more than the budget
// fail with ErrResourceExhausted instead of taking the process down, and the engine serves the
// next statement.
func TestMemoryBudget(t *testing.T) {
	const budget = 600 << 20
	// Each statement builds an array of 60M UInt64 (480 MB, more in flight while it grows).
	big := &compiler.Query{
		SQL:      "SELECT length(groupArray(number)) AS n FROM numbers(60000000) SETTINGS max_threads = 1",
		Settings: []compiler.Setting{{Key: "max_memory_usage", Value: int64(4 << 30)}},
	}
	tests := []struct {
		name        string
		queryMemory int64
	}{
		{"per-query cap", 0},      // budget/pool: 300 MiB each
		{"server-wide limit", -1}, // no per-query cap: only the budget stops them
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := open(t, chdb.Options{PoolSize: 2, MemoryBudget: budget, QueryMemory: tt.queryMemory})
			res := mustCollect(t, t.Context(), e, &compiler.Query{
				SQL: "SELECT value FROM system.server_settings WHERE name = 'max_server_memory_usage'",
			})
			if diff := cmp.Diff([][]any{{"629145600"}}, res.Rows); diff != "" {
				t.Fatalf("max_server_memory_usage (-want +got):\n%s", diff)
			}
			const n = 2
			errs := make([]error, n)
			got := make([]*executor.Result, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() { got[i], errs[i] = collect(t.Context(), e, big) })
			}
			wg.Wait()
			failed := 0
			for i, err := range errs {
				switch {
				case err == nil:
					if diff := cmp.Diff([][]any{{int64(60000000)}}, got[i].Rows); diff != "" {
						t.Errorf("statement %d (-want +got):\n%s", i, diff)
					}
				case errors.Is(err, executor.ErrResourceExhausted):
					failed++
				default:
					t.Errorf("statement %d: err = %v, want ErrResourceExhausted or success", i, err)
				}
			}
			if failed == 0 {
				t.Errorf("both statements succeeded within a budget of %d bytes", budget)
			}
			wantFiveNumbers(t, t.Context(), e)
		})
	}
}

// TestStatementSettings: the executor's own settings reach the engine inside the statement.
func TestStatementSettings(t *testing.T) {
	e := open(t, chdb.Options{PoolSize: 2, MemoryBudget: 2 << 30})
	get := func(ctx context.Context, sql string) any {
		t.Helper()
		return mustCollect(t, ctx, e, &compiler.Query{SQL: sql}).Rows[0][0]
	}
	t.Run("max_threads from cores and pool", func(t *testing.T) {
		want := int64(max(1, runtime.NumCPU()/2))
		if got := get(t.Context(), "SELECT toInt64(getSetting('max_threads'))"); got != want {
			t.Errorf("max_threads = %v, want %d", got, want)
		}
		if got := get(t.Context(), "SELECT toInt64(getSetting('max_threads')) SETTINGS max_threads = 3"); got != int64(3) {
			t.Errorf("max_threads with SETTINGS max_threads = 3: %v, want 3", got)
		}
	})
	t.Run("max_memory_usage capped at budget/pool", func(t *testing.T) {
		want := int64(1 << 30)
		for _, sql := range []string{
			"SELECT toInt64(getSetting('max_memory_usage'))",
			"SELECT toInt64(getSetting('max_memory_usage')) SETTINGS max_memory_usage = 4294967296",
			"SELECT toInt64(getSetting('max_memory_usage')) SETTINGS max_memory_usage = 0",
		} {
			if got := get(t.Context(), sql); got != want {
				t.Errorf("%s: %v, want %d", sql, got, want)
			}
		}
		if got := get(t.Context(), "SELECT toInt64(getSetting('max_memory_usage')) SETTINGS max_memory_usage = 1000000"); got != int64(1000000) {
			t.Errorf("a lower limit of the statement: %v, want 1000000", got)
		}
	})
	t.Run("deadline lowers max_execution_time", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		got := get(ctx, "SELECT toFloat64(getSetting('max_execution_time')) SETTINGS max_execution_time = 30")
		if f, _ := got.(float64); f < 1 || f > 5 {
			t.Errorf("max_execution_time = %v, want 1..5", got)
		}
		// Fractional: what is left of 2.5 s, not rounded up to whole seconds; and a statement
		// that reaches it fails instead of answering with what it read so far.
		ctx3, cancel3 := context.WithTimeout(t.Context(), 2500*time.Millisecond)
		defer cancel3()
		if f, _ := get(ctx3, "SELECT toFloat64(getSetting('max_execution_time'))").(float64); f <= 0 || f > 2.5 {
			t.Errorf("max_execution_time with 2.5 s left = %v, want at most 2.5", f)
		}
		if got := get(ctx3, "SELECT toString(getSetting('timeout_overflow_mode')) SETTINGS timeout_overflow_mode = 'break'"); got != "throw" {
			t.Errorf("timeout_overflow_mode with a deadline = %v, want throw", got)
		}
		if got := get(t.Context(), "SELECT toFloat64(getSetting('max_execution_time')) SETTINGS max_execution_time = 30"); got != 30.0 {
			t.Errorf("max_execution_time without a deadline = %v, want 30", got)
		}
	})
}

// TestWriterAfterEngineError: the writable connection is not handed a failed statement's
// output either (Insert reads the table's column types on it).
func TestWriterAfterEngineError(t *testing.T) {
	e := open(t, chdb.Options{PoolSize: 1})
	ctx := t.Context()
	if err := e.Exec(ctx, "CREATE TABLE gw_writer_probe (id Int64, s String) ENGINE = Memory"); err != nil {
		t.Fatal(err)
	}
	err := e.Exec(ctx, "SELECT toString(number) AS name, 'String' AS type, range(if(number < 200000, 0, 100000)) AS a "+
		"FROM numbers(300000) SETTINGS max_block_size = 1000, max_threads = 1, max_memory_usage = 30000000")
	if !errors.Is(err, executor.ErrResourceExhausted) {
		t.Fatalf("failing Exec: err = %v, want ErrResourceExhausted", err)
	}
	in := [][]any{{int64(1), "a"}, {int64(2), "b"}}
	if err := e.Insert(ctx, "gw_writer_probe", []string{"id", "s"}, in); err != nil {
		t.Fatal(err)
	}
	res := mustCollect(t, ctx, e, &compiler.Query{SQL: "SELECT id, s FROM gw_writer_probe ORDER BY id"})
	if diff := cmp.Diff(in, res.Rows); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

// TestEngineLogFile: with EngineLog set, the engine's own messages go to that file (here the
// error of a statement on a missing table, logged at level "error").
func TestEngineLogFile(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "engine.log")
	e := open(t, chdb.Options{EngineLog: logFile, EngineLogLevel: "error"})
	if _, err := collect(t.Context(), e, &compiler.Query{SQL: "SELECT * FROM gw_no_such_table"}); err == nil {
		t.Fatal("query on a missing table: no error")
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatalf("engine log: %v", err)
	}
	if !bytes.Contains(data, []byte("<Error>")) || !bytes.Contains(data, []byte("gw_no_such_table")) {
		t.Errorf("engine log %s has no <Error> line naming gw_no_such_table:\n%s", logFile, data)
	}
	if bytes.Contains(data, []byte("<Information>")) || bytes.Contains(data, []byte("<Debug>")) {
		t.Errorf("engine log %s has messages below level error:\n%s", logFile, data)
	}
}

// TestEngineLogLevelRejected: a level the engine does not know is refused before it boots.
func TestEngineLogLevelRejected(t *testing.T) {
	lib := os.Getenv("GRAPHWIRE_CHDB_LIB")
	if lib == "" {
		lib = os.Args[0] // any existing file: the level is checked before the library is loaded
	}
	_, err := chdb.Open(chdb.Options{Library: lib, Path: t.TempDir(), EngineLog: filepath.Join(t.TempDir(), "x.log"), EngineLogLevel: "loud"})
	if err == nil || !strings.Contains(err.Error(), `engine log level "loud"`) {
		t.Fatalf("Open with EngineLogLevel loud: err = %v, want one naming the level", err)
	}
}

// TestReleaseLibraryPages: the engine's boot leaves pages of the library resident that can be
// given back, and statements run as before afterwards (their pages fault back in).
func TestReleaseLibraryPages(t *testing.T) {
	e := open(t, chdb.Options{})
	ctx := context.Background()
	q := &compiler.Query{SQL: "SELECT sum(number) AS s FROM numbers(1000)"}
	before := mustCollect(t, ctx, e, q)
	n, err := e.ReleaseLibraryPages()
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" && n == 0 {
		t.Error("no resident pages of the library were released")
	}
	after := mustCollect(t, ctx, e, q)
	if diff := cmp.Diff(before.Rows, after.Rows); diff != "" {
		t.Errorf("answer after release differs (-before +after):\n%s", diff)
	}
}
