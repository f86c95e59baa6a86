package main

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/graphwire/graphwire/compiler"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/load"
	"github.com/graphwire/graphwire/ontology"
	"github.com/graphwire/graphwire/seed"
)

// prepared describes the graph of one scale.
type prepared struct {
	Nodes, Edges int
	Tables       map[string]int64 // raw rows per table (every version and tombstone)
	LiveRows     int64            // rows of the live-only layout
	VersionRows  int64            // rows of the versioned layout
	DuckBytes    int64            // size of the DuckDB file
	Scoped       []compiler.Scope // the scoped caller's grants, chosen from this graph (seed.ScopedGrants)
	Merged       bool             // every table's parts were merged after the churn (-merged)
	// PartsMode is -parts: what merged the churn's parts. Merges is what graphwire's merge
	// after a write did (load.Merge, as after a graphwire load), IdleMerges what serve's idle
	// merge did then, and Parts the active parts of each gl_ table left in several parts when
	// the export ran.
	PartsMode  string
	Merges     []load.MergedTable
	IdleMerges []load.MergedTable
	Parts      map[string]int64
	Seconds    float64
}

// churn is the churn of tests/sqlbench (env_test.go): new versions that change filtered
// columns, node tombstones whose edges stay, edge tombstones, edges written again.
var churn = []string{
	"INSERT INTO gl_merge_request SELECT * REPLACE (_version + 1 AS _version, if(state = 'merged', 'closed', 'merged') AS state, concat(title, ' fix') AS title) FROM (SELECT * FROM gl_merge_request FINAL WHERE _deleted = false AND id % 10 = 3)",
	"INSERT INTO gl_pipeline SELECT * REPLACE (_version + 1 AS _version, if(status = 'failed', 'success', 'failed') AS status) FROM (SELECT * FROM gl_pipeline FINAL WHERE _deleted = false AND id % 10 = 3)",
	"INSERT INTO gl_project SELECT * REPLACE (_version + 1 AS _version, concat(full_path, '-moved') AS full_path) FROM (SELECT * FROM gl_project FINAL WHERE _deleted = false AND id % 10 = 3)",
	"INSERT INTO gl_group SELECT * REPLACE (_version + 1 AS _version, true AS _deleted) FROM (SELECT * FROM gl_group FINAL WHERE _deleted = false AND id % 4 = 3 AND length(splitByChar('/', traversal_path)) = 3)",
	"INSERT INTO gl_project SELECT * REPLACE (_version + 1 AS _version, true AS _deleted) FROM (SELECT * FROM gl_project FINAL WHERE _deleted = false AND id % 23 = 7)",
	"INSERT INTO gl_merge_request SELECT * REPLACE (_version + 1 AS _version, true AS _deleted) FROM (SELECT * FROM gl_merge_request FINAL WHERE _deleted = false AND id % 17 = 5)",
	"INSERT INTO gl_pipeline SELECT * REPLACE (_version + 1 AS _version, true AS _deleted) FROM (SELECT * FROM gl_pipeline FINAL WHERE _deleted = false AND id % 13 = 1)",
	"INSERT INTO gl_note SELECT * REPLACE (_version + 1 AS _version, true AS _deleted) FROM (SELECT * FROM gl_note FINAL WHERE _deleted = false AND id % 11 = 2)",
	"INSERT INTO gl_user SELECT * REPLACE (_version + 1 AS _version, true AS _deleted) FROM (SELECT * FROM gl_user FINAL WHERE _deleted = false AND id % 19 = 4)",
	"INSERT INTO gl_edge SELECT * REPLACE (_version + 1 AS _version, true AS _deleted) FROM (SELECT * FROM gl_edge FINAL WHERE _deleted = false AND (source_id * 7 + target_id) % 29 = 11)",
	"INSERT INTO gl_edge SELECT * REPLACE (_version + 1 AS _version) FROM (SELECT * FROM gl_edge FINAL WHERE _deleted = false AND (source_id + target_id) % 31 = 2)",
}

func chdbDir(dir string) string    { return filepath.Join(dir, "chdb") }
func duckFile(dir string) string   { return filepath.Join(dir, "graph.duckdb") }
func parquetDir(dir string) string { return filepath.Join(dir, "parquet") }

