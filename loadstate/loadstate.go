package loadstate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/ontology"
)

// Errors of [Check]. Both are wrapped with what was found.
var (
	// ErrNoGraph means the database holds neither a graph table nor a load record.
	ErrNoGraph = errors.New("no graph")
	// ErrIncomplete means graph tables or load records exist but the newest load did not
	// finish, or a graph table is missing.
	ErrIncomplete = errors.New("graph load incomplete")
)

// codeUnknownDatabase is ClickHouse's UNKNOWN_DATABASE.
const codeUnknownDatabase = 81

// Status is the state a load record gives.
type Status string

// The two statuses, in the order a load writes them.
const (
	StatusLoading  Status = "loading"
	StatusComplete Status = "complete"
)

// Writer is what [Begin] needs of an engine: reads and inserts.
type Writer interface {
	executor.Runner
	executor.Loader
}

// State is one load record.
type State struct {
	Seq                 uint64 // the load's number: 1, 2, … in the order loads began
	Status              Status
	Source              string // what wrote the graph, for example "seed"
	OntologyFingerprint string // the ontology the graph was written with
	Version             uint64 // the _version of the rows written; 0 while loading
	Nodes, Edges        uint64 // rows written; 0 while loading
}

// Totals are what a finished load reports to [Load.Complete].
type Totals struct {
	Version      uint64
	Nodes, Edges uint64
}

// Load is a load in progress, from [Begin] to [Load.Complete]. It is not safe for concurrent
// use, and two loads must not run on one database at once.
type Load struct {
	w     Writer
	state State
}

var columns = []string{"seq", "status", "source", "ontology_fingerprint", "version", "nodes", "edges"}

// Begin records that a load by source starts, before it writes any graph row. The schema must
// exist (run [ontology.Ontology.DDLStatements] first). From now until [Load.Complete], [Check]
// reports [ErrIncomplete].
func Begin(ctx context.Context, w Writer, ont *ontology.Ontology, source string) (*Load, error) {
	res, err := collect(ctx, w, "SELECT max(seq) FROM "+ontology.LoadStateTable)
	if err != nil {
		return nil, fmt.Errorf("begin load: %w", err)
	}
	if len(res.Rows) != 1 || len(res.Rows[0]) != 1 {
		return nil, fmt.Errorf("begin load: read seq: unexpected result %v", res.Rows)
	}
	last, err := unsigned(res.Rows[0][0])
	if err != nil {
		return nil, fmt.Errorf("begin load: read seq: %w", err)
	}
	l := &Load{w: w, state: State{Seq: last + 1, Status: StatusLoading, Source: source, OntologyFingerprint: ont.Fingerprint}}
	if err := l.write(ctx); err != nil {
		return nil, fmt.Errorf("begin load: %w", err)
	}
	return l, nil
}

// Complete records that the load has written its last row; [Check] passes from now on.
func (l *Load) Complete(ctx context.Context, t Totals) error {
	l.state.Status, l.state.Version, l.state.Nodes, l.state.Edges = StatusComplete, t.Version, t.Nodes, t.Edges
	if err := l.write(ctx); err != nil {
		return fmt.Errorf("complete load %d: %w", l.state.Seq, err)
	}
	return nil
}

func (l *Load) write(ctx context.Context) error {
	s := l.state
	row := []any{s.Seq, string(s.Status), s.Source, s.OntologyFingerprint, s.Version, s.Nodes, s.Edges}
	return l.w.Insert(ctx, ontology.LoadStateTable, columns, [][]any{row})
}

// Check returns the newest load record of the database r reads, and an error unless that load
// finished and every graph table of ont exists. The error matches [ErrNoGraph] when the database
// is missing or has no graph table and no load record, [ErrIncomplete] when it has something but
// not a complete graph, and otherwise is an engine error.
func Check(ctx context.Context, r executor.Runner, ont *ontology.Ontology) (State, error) {
	want := graphTables(ont)
	res, err := run(ctx, r, &compiler.Query{
		SQL:    "SELECT name FROM system.tables WHERE database = currentDatabase() AND name IN {p0:Array(String)} ORDER BY name",
		Params: []compiler.Param{{Name: "p0", Type: "Array(String)", Value: append(slices.Clone(want), ontology.LoadStateTable)}},
	})
	var ee *executor.Error
	if errors.As(err, &ee) && ee.Code == codeUnknownDatabase { // on a server, nothing created it
		return State{}, fmt.Errorf("%w: %w", ErrNoGraph, err)
	}
	if err != nil {
		return State{}, fmt.Errorf("check graph: list tables: %w", err)
	}
	have := map[string]bool{}
	for _, row := range res.Rows {
		name, _ := row[0].(string)
		have[name] = true
	}
	if len(have) == 0 {
		return State{}, fmt.Errorf("%w: no graph table and no load record", ErrNoGraph)
	}
	if !have[ontology.LoadStateTable] {
		return State{}, fmt.Errorf("%w: graph tables without a load record", ErrIncomplete)
	}
	st, found, err := newest(ctx, r)
	switch {
	case err != nil:
		return State{}, fmt.Errorf("check graph: %w", err)
	case !found:
		return State{}, fmt.Errorf("%w: no load record", ErrIncomplete)
	case st.Status != StatusComplete:
		return st, fmt.Errorf("%w: load %d (%s) began but did not finish", ErrIncomplete, st.Seq, st.Source)
	}
	for _, t := range want {
		if !have[t] {
			return st, fmt.Errorf("%w: table %s is missing", ErrIncomplete, t)
		}
	}
	return st, nil
}

