package cluster

import (
	"context"
	"fmt"
	"strings"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/clickhouse"
	"github.com/graphwire/graphwire/ontology"
)

// Writer writes a bulk load (package load, its Options.Shards) to the shards of c's cluster.
// c must be a server of the cluster: the load's deltas are made like its local tables.
//
// A load stages and checks its files on c as on a single server; only the commit touches the
// shards. For each delta it creates a copy on every shard (DELTA_shard, made like the local
// table), empties it, sends the delta's rows through a Distributed table over those copies
// with the graph table's sharding key (so each row goes where an INSERT into the graph table
// would have put it, and an INSERT returns once every shard has its rows), then attaches
// each shard's copy to its local table (ALTER TABLE … ATTACH PARTITION … FROM: a metadata
// operation, as on a single server). A load killed during this leaves its manifest on c;
// the next load (or graphwire load's recovery) runs the commit again, which empties the
// copies and sends and attaches every delta again: rows attached twice have the same key
// and _version and collapse on a FINAL read.
type Writer struct {
	c      *clickhouse.Executor
	tables map[string]Table
}

// NewWriter returns the writer of ont's graph on c's cluster.
func NewWriter(c *clickhouse.Executor, ont *ontology.Ontology) *Writer {
	w := &Writer{c: c, tables: map[string]Table{}}
	for _, t := range Tables(ont) {
		w.tables[t.Name] = t
	}
	return w
}

// Local names table's shard-local table.
func (w *Writer) Local(table string) string { return table + LocalSuffix }

// Attach sends delta's rows to table's local table on every shard (see [Writer]).
func (w *Writer) Attach(ctx context.Context, table, delta string) error {
	t, ok := w.tables[table]
	if !ok || !executor.ValidIdent(delta) {
		return fmt.Errorf("cluster: attach %q from %q: not a graph table and a staging table", table, delta)
	}
	copyName, dist := delta+"_shard", delta+"_dist"
	if err := OnShards(ctx, w.c, []string{
		"CREATE TABLE IF NOT EXISTS " + copyName + " AS " + t.Local(),
		"TRUNCATE TABLE " + copyName,
	}); err != nil {
		return fmt.Errorf("cluster: stage %s on the shards: %w", table, err)
	}
	if err := w.c.Exec(ctx, fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s AS %s ENGINE = Distributed(%s, currentDatabase(), %s, %s)",
		dist, delta, w.c.Cluster(), copyName, t.Key)); err != nil {
		return fmt.Errorf("cluster: stage %s: %w", table, err)
	}
	if err := w.c.Exec(ctx, "INSERT INTO "+dist+" SELECT * FROM "+delta); err != nil {
		return fmt.Errorf("cluster: send %s to the shards: %w", table, err)
	}
	if err := OnShards(ctx, w.c, []string{"ALTER TABLE " + t.Local() + " ATTACH PARTITION tuple() FROM " + copyName}); err != nil {
		return fmt.Errorf("cluster: attach %s on the shards: %w", table, err)
	}
	return nil
}

// Drop drops, on every shard, the tables whose names start with prefix (a load's staging).
func (w *Writer) Drop(ctx context.Context, prefix string) error {
	shards, err := w.c.Shards(ctx)
	if err != nil {
		return err
	}
	for _, s := range shards {
		if err := dropOn(ctx, w.c, s, prefix); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

func dropOn(ctx context.Context, c *clickhouse.Executor, s clickhouse.Shard, prefix string) error {
	se, err := c.OpenShard(s, false)
	if err != nil {
		return err
	}
	defer se.Close()
	rows, err := executor.CollectRows(ctx, se, &compiler.Query{
		SQL:    "SELECT name FROM system.tables WHERE database = {p0:String} AND startsWith(name, {p1:String}) ORDER BY name",
		Params: []compiler.Param{{Name: "p0", Type: "String", Value: c.Database()}, {Name: "p1", Type: "String", Value: prefix}},
	})
	if err != nil {
		return err
	}
	for _, r := range rows.Values {
		n, _ := r[0].(string)
		if !executor.ValidIdent(n) || !strings.HasPrefix(n, prefix) {
			continue
		}
		if err := se.Exec(ctx, "DROP TABLE IF EXISTS "+c.Database()+"."+n+" SYNC"); err != nil {
			return err
		}
	}
	return nil
}