func loadOntology() (*ontology.Ontology, error) {
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		return nil, fmt.Errorf("load ontology: %w", err)
	}
	return ont, nil
}

func openChDB(dir string) (*chdb.Executor, error) { return openChDBThreads(dir, 0) }

// openChDBThreads opens the prepared chDB data with one connection of maxThreads threads (0:
// the executor's default).
func openChDBThreads(dir string, maxThreads int) (*chdb.Executor, error) {
	return openChDBPool(dir, maxThreads, 1)
}

// openChDBPool is openChDBThreads with pool connections.
func openChDBPool(dir string, maxThreads, pool int) (*chdb.Executor, error) {
	lib := chdb.DefaultLibrary()
	if _, err := os.Stat(lib); err != nil {
		return nil, fmt.Errorf("libchdb.so not found at %s (bash scripts/install-chdb.sh, or GRAPHWIRE_CHDB_LIB): %w", lib, err)
	}
	e, err := chdb.Open(chdb.Options{Library: lib, Path: chdbDir(dir), PoolSize: pool, MaxThreads: maxThreads})
	if err != nil {
		return nil, fmt.Errorf("open chdb on %s: %w", chdbDir(dir), err)
	}
	return e, nil
}

// sizedCompiler is the compiler as the server builds it over e: table sizes read from the
// engine, so the plans are the ones a request gets.
func sizedCompiler(ctx context.Context, e *chdb.Executor, ont *ontology.Ontology) (*compiler.Compiler, error) {
	sizes := executor.NewTableSizes(e, time.Hour)
	if err := sizes.Refresh(ctx); err != nil {
		return nil, err
	}
	return compiler.New(ont, compiler.Options{Sizes: sizes})
}

