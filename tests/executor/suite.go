package executortest

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
)

// Target is what the full contract needs: an executor that can also load data.
type Target interface {
	executor.Executor
	executor.Loader
}

// HostileStrings are values that break naive escaping. Every one must survive a round trip
// through a String parameter and an Array(String) parameter byte for byte.
var HostileStrings = []string{
	"",
	"plain",
	"it's",
	`say "hi"`,
	`back\slash`,
	`\`,
	`\\'`,
	`\N`,
	"tab\there",
	"line\nbreak",
	"cr\rreturn",
	"nul\x00byte",
	"bell\a and \b\f\v",
	"\x01\x1f\x7f",
	"emoji 🎉 and שלום",
	"{p1:String}",
	"'); DROP TABLE gl_note; --",
	"%_like",
	"trailing backslash \\",
}

func run(t *testing.T, e executor.Executor, q *compiler.Query) *executor.Result {
	t.Helper()
	rows, err := e.Run(t.Context(), q)
	if err != nil {
		t.Fatalf("Run(%q): %v", q.SQL, err)
	}
	res, err := executor.Collect(rows)
	if err != nil {
		t.Fatalf("read rows of %q: %v", q.SQL, err)
	}
	return res
}

func runErr(ctx context.Context, e executor.Executor, q *compiler.Query) error {
	rows, err := e.Run(ctx, q)
	if err != nil {
		return err
	}
	_, err = executor.Collect(rows)
	return err
}

// slowSQL runs for about ten seconds, checking limits between small blocks.
const slowSQL = "SELECT sum(sleepEachRow(0.01)) FROM numbers(1000) SETTINGS max_block_size = 10"

var kinds = []error{
	executor.ErrInvalidQuery, executor.ErrTimeout, executor.ErrResourceExhausted,
	executor.ErrUnavailable, executor.ErrCanceled, executor.ErrInternal,
}

// wantKind fails unless err matches kind and no other kind.
func wantKind(t *testing.T, err, kind error) {
	t.Helper()
	if err == nil {
		t.Fatalf("err = nil, want %v", kind)
	}
	for _, k := range kinds {
		if got := errors.Is(err, k); got != (k == kind) {
			t.Fatalf("errors.Is(%v, %v) = %v, want %v", err, k, got, k == kind)
		}
	}
}

// wantCode fails unless err carries the ClickHouse exception code.
func wantCode(t *testing.T, err error, code int) {
	t.Helper()
	var ee *executor.Error
	if !errors.As(err, &ee) {
		t.Fatalf("err = %T %v, want *executor.Error", err, err)
	}
	if ee.Code != code {
		t.Fatalf("code = %d, want %d (%v)", ee.Code, code, err)
	}
}

// RunContract runs the full contract against e. The Loader check creates and drops a scratch
// table named gw_contract_<n> in the executor's database.
func RunContract(t *testing.T, e Target) {
	t.Run("Types", func(t *testing.T) { testTypes(t, e) })
	t.Run("Params", func(t *testing.T) { testParams(t, e) })
	t.Run("HostileStrings", func(t *testing.T) { testHostile(t, e) })
	t.Run("Errors", func(t *testing.T) { testErrors(t, e) })
	t.Run("SettingTimeout", func(t *testing.T) { testSettingTimeout(t, e) })
	t.Run("ContextDeadline", func(t *testing.T) { testDeadline(t, e) })
	t.Run("Cancel", func(t *testing.T) { testCancel(t, e) })
	t.Run("Concurrency", func(t *testing.T) { testConcurrency(t, e) })
	t.Run("Streaming", func(t *testing.T) { testStreaming(t, e) })
	t.Run("Loader", func(t *testing.T) { testLoader(t, e) })
	t.Run("StillHealthy", func(t *testing.T) {
		if err := e.Ping(t.Context()); err != nil {
			t.Fatalf("Ping after the suite: %v", err)
		}
	})
}

