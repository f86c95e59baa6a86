package compiler

// Query is one compiled statement: SQL text whose values appear only as typed placeholders
// ({p0:String}, {p1:Array(Int64)}, …), the values bound to those placeholders, and the
// per-query settings the executor applies.
//
// A Query is plain data; executors read it and never change it, so one Query may be run by
// several goroutines at once.
type Query struct {
	// SQL is one statement with {name:Type} placeholders. It never contains a value.
	SQL string
	// Params binds each placeholder, in placeholder order.
	Params []Param
	// Settings are per-query ClickHouse settings (max_execution_time, max_memory_usage,
	// readonly, …), applied by the executor through the engine's settings API in this order.
	Settings []Setting
	// Plan carries what the edges need after execution: the builder plan for
	// graphresponse.Build and the hydration context. Nil for statements not made by Compile
	// (hydration statements, hand-written SQL).
	Plan *Plan
}

// Param is the value bound to the placeholder {Name:Type}.
//
// Type is the ClickHouse type written in the placeholder (Int64, UInt64, Float64, Bool, String,
// Date, Date32, DateTime64(6, 'UTC'), Nullable(T), LowCardinality(T), Array(T)). Value is a Go
// value of the matching kind: int64 (or any Go integer), uint64, float64, bool, string,
// time.Time, nil for NULL (Nullable only), or a slice of those for Array. Executors turn the
// value into ClickHouse's canonical escaped text, so values are bound, never pasted into SQL.
type Param struct {
	Name  string
	Type  string
	Value any
}

// Setting is one per-query ClickHouse setting. Value is an int64, a uint64, a bool or a string.
type Setting struct {
	Key   string
	Value any
}