// openDuckReadOnly opens the prepared DuckDB file read-only, on one connection.
func openDuckReadOnly(dir string) (*sql.DB, error) {
	db, err := sql.Open("duckdb", duckFile(dir)+"?access_mode=READ_ONLY")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// prepare seeds chDB in dir, churns it, exports every table raw to Parquet and builds the
// DuckDB file with a versioned copy (gl_*) and a live-only copy (live_gl_*) of each table.
// The churn is one write, and parts says what merges it then: "served" (the default), the
// merge graphwire's writer does after a write (load.Merge with its defaults) and then the one
// serve does once idle (every table in several parts), the state of a graph that graphwire
// serve answers from; "written", the first alone, as a graphwire load leaves it; "unmerged",
// none, as graphwire left it before it merged after writes. Both engines get the rows of
// that state. With merged, every table's parts are then merged regardless (OPTIMIZE TABLE
// without FINAL: versions collapse, tombstones stay).
func prepare(dir string, scale float64, merged bool, parts string) (*prepared, error) {
	if parts != "served" && parts != "written" && parts != "unmerged" {
		return nil, fmt.Errorf("-parts %q: want served, written or unmerged", parts)
	}
	start := time.Now()
	ctx := context.Background()
	ont, err := loadOntology()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(parquetDir(dir), 0o755); err != nil {
		return nil, err
	}
	e, err := openChDB(dir)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	opts := seed.Options{Scale: scale, Seed: 42}
	g, err := seed.Generate(ont, opts)
	if err != nil {
		return nil, fmt.Errorf("generate: %w", err)
	}
	if _, err := seed.Load(ctx, e, ont, g, opts); err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	for _, s := range churn {
		if err := e.Exec(ctx, s); err != nil {
			return nil, fmt.Errorf("churn %q: %w", s, err)
		}
	}
	p := &prepared{Nodes: g.Nodes(), Edges: g.Edges(), Tables: map[string]int64{}, Merged: merged, Parts: map[string]int64{}, PartsMode: parts}
	if parts != "unmerged" {
		if p.Merges, err = load.Merge(ctx, e, ont, load.MergeOptions{}); err != nil {
			return nil, fmt.Errorf("merge after the churn: %w", err)
		}
	}
	if parts == "served" {
		// ingest.Writer.MergeIdle's options.
		if p.IdleMerges, err = load.Merge(ctx, e, ont, load.MergeOptions{WholeBytes: math.MaxInt64}); err != nil {
			return nil, fmt.Errorf("idle merge: %w", err)
		}
	}
	res, err := collect(ctx, e, "SELECT name FROM system.tables WHERE database = currentDatabase() AND engine LIKE '%MergeTree' AND startsWith(name, 'gl_') ORDER BY name")
	if err != nil {
		return nil, err
	}
	var tables []string
	for _, r := range res.Rows {
		t := r[0].(string)
		if merged {
			if err := e.Exec(ctx, "OPTIMIZE TABLE "+t); err != nil {
				return nil, fmt.Errorf("merge %s: %w", t, err)
			}
		}
		if t != "gl_edge_by_target" {
			tables = append(tables, t)
		}
	}
	left, err := collect(ctx, e, "SELECT table, count() FROM system.parts WHERE database = currentDatabase() AND active AND startsWith(table, 'gl_') GROUP BY table HAVING count() > 1 ORDER BY table")
	if err != nil {
		return nil, err
	}
	for _, r := range left.Rows {
		p.Parts[r[0].(string)] = r[1].(int64)
	}
	for _, t := range tables {
		if _, ok := floor[t]; !ok && t != "gl_edge" {
			continue // not read by any shape
		}
		file, err := filepath.Abs(filepath.Join(parquetDir(dir), t+".parquet"))
		if err != nil {
			return nil, err
		}
		// Raw rows: no FINAL, so every version and tombstone goes to DuckDB.
		if err := e.Exec(ctx, fmt.Sprintf("INSERT INTO FUNCTION file('%s', 'Parquet') SELECT * FROM %s SETTINGS engine_file_truncate_on_insert = 1", file, t)); err != nil {
			return nil, fmt.Errorf("export %s: %w", t, err)
		}
	}
	if err := e.Close(); err != nil {
		return nil, err
	}
	os.Remove(duckFile(dir))
	db, err := sql.Open("duckdb", duckFile(dir))
	if err != nil {
		return nil, fmt.Errorf("open duckdb: %w", err)
	}
	defer db.Close()
	for t := range floor {
		file := filepath.Join(parquetDir(dir), t+".parquet")
		stmts := []string{
			fmt.Sprintf("CREATE TABLE %s AS SELECT * FROM read_parquet('%s') ORDER BY %s, _version", t, file, key(t)),
			fmt.Sprintf("CREATE TABLE live_%s AS SELECT * FROM (SELECT * FROM %s QUALIFY row_number() OVER (PARTITION BY %s ORDER BY _version DESC) = 1) WHERE NOT _deleted ORDER BY %s", t, t, key(t), key(t)),
		}
		for _, s := range stmts {
			if _, err := db.Exec(s); err != nil {
				return nil, fmt.Errorf("duckdb: %s: %w", s, err)
			}
		}
		var n, live int64
		if err := db.QueryRow("SELECT (SELECT count(*) FROM "+t+"), (SELECT count(*) FROM live_"+t+")").Scan(&n, &live); err != nil {
			return nil, err
		}
		p.Tables[t] = n
		p.VersionRows += n
		p.LiveRows += live
	}
	in, err := readInterest(db)
	if err != nil {
		return nil, err
	}
	p.Scoped = seed.ScopedGrants(in)
	if err := writeCallers(dir, callersOf(p.Scoped)); err != nil {
		return nil, err
	}
	if _, err := db.Exec("CHECKPOINT"); err != nil {
		return nil, err
	}
	db.Close()
	if fi, err := os.Stat(duckFile(dir)); err == nil {
		p.DuckBytes = fi.Size()
	}
	os.RemoveAll(parquetDir(dir))
	p.Seconds = time.Since(start).Seconds()
	return p, nil
}

func collect(ctx context.Context, e executor.Executor, sql string) (*executor.Result, error) {
	rows, err := e.Run(ctx, &compiler.Query{SQL: sql})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", strings.SplitN(sql, "\n", 2)[0], err)
	}
	return executor.Collect(rows)
}