func testTypes(t *testing.T, e executor.Executor) {
	res := run(t, e, &compiler.Query{SQL: `SELECT
	toInt64(-42) AS i64,
	toUInt64(7) AS u64,
	toUInt64('18446744073709551615') AS u64max,
	toFloat64(1.5) AS f64,
	'héllo' AS s,
	true AS b,
	CAST(NULL AS Nullable(Int64)) AS n_null,
	CAST(5 AS Nullable(Int64)) AS n_val,
	toDateTime64('2026-07-01 12:34:56.789', 3, 'UTC') AS dt64,
	toDate('2026-07-01') AS d,
	toDate32('1900-01-02') AS d32,
	CAST([1, 2, 3] AS Array(Int64)) AS arr,
	CAST(['a', NULL] AS Array(Nullable(String))) AS arr_n,
	toLowCardinality('lc') AS lc,
	CAST(NULL AS LowCardinality(Nullable(String))) AS lc_null`})
	wantCols := []executor.Column{
		{Name: "i64", Type: "Int64"},
		{Name: "u64", Type: "UInt64"},
		{Name: "u64max", Type: "UInt64"},
		{Name: "f64", Type: "Float64"},
		{Name: "s", Type: "String"},
		{Name: "b", Type: "Bool"},
		{Name: "n_null", Type: "Nullable(Int64)"},
		{Name: "n_val", Type: "Nullable(Int64)"},
		{Name: "dt64", Type: "DateTime64(3, 'UTC')"},
		{Name: "d", Type: "Date"},
		{Name: "d32", Type: "Date32"},
		{Name: "arr", Type: "Array(Int64)"},
		{Name: "arr_n", Type: "Array(Nullable(String))"},
		{Name: "lc", Type: "LowCardinality(String)"},
		{Name: "lc_null", Type: "LowCardinality(Nullable(String))"},
	}
	if diff := cmp.Diff(wantCols, res.Columns); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	want := [][]any{{
		int64(-42), int64(7), uint64(math.MaxUint64), 1.5, "héllo", true, nil, int64(5),
		time.Date(2026, 7, 1, 12, 34, 56, 789_000_000, time.UTC),
		executor.Date{Year: 2026, Month: 7, Day: 1},
		executor.Date{Year: 1900, Month: 1, Day: 2},
		[]any{int64(1), int64(2), int64(3)},
		[]any{"a", nil},
		"lc", nil,
	}}
	if diff := cmp.Diff(want, res.Rows); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

func testParams(t *testing.T, e executor.Executor) {
	ts := time.Date(2026, 5, 8, 22, 55, 58, 467_450_000, time.UTC)
	tests := []struct {
		name  string
		typ   string
		value any
		want  any
	}{
		{"Int64", "Int64", int64(math.MinInt64), int64(math.MinInt64)},
		{"Int64 from int", "Int64", 42, int64(42)},
		{"UInt64", "UInt64", uint64(42), int64(42)},
		{"UInt64 max is exact", "UInt64", uint64(math.MaxUint64), uint64(math.MaxUint64)},
		{"Float64", "Float64", 0.1, 0.1},
		{"Float64 large", "Float64", -1.5e300, -1.5e300},
		{"Bool true", "Bool", true, true},
		{"Bool false", "Bool", false, false},
		{"String", "String", "a 'quoted' \"x\"\t\\\n", "a 'quoted' \"x\"\t\\\n"},
		{"Nullable NULL", "Nullable(String)", nil, nil},
		{"Nullable value", "Nullable(Int64)", int64(5), int64(5)},
		{"DateTime64", "DateTime64(6, 'UTC')", ts, ts},
		{"Date", "Date", executor.Date{Year: 2026, Month: 7, Day: 1}, executor.Date{Year: 2026, Month: 7, Day: 1}},
		{"Date32", "Date32", executor.Date{Year: 1950, Month: 12, Day: 31}, executor.Date{Year: 1950, Month: 12, Day: 31}},
		{"Array(Int64)", "Array(Int64)", []int64{3, -1, 2}, []any{int64(3), int64(-1), int64(2)}},
		{"Array(String)", "Array(String)", []string{"a'b", `c\d`, "e\nf"}, []any{"a'b", `c\d`, "e\nf"}},
		{"Array empty", "Array(String)", []string{}, []any{}},
		{"Array(Nullable(Int64))", "Array(Nullable(Int64))", []any{int64(1), nil}, []any{int64(1), nil}},
		{"LowCardinality", "LowCardinality(String)", "merged", "merged"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, e, &compiler.Query{
				SQL:    fmt.Sprintf("SELECT {p0:%s} AS v", tt.typ),
				Params: []compiler.Param{{Name: "p0", Type: tt.typ, Value: tt.value}},
			})
			if diff := cmp.Diff([][]any{{tt.want}}, res.Rows); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
}

func testHostile(t *testing.T, e executor.Executor) {
	for i, s := range HostileStrings {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			res := run(t, e, &compiler.Query{
				SQL: "SELECT {p0:String} AS s, hex({p0:String}) AS h, {p1:Array(String)} AS a, length({p0:String}) AS n",
				Params: []compiler.Param{
					{Name: "p0", Type: "String", Value: s},
					{Name: "p1", Type: "Array(String)", Value: []string{s, s + "'"}},
				},
			})
			want := [][]any{{s, strings.ToUpper(hex.EncodeToString([]byte(s))), []any{s, s + "'"}, int64(len(s))}}
			if diff := cmp.Diff(want, res.Rows); diff != "" {
				t.Errorf("string %q (-want +got):\n%s", s, diff)
			}
		})
	}
}

