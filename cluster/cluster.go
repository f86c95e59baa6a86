package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/clickhouse"
	"github.com/graphwire/graphwire/ontology"
)

// LocalSuffix ends the name of every shard-local table: gl_user_local under gl_user.
const LocalSuffix = "_local"

// Table is one graph table on a cluster: the name the compiler uses and its sharding key.
type Table struct {
	Name string // the Distributed table, e.g. gl_user
	Key  string // the sharding key expression, e.g. cityHash64(id)
}

// Local is the name of the table's shard-local table.
func (t Table) Local() string { return t.Name + LocalSuffix }

// Tables lists the graph's tables as they are laid out on a cluster: the entity tables sorted
// by name, the two edge tables and the load record table.
func Tables(ont *ontology.Ontology) []Table {
	var ts []Table
	for _, e := range ont.Entities {
		ts = append(ts, Table{Name: e.Table, Key: "cityHash64(id)"})
	}
	slices.SortFunc(ts, func(a, b Table) int { return strings.Compare(a.Name, b.Name) })
	// Both edge tables by source: the view fills gl_edge_by_target_local on the shard that
	// receives the gl_edge row, and an INSERT into the Distributed gl_edge_by_target must
	// put a row where that view would.
	ts = append(ts,
		Table{Name: ont.EdgeTable, Key: "cityHash64(source_id)"},
		Table{Name: ont.EdgeTableByTarget, Key: "cityHash64(source_id)"},
		// A load's two records ('loading' and 'complete') share their seq, and so a shard.
		Table{Name: ontology.LoadStateTable, Key: "seq"},
	)
	return ts
}

// Statements returns the DDL of one shard: the local tables and the view first, then the
// Distributed tables over them. Every statement is CREATE … IF NOT EXISTS.
func Statements(ont *ontology.Ontology, name string) ([]string, error) {
	if !executor.ValidIdent(name) {
		return nil, fmt.Errorf("cluster: invalid cluster name %q", name)
	}
	tables := Tables(ont)
	byName := map[string]Table{}
	for _, t := range tables {
		byName[t.Name] = t
	}
	mv := ont.EdgeTableByTarget + "_mv"
	var local []string
	for _, stmt := range ont.DDLStatements() {
		head, rest, ok := strings.Cut(stmt, "\n")
		if !ok {
			return nil, fmt.Errorf("cluster: unexpected DDL %q", stmt)
		}
		switch {
		case strings.HasPrefix(head, "CREATE TABLE IF NOT EXISTS "):
			n := strings.TrimPrefix(head, "CREATE TABLE IF NOT EXISTS ")
			t, ok := byName[n]
			if !ok {
				return nil, fmt.Errorf("cluster: DDL of unknown table %q", n)
			}
			local = append(local, "CREATE TABLE IF NOT EXISTS "+t.Local()+"\n"+rest)
		case head == "CREATE MATERIALIZED VIEW IF NOT EXISTS "+mv+" TO "+ont.EdgeTableByTarget+" AS":
			// The same name as on a single server, so the schema statements seed and load
			// run find it and create nothing; on each shard, local to local.
			body := strings.Replace(rest, "FROM "+ont.EdgeTable, "FROM "+ont.EdgeTable+LocalSuffix, 1)
			local = append(local, "CREATE MATERIALIZED VIEW IF NOT EXISTS "+mv+" TO "+ont.EdgeTableByTarget+LocalSuffix+" AS\n"+body)
		default:
			return nil, fmt.Errorf("cluster: unexpected DDL %q", head)
		}
	}
	stmts := local
	for _, t := range tables {
		stmts = append(stmts, fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s AS %s ENGINE = Distributed(%s, currentDatabase(), %s, %s)",
			t.Name, t.Local(), name, t.Local(), t.Key))
	}
	return stmts, nil
}

// Init creates the graph's layout on every shard of c's cluster (and the database, when the DSN
// names one), then checks it with [Check]. It is safe to run again: what exists is kept, and a
// shard whose tables differ is refused.
func Init(ctx context.Context, c *clickhouse.Executor, ont *ontology.Ontology) error {
	stmts, err := Statements(ont, c.Cluster())
	if err != nil {
		return err
	}
	shards, err := c.Shards(ctx)
	if err != nil {
		return fmt.Errorf("cluster init: %w", err)
	}
	for _, s := range shards {
		if err := eachStatement(ctx, c, s, stmts); err != nil {
			return fmt.Errorf("cluster init: %w", err)
		}
	}
	return Check(ctx, c, ont)
}

