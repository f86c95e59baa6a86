package compiler_test

import (
	"runtime"
	"strconv"
	"testing"

	"github.com/graphwire/graphwire/compiler"
)

// TestEdgeSetBytesCoverItsHeap: what an edge set counts (EdgeSet.Bytes, which the edge
// cache's budget and each caller's share add up) is at least what it holds on the heap,
// measured with runtime.MemStats (within 1%), for 100,000 edges with one path, 100 and
// 100,000 distinct ones (the last, paths of 14 bytes each, took 4% more than it counted: a
// caller's share was exceeded by as much).
func TestEdgeSetBytesCoverItsHeap(t *testing.T) {
	pair := compiler.EdgePair{Type: "CONTAINS", From: "Group", To: "Project"}
	const n = 100000
	for _, paths := range []int{1, 100, n} {
		d, err := compiler.NewEdgeSetDecoder(pair, compiler.EdgeSetCols)
		if err != nil {
			t.Fatal(err)
		}
		row := make([]any, len(compiler.EdgeSetCols))
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := range n {
			p := i % paths
			row[0], row[1], row[2], row[3], row[4] = int64(i*7%n), "Group", int64(i), "Project", "CONTAINS"
			row[5] = "1/" + strconv.Itoa(1000+p/100) + "/" + strconv.Itoa(100000+p) + "/"
			if err := d.Add(row); err != nil {
				t.Fatal(err)
			}
		}
		s := d.Set()
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		// (1% for what the runtime itself allocates meanwhile: up to 6 KB seen.)
		if heap > s.Bytes()+s.Bytes()/100 {
			t.Errorf("%d edges, %d paths: the set holds %d bytes of heap, counts %d", n, paths, heap, s.Bytes())
		}
		runtime.KeepAlive(s)
	}
}
