package loadstate

import (
	"context"
	"fmt"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/ontology"
)

// MigrateEdges brings the edge tables of a graph created before ontology version 3 to the
// current schema ([ontology.Ontology.EdgeMigration]): it adds the project_id and branch
// columns and creates the edge view again. Every writer (load, index, seed) runs it before
// writing; on a current graph, or a database without an edge table, it only reads the
// catalogue. On a cluster (the edge table is Distributed) it adds nothing and says what to
// do, because the columns must be added on every shard's local tables (docs/cluster.md).
func MigrateEdges(ctx context.Context, w Writer, ont *ontology.Ontology) error {
	p := []compiler.Param{{Name: "p0", Type: "String", Value: ont.EdgeTable}}
	res, err := run(ctx, w, &compiler.Query{SQL: "SELECT engine FROM system.tables WHERE database = currentDatabase() AND name = {p0:String}", Params: p})
	if err != nil {
		return fmt.Errorf("migrate edge tables: %w", err)
	}
	if len(res.Rows) == 0 {
		return nil // no graph yet: the CREATE statements make the current schema
	}
	engine, _ := res.Rows[0][0].(string)
	res, err = run(ctx, w, &compiler.Query{SQL: "SELECT count() FROM system.columns WHERE database = currentDatabase() AND table = {p0:String} AND name = 'project_id'", Params: p})
	if err != nil {
		return fmt.Errorf("migrate edge tables: %w", err)
	}
	if len(res.Rows) != 1 || len(res.Rows[0]) != 1 {
		return fmt.Errorf("migrate edge tables: unexpected result %v", res.Rows)
	}
	if n, err := unsigned(res.Rows[0][0]); err != nil {
		return fmt.Errorf("migrate edge tables: %w", err)
	} else if n > 0 {
		return nil
	}
	if engine == "Distributed" {
		return fmt.Errorf("migrate edge tables: %s was created before ontology version 3 and has no project_id or branch column; on a cluster add them on every shard (docs/cluster.md, \"Edge properties\")", ont.EdgeTable)
	}
	for _, stmt := range ont.EdgeMigration() {
		if err := w.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("migrate edge tables: %w", err)
		}
	}
	return nil
}
