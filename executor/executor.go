package executor

import (
	"context"
	"fmt"
	"time"

	"github.com/graphwire/graphwire/compiler"
)

// Executor runs compiled queries. Implementations are safe for concurrent use.
type Executor interface {
	// Run executes q and returns its rows. The statement has finished on the engine, or is
	// streaming, when Run returns; the caller must Close the rows. Run honours ctx: when ctx is
	// canceled or its deadline passes, Run (or Rows.Next) stops with an error that matches
	// ErrCanceled or ErrTimeout and ctx.Err().
	Run(ctx context.Context, q *compiler.Query) (Rows, error)
	// Ping checks that the engine answers.
	Ping(ctx context.Context) error
	// Version reports the engine's version string (for example "26.7.3.1").
	Version(ctx context.Context) (string, error)
	// Close releases the engine's resources. Running queries may fail afterwards.
	Close() error
}

// Loader writes data; the seed generator, schema setup and tests use it, the query path never
// does. Implementations are safe for concurrent use.
type Loader interface {
	// Exec runs one statement that returns no rows (DDL, INSERT … SELECT, OPTIMIZE).
	Exec(ctx context.Context, sql string) error
	// Insert appends rows to table. Each row holds one value per column, in the value model
	// (nil for NULL, int64, float64, string, bool, Date, time.Time).
	Insert(ctx context.Context, table string, columns []string, rows [][]any) error
}

// Rows is a stream of typed rows. It is not safe for concurrent use.
//
//	defer rows.Close()
//	for rows.Next() {
//		use(rows.Values())
//	}
//	if err := rows.Err(); err != nil { … }
type Rows interface {
	// Columns describes the result columns.
	Columns() []Column
	// Next advances to the next row and reports whether there is one.
	Next() bool
	// Values returns the current row, one value per column, in the value model. The slice
	// is owned by the caller.
	Values() []any
	// Err returns the error that stopped Next, if any.
	Err() error
	// Stats reports what the engine read; complete once Next has returned false.
	Stats() Stats
	// Close releases the rows. It is safe to call more than once.
	Close() error
}

// Column is one result column: its name and its ClickHouse type as the engine reports it
// (for example "Nullable(DateTime64(3, 'UTC'))").
type Column struct {
	Name string
	Type string
}

// Stats reports the work a statement did.
type Stats struct {
	RowsRead  uint64
	BytesRead uint64
	Elapsed   time.Duration
}

// Date is a calendar date without a time zone, the value of Date and Date32 columns.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// DateOf returns the date of t in t's location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{Year: y, Month: m, Day: d}
}

// Time returns midnight UTC of d.
func (d Date) Time() time.Time { return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC) }

// String formats d as YYYY-MM-DD.
func (d Date) String() string { return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day) }

// Result is a fully read result set.
type Result struct {
	Columns []Column
	Rows    [][]any
	Stats   Stats
}

// Collect reads every row of rows and closes it.
func Collect(rows Rows) (*Result, error) {
	defer rows.Close()
	res := &Result{Columns: rows.Columns()}
	for rows.Next() {
		res.Rows = append(res.Rows, rows.Values())
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	res.Stats = rows.Stats()
	return res, nil
}

// SliceRows returns Rows over rows already in memory. Engines that buffer a whole result use it.
func SliceRows(cols []Column, rows [][]any, stats Stats) Rows {
	return &sliceRows{cols: cols, rows: rows, stats: stats, i: -1}
}

type sliceRows struct {
	cols  []Column
	rows  [][]any
	stats Stats
	i     int
}

func (r *sliceRows) Columns() []Column { return r.cols }
func (r *sliceRows) Next() bool {
	if r.i+1 >= len(r.rows) {
		r.i = len(r.rows)
		return false
	}
	r.i++
	return true
}
func (r *sliceRows) Values() []any { return r.rows[r.i] }
func (r *sliceRows) Err() error    { return nil }
func (r *sliceRows) Stats() Stats  { return r.stats }
func (r *sliceRows) Close() error  { r.i = len(r.rows); return nil }