// newest reads the newest load record: the highest seq, and of its rows "complete" before
// "loading" (the enum orders by its codes, loading = 1 < complete = 2).
func newest(ctx context.Context, r executor.Runner) (State, bool, error) {
	res, err := collect(ctx, r, "SELECT seq, status, source, ontology_fingerprint, version, nodes, edges FROM "+
		ontology.LoadStateTable+" ORDER BY seq DESC, status DESC LIMIT 1")
	if err != nil {
		return State{}, false, fmt.Errorf("read load record: %w", err)
	}
	if len(res.Rows) == 0 {
		return State{}, false, nil
	}
	row := res.Rows[0]
	status, _ := row[1].(string)
	source, _ := row[2].(string)
	fingerprint, _ := row[3].(string)
	st := State{Status: Status(status), Source: source, OntologyFingerprint: fingerprint}
	for _, c := range []struct {
		col int
		dst *uint64
	}{{0, &st.Seq}, {4, &st.Version}, {5, &st.Nodes}, {6, &st.Edges}} {
		n, err := unsigned(row[c.col])
		if err != nil {
			return State{}, false, fmt.Errorf("read load record: column %s: %w", columns[c.col], err)
		}
		*c.dst = n
	}
	return st, true, nil
}

// graphTables lists the tables a complete graph has: every entity table and both edge tables.
func graphTables(ont *ontology.Ontology) []string {
	var ts []string
	for _, e := range ont.Entities {
		ts = append(ts, e.Table)
	}
	ts = append(ts, ont.EdgeTable, ont.EdgeTableByTarget)
	slices.Sort(ts)
	return ts
}

func collect(ctx context.Context, r executor.Runner, sql string) (*executor.Result, error) {
	return run(ctx, r, &compiler.Query{SQL: sql})
}

func run(ctx context.Context, r executor.Runner, q *compiler.Query) (*executor.Result, error) {
	rows, err := r.Run(ctx, q)
	if err != nil {
		return nil, err
	}
	return executor.Collect(rows)
}

// unsigned reads a UInt64 cell of the executor value model.
func unsigned(v any) (uint64, error) {
	switch n := v.(type) {
	case int64:
		if n >= 0 {
			return uint64(n), nil
		}
	case uint64:
		return n, nil
	}
	return 0, fmt.Errorf("not an unsigned integer: %v", v)
}

// HighestVersion returns the greatest _version in the graph's entity and edge tables, and the
// table holding it (the first by name among equals); 0 and "" when they hold no row. The
// tables must exist. graphwire load puts its rows one version above it, and seed two.
func HighestVersion(ctx context.Context, r executor.Runner, ont *ontology.Ontology) (uint64, string, error) {
	var parts []string
	for _, e := range ont.Entities {
		parts = append(parts, "SELECT max(_version) AS v, '"+e.Table+"' AS t, count() AS n FROM "+e.Table)
	}
	parts = append(parts, "SELECT max(_version) AS v, '"+ont.EdgeTable+"' AS t, count() AS n FROM "+ont.EdgeTable)
	res, err := collect(ctx, r, "SELECT v, t FROM ("+strings.Join(parts, " UNION ALL ")+") WHERE n > 0 ORDER BY v DESC, t LIMIT 1")
	if err != nil {
		return 0, "", fmt.Errorf("read versions: %w", err)
	}
	if len(res.Rows) == 0 {
		return 0, "", nil
	}
	if len(res.Rows) != 1 || len(res.Rows[0]) != 2 {
		return 0, "", fmt.Errorf("read versions: unexpected result %v", res.Rows)
	}
	v, err := unsigned(res.Rows[0][0])
	if err != nil {
		return 0, "", fmt.Errorf("read versions: %w", err)
	}
	t, _ := res.Rows[0][1].(string)
	return v, t, nil
}
