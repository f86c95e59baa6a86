//go:build cgo

package chdb

import (
	"context"
	"strconv"
	"testing"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/internal/cputime"
)

// BenchmarkEdgeParams measures what a list of edges given as parameters costs the engine
// (docs/compiler.md, "Traversals on cached edges"): one array of tuples unfolded by arrayJoin
// (the cached traversal's form before) against parallel arrays unfolded by ARRAY JOIN
// (paramRows, its form now), with and without a String kind per edge, at several sizes.
// The statement only counts the rows, so what it measures is sending, parsing and unfolding
// the parameters.
func BenchmarkEdgeParams(b *testing.B) {
	e := benchExecutor(b)
	ctx := context.Background()
	kinds := []string{"AUTHORED", "ASSIGNED", "REVIEWER"}
	for _, n := range []int{2000, 5000, 20000, 50000} {
		var tuples, tuplesKind, as, bs, ks []any
		for i := range n {
			a, t, k := int64(1000+i%97), int64(500000+i), kinds[i%len(kinds)]
			tuples = append(tuples, []any{a, t})
			tuplesKind = append(tuplesKind, []any{a, t, k})
			as, bs, ks = append(as, a), append(bs, t), append(ks, k)
		}
		forms := []struct {
			name string
			q    *compiler.Query
		}{
			{"tuples", &compiler.Query{SQL: "SELECT count() FROM (SELECT arrayJoin({p0:Array(Tuple(Int64, Int64))}) AS e) WHERE tupleElement(e, 1) > 0",
				Params: []compiler.Param{{Name: "p0", Type: "Array(Tuple(Int64, Int64))", Value: tuples}}}},
			{"rows", &compiler.Query{SQL: "SELECT count() FROM (SELECT 1) ARRAY JOIN {p0:Array(Int64)} AS a, {p1:Array(Int64)} AS b WHERE a > 0",
				Params: []compiler.Param{{Name: "p0", Type: "Array(Int64)", Value: as}, {Name: "p1", Type: "Array(Int64)", Value: bs}}}},
			{"tuples-kind", &compiler.Query{SQL: "SELECT count() FROM (SELECT arrayJoin({p0:Array(Tuple(Int64, Int64, String))}) AS e) WHERE tupleElement(e, 1) > 0",
				Params: []compiler.Param{{Name: "p0", Type: "Array(Tuple(Int64, Int64, String))", Value: tuplesKind}}}},
			{"rows-kind", &compiler.Query{SQL: "SELECT count() FROM (SELECT 1) ARRAY JOIN {p0:Array(Int64)} AS a, {p1:Array(Int64)} AS b, {p2:Array(String)} AS kind WHERE a > 0",
				Params: []compiler.Param{{Name: "p0", Type: "Array(Int64)", Value: as}, {Name: "p1", Type: "Array(Int64)", Value: bs}, {Name: "p2", Type: "Array(String)", Value: ks}}}},
		}
		for _, f := range forms {
			b.Run(f.name+"/"+strconv.Itoa(n), func(b *testing.B) {
				start, _ := cputime.Process()
				for b.Loop() {
					r, err := e.Run(ctx, f.q)
					if err != nil {
						b.Fatal(err)
					}
					got := int64(-1)
					for r.Next() {
						got = toInt64(r.Values()[0])
					}
					if err := r.Close(); err != nil {
						b.Fatal(err)
					}
					if got != int64(n) {
						b.Fatalf("%d rows counted, want %d", got, n)
					}
				}
				end, _ := cputime.Process()
				b.ReportMetric(float64((end-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

func toInt64(v any) int64 {
	switch x := v.(type) {
	case uint64:
		return int64(x)
	case int64:
		return x
	}
	return -2
}
