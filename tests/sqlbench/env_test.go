package sqlbench_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/graphwire/graphwire/compiler"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/ontology"
	"github.com/graphwire/graphwire/seed"
)

// defaultSeedScale is the graph of make test (about 14 300 nodes and 46 100 edges from
// seed.Generate at seed 42, before the churn); make bench-sql sets
// GRAPHWIRE_SEED_SCALE=10.
const defaultSeedScale = 1

// seedScale is GRAPHWIRE_SEED_SCALE, else defaultSeedScale.
func seedScale() (float64, error) {
	s := os.Getenv("GRAPHWIRE_SEED_SCALE")
	if s == "" {
		return defaultSeedScale, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 {
		return 0, fmt.Errorf("GRAPHWIRE_SEED_SCALE=%q: want a positive number", s)
	}
	return f, nil
}

// env is the engine and compiler shared by every test of the package: chDB allows one data
// path per process, so TestMain opens and seeds it once.
var env struct {
	engine   *chdb.Executor
	compiler *compiler.Compiler
	callers  []caller // the admin and the member fitted to this graph (benchCallers)
	scale    float64
	err      error // why the engine is unavailable
}

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		fmt.Fprintln(os.Stderr, "load ontology:", err)
		return 1
	}
	if env.scale, err = seedScale(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dir, err := os.MkdirTemp("", "graphwire-sqlbench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	env.err = openSeeded(ont, dir)
	if env.engine != nil {
		defer env.engine.Close()
	}
	// The compiler reads the table sizes of the seeded graph, as serve does.
	opts := compiler.Options{}
	if env.err == nil {
		sizes := executor.NewTableSizes(env.engine, time.Hour)
		if err := sizes.Refresh(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		opts.Sizes = sizes
		if env.callers, err = benchCallers(context.Background(), env.engine); err != nil {
			fmt.Fprintln(os.Stderr, "callers:", err)
			return 1
		}
	}
	if env.compiler, err = compiler.New(ont, opts); err != nil {
		fmt.Fprintln(os.Stderr, "new compiler:", err)
		return 1
	}
	return m.Run()
}

// openSeeded opens the engine on dir, loads the seeded graph and then churns it (see churn).
func openSeeded(ont *ontology.Ontology, dir string) error {
	lib := chdb.DefaultLibrary()
	if _, err := os.Stat(lib); err != nil {
		return fmt.Errorf("libchdb.so not found at %s (run bash scripts/install-chdb.sh or set GRAPHWIRE_CHDB_LIB): %w", lib, err)
	}
	// One query connection: the pairs run one statement at a time anyway, and a second
	// connection would only add engine caches to warm. Its statements get the engine's
	// threads per statement for a pool of one (every core), as a local query has them, unless
	// SQLBENCH_MAX_THREADS sets another count for both sides (serve on this machine runs one).
	threads := 0
	if v := os.Getenv("SQLBENCH_MAX_THREADS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("SQLBENCH_MAX_THREADS=%q: want a whole number of at least 1", v)
		}
		threads = n
	}
	e, err := chdb.Open(chdb.Options{Library: lib, Path: dir, PoolSize: 1, MaxThreads: threads})
	if err != nil {
		return fmt.Errorf("open chdb: %w", err)
	}
	env.engine = e
	ctx := context.Background()
	opts := seed.Options{Scale: env.scale, Seed: 42}
	g, err := seed.Generate(ont, opts)
	if err != nil {
		return err
	}
	if _, err := seed.Load(ctx, e, ont, g, opts); err != nil {
		return err
	}
	for _, stmt := range churn {
		if err := e.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("churn %q: %w", stmt, err)
		}
	}
	return nil
}

// churn writes, after the seeded graph, what a change feed leaves unmerged: new versions that
// change filtered columns (an old version must never match), node tombstones whose edges stay
// behind (every walk must skip the node), edge tombstones, and edges written again with a higher
// version (they must not count twice). Rows are picked by id arithmetic, so the same rules hit
// a share of every scale's graph. The filters sit in a sub-query because at the outer level
// ClickHouse resolves the column names to the REPLACE aliases.
var churn = []string{
	// New versions.
	"INSERT INTO gl_merge_request SELECT * REPLACE (_version + 1 AS _version, if(state = 'merged', 'closed', 'merged') AS state, concat(title, ' fix') AS title) FROM (SELECT * FROM gl_merge_request FINAL WHERE _deleted = false AND id % 10 = 3)",
	"INSERT INTO gl_pipeline SELECT * REPLACE (_version + 1 AS _version, if(status = 'failed', 'success', 'failed') AS status) FROM (SELECT * FROM gl_pipeline FINAL WHERE _deleted = false AND id % 10 = 3)",
	"INSERT INTO gl_project SELECT * REPLACE (_version + 1 AS _version, concat(full_path, '-moved') AS full_path) FROM (SELECT * FROM gl_project FINAL WHERE _deleted = false AND id % 10 = 3)",
	// Node tombstones; the edges stay. Subgroups (two path segments) with id % 4 = 3 sit inside
	// group-to-project walks.
	"INSERT INTO gl_group SELECT * REPLACE (_version + 1 AS _version, true AS _deleted) FROM (SELECT * FROM gl_group FINAL WHERE _deleted = false AND id % 4 = 3 AND length(splitByChar('/', traversal_path)) = 3)",
	"INSERT INTO gl_project SELECT * REPLACE (_version + 1 AS _version, true AS _deleted) FROM (SELECT * FROM gl_project FINAL WHERE _deleted = false AND id % 23 = 7)",
	"INSERT INTO gl_merge_request SELECT * REPLACE (_version + 1 AS _version, true AS _deleted) FROM (SELECT * FROM gl_merge_request FINAL WHERE _deleted = false AND id % 17 = 5)",
	"INSERT INTO gl_pipeline SELECT * REPLACE (_version + 1 AS _version, true AS _deleted) FROM (SELECT * FROM gl_pipeline FINAL WHERE _deleted = false AND id % 13 = 1)",
	"INSERT INTO gl_note SELECT * REPLACE (_version + 1 AS _version, true AS _deleted) FROM (SELECT * FROM gl_note FINAL WHERE _deleted = false AND id % 11 = 2)",
	"INSERT INTO gl_user SELECT * REPLACE (_version + 1 AS _version, true AS _deleted) FROM (SELECT * FROM gl_user FINAL WHERE _deleted = false AND id % 19 = 4)",
	// Edge tombstones and edges written again (gl_edge_by_target follows through its view).
	"INSERT INTO gl_edge SELECT * REPLACE (_version + 1 AS _version, true AS _deleted) FROM (SELECT * FROM gl_edge FINAL WHERE _deleted = false AND (source_id * 7 + target_id) % 29 = 11)",
	"INSERT INTO gl_edge SELECT * REPLACE (_version + 1 AS _version) FROM (SELECT * FROM gl_edge FINAL WHERE _deleted = false AND (source_id + target_id) % 31 = 2)",
}

// engine returns the seeded engine; without one the test skips, or fails when CI=true.
func engine(t testing.TB) *chdb.Executor {
	t.Helper()
	if env.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and the embedded engine is unavailable: %v", env.err)
		}
		t.Skipf("embedded engine unavailable: %v", env.err)
	}
	return env.engine
}
