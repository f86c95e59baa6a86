package load

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/ontology"
)

// MergeOptions configures [Merge]. The zero value means the defaults below.
//
// A merge rewrites the whole table (OPTIMIZE TABLE … FINAL: one part per partition; the
// engine's merge selector without FINAL picks the same parts at these sizes, a large part
// included), so its cost is the table's size, not the write's. A table is merged when that
// is cheap (at most WholeBytes), when the parts written since the last merge hold at least
// Share of its rows, or when MaxParts of them have piled up; otherwise the small parts stay
// until one of these holds. That keeps a small write into a large graph small, and bounds the
// rewriting of a large table to about one per Share of it written or per MaxParts writes.
type MergeOptions struct {
	// WholeBytes is the size on disk up to which a table in several parts is always merged.
	// Default [DefaultMergeWholeBytes].
	WholeBytes int64
	// Share: a larger table is merged when its parts other than the largest of each
	// partition hold at least this share of its rows. Default [DefaultMergeShare].
	Share float64
	// MaxParts: a larger table is merged when it holds at least this many parts more than
	// partitions. Default [DefaultMergeMaxParts].
	MaxParts int
}

// The defaults of [MergeOptions], measured in docs/loading.md ("Merging after a write").
const (
	DefaultMergeWholeBytes = 16 << 20
	DefaultMergeShare      = 0.25
	DefaultMergeMaxParts   = 8
)

func (o MergeOptions) withDefaults() MergeOptions {
	if o.WholeBytes <= 0 {
		o.WholeBytes = DefaultMergeWholeBytes
	}
	if o.Share <= 0 {
		o.Share = DefaultMergeShare
	}
	if o.MaxParts <= 0 {
		o.MaxParts = DefaultMergeMaxParts
	}
	return o
}

// MergedTable is what [Merge] did to one graph table.
type MergedTable struct {
	Table string
	// Parts, Rows and Bytes describe the table's active parts before the merge.
	Parts       int
	Rows, Bytes int64
	// PartsAfter is the number of active parts once the merge returned.
	PartsAfter int
	Elapsed    time.Duration
}

// Merge merges the parts of every graph table of ont (the entity tables and both edge tables)
// that holds more parts than partitions and that [MergeOptions] selects, and returns what it
// did to each such table, in table-name order.
//
// Every load attaches its deltas as parts of their own, and a read with FINAL merges the
// versions of overlapping parts at query time: after a write of a few percent of every table, a
// graph merged into one part per table answered bench/duckdb's questions with 4–20 % less CPU
// at scale 10 and 22–53 % less at scale 100 (docs/duckdb.md, "What it says"). A server merges
// in the background by itself; the embedded engine of a short-lived process never gets to, so
// the process that writes calls Merge after its write (package ingest).
//
// A merge only rewrites parts: rows and their versions stay, and a query running meanwhile
// reads the parts it started with, so its answer is the same. A table that fails to merge is
// left as it was and the others are still merged; the errors are returned joined.
func Merge(ctx context.Context, e Engine, ont *ontology.Ontology, opts MergeOptions) ([]MergedTable, error) {
	opts = opts.withDefaults()
	before, err := partStats(ctx, e, ont)
	if err != nil {
		return nil, fmt.Errorf("load: merge: %w", err)
	}
	var done []MergedTable
	var errs []error
	for _, p := range before {
		if p.parts <= p.partitions {
			continue
		}
		if p.bytes > opts.WholeBytes && float64(p.rows-p.largest) < opts.Share*float64(p.rows) && p.parts-p.partitions < int64(opts.MaxParts) {
			continue
		}
		m := MergedTable{Table: p.table, Parts: int(p.parts), Rows: p.rows, Bytes: p.bytes}
		start := time.Now()
		if err := e.Exec(ctx, "OPTIMIZE TABLE "+p.table+" FINAL"); err != nil {
			errs = append(errs, fmt.Errorf("load: merge %s: %w", p.table, err))
			continue
		}
		m.Elapsed = time.Since(start)
		done = append(done, m)
	}
	if len(done) > 0 {
		after, err := partStats(ctx, e, ont)
		if err != nil {
			errs = append(errs, fmt.Errorf("load: merge: %w", err))
		}
		for i := range done {
			for _, p := range after {
				if p.table == done[i].Table {
					done[i].PartsAfter = int(p.parts)
				}
			}
		}
	}
	return done, errors.Join(errs...)
}

// tableParts describes the active parts of one table.
type tableParts struct {
	table             string
	parts, partitions int64
	rows, bytes       int64
	// largest sums, over the partitions, the rows of each partition's largest part.
	largest int64
}

// partStats reads the active parts of ont's graph tables from system.parts, in table-name
// order; a table without parts is left out.
func partStats(ctx context.Context, e Engine, ont *ontology.Ontology) ([]tableParts, error) {
	var names []string
	for _, ent := range ont.Entities {
		names = append(names, ent.Table)
	}
	names = append(names, ont.EdgeTable, ont.EdgeTableByTarget)
	res, err := collect(ctx, e, &compiler.Query{
		SQL: "SELECT table, sum(n), count(), sum(r), sum(b), sum(top) FROM (" +
			"SELECT table, partition_id, count() AS n, sum(rows) AS r, sum(bytes_on_disk) AS b, max(rows) AS top" +
			" FROM system.parts WHERE database = currentDatabase() AND active AND has({p0:Array(String)}, table)" +
			" GROUP BY table, partition_id) GROUP BY table ORDER BY table",
		Params: []compiler.Param{{Name: "p0", Type: "Array(String)", Value: names}},
	})
	if err != nil {
		return nil, fmt.Errorf("read parts: %w", err)
	}
	var out []tableParts
	for _, r := range res.Rows {
		if len(r) != 6 {
			return nil, fmt.Errorf("read parts: unexpected row %v", r)
		}
		p := tableParts{}
		p.table, _ = r[0].(string)
		ints := []*int64{&p.parts, &p.partitions, &p.rows, &p.bytes, &p.largest}
		for i, dst := range ints {
			switch v := r[i+1].(type) {
			case uint64:
				*dst = int64(v)
			case int64:
				*dst = v
			default:
				return nil, fmt.Errorf("read parts: unexpected value %v (%T) for %s", r[i+1], r[i+1], p.table)
			}
		}
		out = append(out, p)
	}
	return out, nil
}
