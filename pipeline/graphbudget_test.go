package pipeline

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/config"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/internal/tokens"
	"github.com/graphwire/graphwire/ontology"
	"github.com/graphwire/graphwire/seed"
)

// seededPipeline returns a pipeline over a small seeded embedded engine.
// It skips without libchdb locally and fails under CI=true.
func seededPipeline(t *testing.T) *Pipeline {
	t.Helper()
	lib := os.Getenv("GRAPHWIRE_CHDB_LIB")
	if lib == "" {
		home, _ := os.UserHomeDir()
		lib = chdb.CachedLibrary(filepath.Join(home, ".cache", "graphwire"))
	}
	if _, err := os.Stat(lib); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and libchdb.so is not at %s: %v", lib, err)
		}
		t.Skipf("libchdb.so not found at %s (run bash scripts/install-chdb.sh): %v", lib, err)
	}
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		t.Fatal(err)
	}
	comp, err := compiler.New(ont, compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := chdb.Open(chdb.Options{Library: lib, Path: t.TempDir(), PoolSize: 1})
	if err != nil {
		t.Fatalf("open chdb: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	opts := seed.Options{Scale: 0.05, Seed: 42}
	g, err := seed.Generate(ont, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := seed.Load(t.Context(), e, ont, g, opts); err != nil {
		t.Fatal(err)
	}
	p, err := New(e, Options{Compiler: comp, Ontology: ont, DSLSchema: config.GraphQuerySchema(), DSLVersion: config.QueryDSLVersion()})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGraphBudgetOneBase: a budgeted gcf-graph answer is measured against
// the budget as a trial and then rendered again to commit the caller's
// state; both renders must use the same delta base. Here the client's
// base expires between the two (the store's clock jumps past the TTL after
// the first lookup of the request): the trial is a delta that fits the
// budget. Before, the commit looked the base up again, found it gone and
// sent the full graph, over the budget, with a token count over
// max_tokens.
func TestGraphBudgetOneBase(t *testing.T) {
	p := seededPipeline(t)
	start := time.Now()
	var lookups int
	p.graphs.now = func() time.Time { return start }
	claims := &auth.Claims{UserID: 1, Admin: true}
	q1 := []byte(`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1,2,3,4,5,6]},{"id":"g","entity":"Group"}],"relationships":[{"type":"MEMBER_OF","from":"u","to":"g"}]}`)
	q2 := []byte(`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1,2,3,4,5,6,7]},{"id":"g","entity":"Group"}],"relationships":[{"type":"MEMBER_OF","from":"u","to":"g"}]}`)
	first, err := p.Run(t.Context(), Request{Query: q1, Claims: claims, Format: formatter.GCFGraph})
	if err != nil {
		t.Fatal(err)
	}
	// The full answer to q2, for another caller (no state): the budget is
	// one token short of it.
	full, err := p.Run(t.Context(), Request{Query: q2, Claims: &auth.Claims{UserID: 2, Admin: true}, Format: formatter.GCFGraph})
	if err != nil {
		t.Fatal(err)
	}
	if full.Outcome != "full" || full.PackRoot == first.PackRoot {
		t.Fatalf("q2 for another caller: outcome %s, root %s (q1's %s); want a full, different graph", full.Outcome, full.PackRoot, first.PackRoot)
	}
	max := full.Tokens - 1

	// From the first lookup on, the snapshot is past its TTL.
	p.graphs.now = func() time.Time {
		lookups++
		if lookups == 1 {
			return start
		}
		return start.Add(2 * p.opts.GraphSnapshotTTL)
	}
	a, err := p.Run(t.Context(), Request{Query: q2, Claims: claims, Format: formatter.GCFGraph, PackRoot: first.PackRoot, MaxTokens: max})
	if err != nil {
		t.Fatal(err)
	}
	n, err := tokens.New().Count(tokens.O200k, string(a.Text))
	if err != nil {
		t.Fatal(err)
	}
	if n > max || a.Tokens != n {
		t.Errorf("answer of %d tokens (reported %d), outcome %s; max_tokens %d", n, a.Tokens, a.Outcome, max)
	}
	if a.Outcome != "delta" {
		t.Errorf("outcome %s, want the delta the budget was measured on", a.Outcome)
	}
}
