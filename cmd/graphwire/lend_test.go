package main

import (
	"testing"

	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/ingest"
	"github.com/graphwire/graphwire/ontology"
)

// TestGatedEngineLends: serve's engine, gated by its writer, lends a second connection of an
// idle embedded engine (executor.Lender), so that the pipeline's lookups of several kinds
// (lookupSplitKinds) may run in two halves; without the forwarding serve never splits.
func TestGatedEngineLends(t *testing.T) {
	requireCHDB(t)
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		t.Fatal(err)
	}
	e, err := chdb.Open(chdb.Options{Library: chdb.DefaultLibrary(), Path: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var g executor.Runner = gatedEngine{e, ingest.NewWriter(e, ont, ingest.Options{}).Reader(e)}
	l, ok := g.(executor.Lender)
	if !ok {
		t.Fatal("serve's gated engine is not an executor.Lender")
	}
	_, release, ok := l.Lend()
	if !ok {
		t.Fatal("serve's gated engine lent no connection of an idle embedded engine")
	}
	release()
	if lookupSplitKinds <= 0 {
		t.Errorf("lookupSplitKinds %d: serve never splits a lookup", lookupSplitKinds)
	}
}