func testErrors(t *testing.T, e executor.Executor) {
	tests := []struct {
		name string
		q    compiler.Query
		kind error
		code int
	}{
		{"syntax", compiler.Query{SQL: "SELEC 1"}, executor.ErrInternal, 62},
		{"unknown table", compiler.Query{SQL: "SELECT * FROM gw_no_such_table"}, executor.ErrUnavailable, 60},
		{"unknown column", compiler.Query{SQL: "SELECT no_such_column"}, executor.ErrInternal, 47},
		{"value rejected", compiler.Query{
			SQL:    "SELECT toInt64({p0:String})",
			Params: []compiler.Param{{Name: "p0", Type: "String", Value: "abc"}},
		}, executor.ErrInvalidQuery, 6},
		{"memory limit", compiler.Query{
			SQL:      "SELECT groupArray(number) FROM numbers(20000000)",
			Settings: []compiler.Setting{{Key: "max_memory_usage", Value: int64(20_000_000)}},
		}, executor.ErrResourceExhausted, 241},
		{"readonly", compiler.Query{
			SQL:      "CREATE TABLE gw_readonly_probe (a Int64) ENGINE = Memory",
			Settings: []compiler.Setting{{Key: "readonly", Value: int64(2)}},
		}, executor.ErrInternal, 164},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := runErr(t.Context(), e, &tt.q)
			wantKind(t, err, tt.kind)
			wantCode(t, err, tt.code)
		})
	}
	t.Run("bad parameter value", func(t *testing.T) {
		err := runErr(t.Context(), e, &compiler.Query{
			SQL:    "SELECT {p0:Int64}",
			Params: []compiler.Param{{Name: "p0", Type: "Int64", Value: "not a number"}},
		})
		wantKind(t, err, executor.ErrInvalidQuery)
		if !errors.Is(err, executor.ErrParam) {
			t.Errorf("err = %v, want it to wrap executor.ErrParam", err)
		}
	})
}

func testSettingTimeout(t *testing.T, e executor.Executor) {
	err := runErr(t.Context(), e, &compiler.Query{
		SQL:      slowSQL,
		Settings: []compiler.Setting{{Key: "max_execution_time", Value: int64(1)}},
	})
	wantKind(t, err, executor.ErrTimeout)
}

func testDeadline(t *testing.T, e executor.Executor) {
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	err := runErr(ctx, e, &compiler.Query{SQL: slowSQL})
	wantKind(t, err, executor.ErrTimeout)
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, os.ErrDeadlineExceeded) {
		var ee *executor.Error
		if !errors.As(err, &ee) || ee.Code == 0 { // an engine timeout exception is fine too
			t.Errorf("err = %v, want context.DeadlineExceeded, os.ErrDeadlineExceeded or a timeout exception", err)
		}
	}
}

func testCancel(t *testing.T, e executor.Executor) {
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() { errc <- runErr(ctx, e, &compiler.Query{SQL: slowSQL}) }()
	cancel()
	err := <-errc
	wantKind(t, err, executor.ErrCanceled)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want it to wrap context.Canceled", err)
	}
	t.Run("already canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		err := runErr(ctx, e, &compiler.Query{SQL: "SELECT 1"})
		wantKind(t, err, executor.ErrCanceled)
	})
}

func testConcurrency(t *testing.T, e executor.Executor) {
	const workers, each = 8, 15
	got := make([][]any, workers*each)
	errs := make([]error, workers*each)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				n := w*each + i
				rows, err := e.Run(t.Context(), &compiler.Query{
					SQL: "SELECT {p0:Int64} * 2 AS v, {p1:String} AS s, count() AS c FROM numbers(1000)",
					Params: []compiler.Param{
						{Name: "p0", Type: "Int64", Value: int64(n)},
						{Name: "p1", Type: "String", Value: fmt.Sprintf("worker %d\t%d", w, i)},
					},
				})
				if err != nil {
					errs[n] = err
					continue
				}
				res, err := executor.Collect(rows)
				if err != nil {
					errs[n] = err
					continue
				}
				got[n] = res.Rows[0]
			}
		})
	}
	wg.Wait()
	for n := range got {
		if errs[n] != nil {
			t.Fatalf("query %d: %v", n, errs[n])
		}
		want := []any{int64(2 * n), fmt.Sprintf("worker %d\t%d", n/each, n%each), int64(1000)}
		if diff := cmp.Diff(want, got[n]); diff != "" {
			t.Errorf("query %d (-want +got):\n%s", n, diff)
		}
	}
}