func eachStatement(ctx context.Context, c *clickhouse.Executor, s clickhouse.Shard, stmts []string) error {
	se, err := c.OpenShard(s, true)
	if err != nil {
		return err
	}
	defer se.Close()
	for _, stmt := range stmts {
		if err := se.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// OnShards runs stmts, in order, on every shard in turn, each shard through a connection of
// its own; the first failure stops it and names the shard.
func OnShards(ctx context.Context, c *clickhouse.Executor, stmts []string) error {
	shards, err := c.Shards(ctx)
	if err != nil {
		return err
	}
	for _, s := range shards {
		if err := eachStatement(ctx, c, s, stmts); err != nil {
			return err
		}
	}
	return nil
}

// Merge merges the parts of table's local table on every shard (OPTIMIZE TABLE … FINAL): what
// seed does after writing, which a Distributed table refuses.
func Merge(ctx context.Context, c *clickhouse.Executor, table string) error {
	if !executor.ValidIdent(table) {
		return fmt.Errorf("cluster: merge: invalid table name %q", table)
	}
	return OnShards(ctx, c, []string{"OPTIMIZE TABLE " + table + LocalSuffix + " FINAL"})
}

// ErrSchema is what a [*SchemaError] matches.
var ErrSchema = errors.New("cluster: schema differs")

// SchemaError is a shard whose tables are not the cluster's layout: a table missing, a
// different column or engine, or a graph table that is not Distributed.
type SchemaError struct {
	Shard  clickhouse.Shard
	Table  string
	Detail string
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("cluster: %s: table %s: %s", e.Shard, e.Table, e.Detail)
}

// Is matches [ErrSchema].
func (e *SchemaError) Is(target error) bool { return target == ErrSchema }

// Check compares the tables of every shard with the first shard's, column by column, and
// checks that the first shard holds the whole layout with Distributed tables over the
// cluster. The first difference is a [*SchemaError] naming the shard, the table and what
// differs; a shard that does not answer is an [executor.ErrUnavailable] naming it.
func Check(ctx context.Context, c *clickhouse.Executor, ont *ontology.Ontology) error {
	shards, err := c.Shards(ctx)
	if err != nil {
		return fmt.Errorf("cluster check: %w", err)
	}
	var names []string
	for _, t := range Tables(ont) {
		names = append(names, t.Name, t.Local())
	}
	names = append(names, ont.EdgeTableByTarget+"_mv")
	slices.Sort(names)
	var first map[string][]string
	for i, s := range shards {
		desc, err := describe(ctx, c, s, names)
		if err != nil {
			return fmt.Errorf("cluster check: %s: %w", s, err)
		}
		if i == 0 {
			for _, n := range names {
				if _, ok := desc[n]; !ok {
					return &SchemaError{Shard: s, Table: n, Detail: "missing (run graphwire cluster init)"}
				}
			}
			for _, t := range Tables(ont) {
				want := fmt.Sprintf("engine: Distributed('%s', '%s', '%s', %s)", c.Cluster(), c.Database(), t.Local(), t.Key)
				if got := desc[t.Name][0]; got != want {
					return &SchemaError{Shard: s, Table: t.Name, Detail: fmt.Sprintf("%s, want %s", got, want)}
				}
			}
			first = desc
			continue
		}
		for _, n := range names {
			got, ok := desc[n]
			if !ok {
				return &SchemaError{Shard: s, Table: n, Detail: fmt.Sprintf("missing (%s has it)", shards[0])}
			}
			want := first[n]
			for j := range max(len(got), len(want)) {
				g, w := "(nothing)", "(nothing)"
				if j < len(got) {
					g = got[j]
				}
				if j < len(want) {
					w = want[j]
				}
				if g != w {
					return &SchemaError{Shard: s, Table: n, Detail: fmt.Sprintf("%s, where %s has %s", g, shards[0], w)}
				}
			}
		}
	}
	return nil
}

// describe returns, per table of names that exists on shard s, its engine line and one line
// per column (position, name, type, default).
func describe(ctx context.Context, c *clickhouse.Executor, s clickhouse.Shard, names []string) (map[string][]string, error) {
	se, err := c.OpenShard(s, false)
	if err != nil {
		return nil, err
	}
	defer se.Close()
	p := []compiler.Param{{Name: "p0", Type: "Array(String)", Value: names}, {Name: "p1", Type: "String", Value: c.Database()}}
	tables, err := executor.CollectRows(ctx, se, &compiler.Query{
		SQL:    "SELECT name, engine_full FROM system.tables WHERE database = {p1:String} AND has({p0:Array(String)}, name) ORDER BY name",
		Params: p,
	})
	if err != nil {
		return nil, err
	}
	desc := map[string][]string{}
	for _, r := range tables.Values {
		n, _ := r[0].(string)
		eng, _ := r[1].(string)
		desc[n] = []string{"engine: " + eng}
	}
	cols, err := executor.CollectRows(ctx, se, &compiler.Query{
		SQL:    "SELECT table, toInt64(position), name, type, default_kind, default_expression, compression_codec FROM system.columns WHERE database = {p1:String} AND has({p0:Array(String)}, table) ORDER BY table, position",
		Params: p,
	})
	if err != nil {
		return nil, err
	}
	for _, r := range cols.Values {
		n, _ := r[0].(string)
		line := fmt.Sprintf("column %v: %v %v", r[1], r[2], r[3])
		if k, _ := r[4].(string); k != "" {
			line += fmt.Sprintf(" %s %v", k, r[5])
		}
		if codec, _ := r[6].(string); codec != "" {
			line += " " + codec
		}
		desc[n] = append(desc[n], line)
	}
	return desc, nil
}
