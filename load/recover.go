package load

import (
	"context"
	"fmt"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/ontology"
)

// Recovered is an earlier load that was killed after writing its manifest and that [Load]
// (or [Recover]) finished before doing its own work: its rows are in the graph now. Staging
// names its staging tables (gw_stage_<token>_), the only name a killed load leaves.
type Recovered struct {
	Staging      string
	Version      uint64 // the _version its rows carry
	Nodes, Edges int64  // rows it attached: node rows and edge rows (upserts and tombstones)
}

// manifestRows counts the node and edge rows of the deltas the manifest of the load staged
// under prefix lists; the by-target copy of the edges is not counted again.
func manifestRows(ctx context.Context, e Engine, ont *ontology.Ontology, prefix string) (nodes, edges int64, err error) {
	res, err := collect(ctx, e, &compiler.Query{SQL: "SELECT target, delta FROM " + prefix + "manifest ORDER BY n"})
	if err != nil {
		return 0, 0, fmt.Errorf("load: read manifest: %w", err)
	}
	for _, r := range res.Rows {
		target, _ := r[0].(string)
		delta, _ := r[1].(string)
		if target == ont.EdgeTableByTarget {
			continue
		}
		if !stagingName(delta) {
			return 0, 0, fmt.Errorf("load: manifest %s names %q, not a delta", prefix, delta)
		}
		n, err := count(ctx, e, "SELECT count() FROM "+delta)
		if err != nil {
			return 0, 0, fmt.Errorf("load: count %s: %w", delta, err)
		}
		if target == ont.EdgeTable {
			edges += n
		} else {
			nodes += n
		}
	}
	return nodes, edges, nil
}
