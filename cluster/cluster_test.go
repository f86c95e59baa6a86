package cluster_test

import (
	"strings"
	"testing"

	"github.com/graphwire/graphwire/cluster"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/ontology"
)

// TestStatements: every graph table of the single-server DDL becomes a local table of the same
// columns and a Distributed table of the compiler's name over it, with a sharding key of
// columns every version shares; the view reads and writes local tables.
func TestStatements(t *testing.T) {
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		t.Fatal(err)
	}
	stmts, err := cluster.Statements(ont, "gw")
	if err != nil {
		t.Fatal(err)
	}
	single := ont.DDLStatements()
	tables := cluster.Tables(ont)
	if got, want := len(stmts), len(single)+len(tables); got != want {
		t.Fatalf("%d statements, want %d (%d local + view, %d Distributed)", got, want, len(single), len(tables))
	}
	for i, s := range single {
		local := stmts[i]
		head, rest, _ := strings.Cut(s, "\n")
		lhead, lrest, _ := strings.Cut(local, "\n")
		if strings.HasPrefix(head, "CREATE TABLE") {
			if lhead != head+cluster.LocalSuffix || lrest != rest {
				t.Errorf("local statement %d:\n%s\nwant the single-server one under %s%s", i, local, head, cluster.LocalSuffix)
			}
			continue
		}
		want := "CREATE MATERIALIZED VIEW IF NOT EXISTS gl_edge_by_target_mv TO gl_edge_by_target_local AS"
		if lhead != want || !strings.HasSuffix(lrest, "FROM gl_edge_local") {
			t.Errorf("view:\n%s\nwant %s … FROM gl_edge_local", local, want)
		}
	}
	for i, tb := range tables {
		got := stmts[len(single)+i]
		want := "CREATE TABLE IF NOT EXISTS " + tb.Name + " AS " + tb.Local() + " ENGINE = Distributed(gw, currentDatabase(), " + tb.Local() + ", " + tb.Key + ")"
		if got != want {
			t.Errorf("Distributed statement %d:\n%s\nwant\n%s", i, got, want)
		}
		switch {
		case tb.Name == ont.EdgeTable || tb.Name == ont.EdgeTableByTarget:
			if tb.Key != "cityHash64(source_id)" {
				t.Errorf("%s sharded by %s: both edge tables go by source, as the view puts them", tb.Name, tb.Key)
			}
		case tb.Name == ontology.LoadStateTable:
		case tb.Key != "cityHash64(id)":
			t.Errorf("%s sharded by %s, want cityHash64(id)", tb.Name, tb.Key)
		}
	}
	if _, err := cluster.Statements(ont, "gw; DROP"); err == nil {
		t.Error("a cluster name that is not an identifier was accepted")
	}
}