func testStreaming(t *testing.T, e executor.Executor) {
	rows, err := e.Run(t.Context(), &compiler.Query{SQL: "SELECT number, toString(number) AS s FROM numbers(200000)"})
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var n, sum int64
	for rows.Next() {
		v := rows.Values()
		sum += v[0].(int64)
		if v[1].(string) != fmt.Sprint(v[0]) {
			t.Fatalf("row %d: %v", n, v)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 200000 || sum != 199999*200000/2 {
		t.Errorf("rows = %d, sum = %d", n, sum)
	}
	if p, ok := e.(interface{ ReportsProgress() bool }); ok && !p.ReportsProgress() {
		t.Logf("the executor's protocol reports no progress (HTTP): Stats() = %+v, not checked", rows.Stats())
		return
	}
	if st := rows.Stats(); st.RowsRead == 0 {
		t.Errorf("Stats().RowsRead = 0, want > 0 (%+v)", st)
	}
}

func testLoader(t *testing.T, e Target) {
	ctx := t.Context()
	table := fmt.Sprintf("gw_contract_%d", time.Now().UnixNano())
	ddl := "CREATE TABLE " + table + ` (
	id Int64,
	u UInt64,
	f Float64,
	s String,
	lc LowCardinality(String),
	b Bool,
	n Nullable(Int64),
	nb Nullable(Bool),
	d Date32,
	dt DateTime64(0, 'UTC'),
	ndt Nullable(DateTime64(0, 'UTC')),
	arr Array(String)
) ENGINE = MergeTree ORDER BY id`
	if err := e.Exec(ctx, ddl); err != nil {
		t.Fatalf("create table: %v", err)
	}
	t.Cleanup(func() {
		if err := e.Exec(context.Background(), "DROP TABLE IF EXISTS "+table); err != nil {
			t.Errorf("drop table: %v", err)
		}
	})
	cols := []string{"id", "u", "f", "s", "lc", "b", "n", "nb", "d", "dt", "ndt", "arr"}
	dt := time.Date(2025, 12, 31, 23, 59, 59, 0, time.UTC)
	in := [][]any{
		{int64(1), int64(10), 2.5, "alice", "active", true, nil, nil, executor.Date{Year: 2026, Month: 1, Day: 2}, dt, nil, []any{"x"}},
		{int64(2), int64(20), -0.5, "Bob \"the Builder\"", "blocked", false, int64(7), true, executor.Date{Year: 1999, Month: 3, Day: 4}, dt, dt, []any{}},
		{int64(3), int64(30), 0.0, "line\nback\\slash 🎉", "active", true, int64(-7), false, executor.Date{Year: 2026, Month: 7, Day: 1}, dt, nil, []any{"a", "b'"}},
	}
	if err := e.Insert(ctx, table, cols, in); err != nil {
		t.Fatalf("insert: %v", err)
	}
	res := run(t, e, &compiler.Query{SQL: "SELECT " + strings.Join(cols, ", ") + " FROM " + table + " ORDER BY id"})
	if diff := cmp.Diff(in, res.Rows); diff != "" {
		t.Errorf("rows read back (-want +got):\n%s", diff)
	}
}

// RunDriverChecks is the subset for servers without server-side parameters: connect, version,
// a plain query, error mapping and cancellation. wantVersionPrefix is checked against Version.
func RunDriverChecks(t *testing.T, e executor.Executor, wantVersionPrefix string) {
	t.Run("Ping", func(t *testing.T) {
		if err := e.Ping(t.Context()); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("Version", func(t *testing.T) {
		v, err := e.Version(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(v, wantVersionPrefix) {
			t.Errorf("Version = %q, want prefix %q", v, wantVersionPrefix)
		}
	})
	t.Run("PlainQuery", func(t *testing.T) {
		res := run(t, e, &compiler.Query{SQL: "SELECT toInt64(-3) AS i, toUInt64(4) AS u, 'x\ty' AS s, toFloat64(0.25) AS f, [1, 2] AS a, CAST(NULL AS Nullable(String)) AS n"})
		want := [][]any{{int64(-3), int64(4), "x\ty", 0.25, []any{int64(1), int64(2)}, nil}}
		if diff := cmp.Diff(want, res.Rows); diff != "" {
			t.Errorf("rows (-want +got):\n%s", diff)
		}
		res = run(t, e, &compiler.Query{SQL: "SELECT number FROM system.numbers LIMIT 50000"})
		if len(res.Rows) != 50000 {
			t.Errorf("got %d rows, want 50000", len(res.Rows))
		}
		if res.Stats.RowsRead == 0 {
			t.Errorf("Stats = %+v, want progress with rows read", res.Stats)
		}
	})
	t.Run("Errors", func(t *testing.T) {
		err := runErr(t.Context(), e, &compiler.Query{SQL: "SELEC 1"})
		wantKind(t, err, executor.ErrInternal)
		wantCode(t, err, 62)
		err = runErr(t.Context(), e, &compiler.Query{SQL: "SELECT * FROM gw_no_such_table"})
		wantKind(t, err, executor.ErrUnavailable)
		wantCode(t, err, 60)
		err = runErr(t.Context(), e, &compiler.Query{SQL: "SELECT toInt64('abc')"})
		wantKind(t, err, executor.ErrInvalidQuery)
	})
	t.Run("Settings", func(t *testing.T) {
		err := runErr(t.Context(), e, &compiler.Query{
			SQL:      "CREATE TABLE gw_readonly_probe (a Int64) ENGINE = Memory",
			Settings: []compiler.Setting{{Key: "readonly", Value: int64(2)}},
		})
		wantKind(t, err, executor.ErrInternal)
		wantCode(t, err, 164)
		err = runErr(t.Context(), e, &compiler.Query{
			SQL:      "SELECT groupArray(number) FROM numbers(20000000)",
			Settings: []compiler.Setting{{Key: "max_memory_usage", Value: int64(20_000_000)}},
		})
		wantKind(t, err, executor.ErrResourceExhausted)
		wantCode(t, err, 241)
	})
	if l, ok := e.(executor.Loader); ok {
		t.Run("Loader", func(t *testing.T) { testLegacyLoader(t, e, l) })
	}
	t.Run("Cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		errc := make(chan error, 1)
		go func() { errc <- runErr(ctx, e, &compiler.Query{SQL: "SELECT count() FROM system.numbers"}) }()
		cancel()
		err := <-errc
		wantKind(t, err, executor.ErrCanceled)
	})
	t.Run("Deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
		defer cancel()
		err := runErr(ctx, e, &compiler.Query{SQL: "SELECT count() FROM system.numbers"})
		wantKind(t, err, executor.ErrTimeout)
	})
	t.Run("HealthyAfterCancel", func(t *testing.T) {
		if err := e.Ping(t.Context()); err != nil {
			t.Fatal(err)
		}
	})
}

// testLegacyLoader inserts and reads back the types an old server has (no Bool, no DateTime64).
func testLegacyLoader(t *testing.T, e executor.Executor, l executor.Loader) {
	ctx := t.Context()
	table := fmt.Sprintf("gw_legacy_%d", time.Now().UnixNano())
	ddl := "CREATE TABLE " + table + " (id Int64, s String, n Nullable(Int64), d Date, dt DateTime, arr Array(String)) ENGINE = MergeTree ORDER BY id"
	if err := l.Exec(ctx, ddl); err != nil {
		t.Fatalf("create table: %v", err)
	}
	t.Cleanup(func() {
		if err := l.Exec(context.Background(), "DROP TABLE IF EXISTS "+table); err != nil {
			t.Errorf("drop table: %v", err)
		}
	})
	dt := time.Date(2025, 12, 31, 23, 59, 59, 0, time.UTC)
	in := [][]any{
		{int64(1), `Bob "the Builder"`, nil, executor.Date{Year: 2026, Month: 1, Day: 2}, dt, []any{"a'b"}},
		{int64(2), "line\nback\\slash 🎉", int64(-7), executor.Date{Year: 1999, Month: 3, Day: 4}, dt, []any{}},
	}
	if err := l.Insert(ctx, table, []string{"id", "s", "n", "d", "dt", "arr"}, in); err != nil {
		t.Fatalf("insert: %v", err)
	}
	res := run(t, e, &compiler.Query{SQL: "SELECT id, s, n, d, dt, arr FROM " + table + " ORDER BY id"})
	if diff := cmp.Diff(in, res.Rows); diff != "" {
		t.Errorf("rows read back (-want +got):\n%s", diff)
	}
}
