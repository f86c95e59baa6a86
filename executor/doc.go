// Package executor runs compiled queries on ClickHouse and streams typed rows back.
//
// It holds what both engines share: the [Executor] and [Loader] interfaces, the value model every
// row uses, the canonical parameter text both engines bind (docs/clickhouse.md, "Parameter
// text") and the mapping of ClickHouse exception codes to the error kinds [ErrInvalidQuery],
// [ErrTimeout], [ErrResourceExhausted], [ErrUnavailable], [ErrCanceled] and [ErrInternal]
// (docs/clickhouse.md, "Error kinds"). The engines
// live in executor/chdb (embedded ClickHouse through libchdb.so) and executor/clickhouse
// (a ClickHouse server over the native protocol).
//
// A run, from compiled query to values:
//
//	q := &compiler.Query{
//		SQL:    "SELECT {p0:Int64} + 1 AS n, {p1:String} AS s",
//		Params: []compiler.Param{{Name: "p0", Type: "Int64", Value: int64(41)}, {Name: "p1", Type: "String", Value: "a\tb"}},
//	}
//	rows, err := exec.Run(ctx, q)
//	// rows.Columns() = [{n Int64} {s String}]; one row: []any{int64(42), "a\tb"}
//
// # Value model
//
// Both engines return the same Go values: nil for NULL; int64 for every integer type, except a
// UInt64 value above math.MaxInt64, which stays an exact uint64 (so code that reads unsigned
// columns handles both); float64 for Float32/Float64; string for String, FixedString,
// LowCardinality(String) and Enum; bool; [Date] for Date and Date32; time.Time in UTC for
// DateTime and DateTime64; []any for Array and Tuple.
package executor
