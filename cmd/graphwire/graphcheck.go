package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/loadstate"
	"github.com/graphwire/graphwire/ontology"
)

// openGraph opens the selected engine for reading, like open, and then checks that it holds a
// completely loaded graph (package loadstate), so that query and serve refuse a missing or
// half-written graph with an error that says what to do instead of answering from it. ont is
// the ontology the command already loaded (parsing it takes tens of milliseconds).
func (f *engineFlags) openGraph(ctx context.Context, ont *ontology.Ontology, stderr io.Writer) (engine, error) {
	eng, err := f.open(stderr)
	if err != nil {
		return nil, err
	}
	if err := f.checkGraph(ctx, eng, ont); err != nil {
		eng.Close()
		return nil, err
	}
	return eng, nil
}

// checkGraph turns loadstate.Check's verdict into the message a user acts on.
func (f *engineFlags) checkGraph(ctx context.Context, eng executor.Runner, ont *ontology.Ontology) error {
	_, err := loadstate.Check(ctx, eng, ont)
	switch {
	case errors.Is(err, loadstate.ErrNoGraph):
		return f.errNoGraph()
	case errors.Is(err, loadstate.ErrIncomplete):
		return &classError{code: exitUnavailable, err: err,
			msg: fmt.Sprintf("the graph %s is incomplete (a seed or load did not finish): run it again", f.graphLocation())}
	}
	return err
}

// errNoGraph says that there is no graph where the flags point, and how to make one.
func (f *engineFlags) errNoGraph() error {
	return &classError{code: exitNotFound, err: loadstate.ErrNoGraph,
		msg: fmt.Sprintf("no graph %s: run `graphwire seed` or `graphwire load`", f.graphLocation())}
}

// graphLocation says where the graph lives: "at DIR" for the embedded engine, and for a server
// the database (never the DSN, which may hold a password).
func (f *engineFlags) graphLocation() string {
	if f.clickhouse == "" {
		return "at " + f.dataDir()
	}
	db := "default"
	if o, err := ch.ParseDSN(f.clickhouse); err == nil && o.Auth.Database != "" {
		db = o.Auth.Database
	}
	return fmt.Sprintf("in ClickHouse database %q", db)
}

// hasData reports whether dir exists and has any entry. Readers open the embedded engine only
// then, so that a mistyped --embedded is reported, not created.
func hasData(dir string) (bool, error) {
	d, err := os.Open(dir)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("open data directory: %w", err)
	}
	defer d.Close()
	names, err := d.Readdirnames(1)
	if len(names) > 0 {
		return true, nil
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return false, fmt.Errorf("read data directory: %w", err)
	}
	return false, nil
}
