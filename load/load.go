package load

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/loadstate"
	"github.com/graphwire/graphwire/ontology"
)

// Engine is what a load needs: statements, inserts, and reads.
type Engine interface {
	executor.Runner
	executor.Loader
}

// Scope names the part of the graph a load replaces: with [Options.Replace] set, every live
// node of a loaded entity type whose traversal_path, project_id and branch (name, for Branch)
// match, and every live edge of a loaded relationship type leaving such a node, that the load
// does not contain is tombstoned. graphwire index uses it so that deleted files and
// definitions disappear.
//
// Files, when not nil, narrows the replace to the rows of those files: of the types with a
// file path (File by its path, any other by its file_path), only nodes of the listed files
// are replaced, also when the load holds no row of their type, and every live edge leaving
// such a node that the load does not contain is tombstoned, whatever its type; types
// without a file path (Directory, Branch) are replaced as a whole when the load holds them
// and left alone otherwise. graphwire index uses it to rewrite only the files whose rows
// changed.
type Scope struct {
	TraversalPath string
	ProjectID     int64
	Branch        string
	Files         []string
}

// Options configures [Load]. The zero value refuses any invalid row.
type Options struct {
	// SkipInvalid loads the valid rows and reports every invalid one in [Report.Skipped]
	// instead of refusing the whole load.
	SkipInvalid bool
	// MaxIssues caps the issues a refused load returns and a report keeps. Default 1000.
	MaxIssues int
	// Replace, when set, tombstones what the load leaves out of that scope (see [Scope]).
	Replace *Scope
	// Source names the writer in the load record (package loadstate). Default "load".
	Source string
	// Progress, when set, is called when the load starts, after each file is staged and
	// checked, and once more when the load has committed and been verified ([Progress.Done]),
	// from the goroutine that called [Load]. The CLI draws it on a terminal only.
	Progress func(Progress)
	// Checkpoint, when set, is called with the name of each step as the load reaches it
	// ("staged FILE", "validated", "manifest", "attach TABLE", "complete"); crash tests stop
	// the process there.
	Checkpoint func(step string)
	// Shards, when set, makes the load write through a sharded cluster (package cluster,
	// docs/cluster.md): the staging and the checks run on the server the engine talks to, as
	// on a single server, and the commit sends each delta to every shard before attaching it
	// there.
	Shards Shards
	// Logger receives diagnostics. Nil discards them.
	Logger *slog.Logger
	// Exclusive, when set, is locked while the deltas attach to the graph tables and the load
	// record completes, and unlocked right after. The attaches are one statement per graph
	// table, so a reader that runs between two of them sees part of the load; a server that
	// owns the engine (package ingest) makes its queries hold the read side of the same lock,
	// so that each of them sees the graph before the load or after it, never between.
	Exclusive sync.Locker
}

// Shards is how a load writes to a graph sharded over a cluster, whose graph tables are
// Distributed tables over a local table on every shard.
type Shards interface {
	// Local names the local table under a graph table; the load's deltas are made like it.
	Local(table string) string
	// Attach writes the rows of delta, a table on the engine's server, into table's local
	// table on every shard, each row to the shard the table's sharding key chooses, by the
	// same means as a single server (ATTACH PARTITION … FROM a copy on that shard). Run again
	// after a failure it writes the same rows again, which collapse on a FINAL read.
	Attach(ctx context.Context, table, delta string) error
	// Drop drops, on every shard, the tables whose names start with prefix.
	Drop(ctx context.Context, prefix string) error
}

// shape is the table a delta of table is created like.
func (o Options) shape(table string) string {
	if o.Shards != nil {
		return o.Shards.Local(table)
	}
	return table
}

func (o Options) withDefaults() Options {
	if o.MaxIssues <= 0 {
		o.MaxIssues = 1000
	}
	if o.Source == "" {
		o.Source = "load"
	}
	if o.Checkpoint == nil {
		o.Checkpoint = func(string) {}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// FileReport is what one input file gave.
type FileReport struct {
	Path    string
	Type    string
	Format  Format
	Rows    int64 // rows the engine read
	Invalid int64 // rows refused or skipped
	// Unreachable, of an exported relationship: its live edges left out because an end is
	// not a live node (deleted after the edge was written, which a load allows; for a
	// same_namespace type, not live under the edge's path). No query shows such an edge,
	// and a load would refuse it as dangling.
	Unreachable int64
}

// Report is what [Load] did. RowsIn = Valid + Invalid; of the valid rows, Written were
// written (upserts and tombstones; Deleted of them are the files' tombstones that delete a
// key) and Unchanged were not, being already in the graph exactly so, tombstones of rows
// that are not live, repeats of a key within the load, or rows a later row of the same key
// in the load outdates; Tombstoned counts the rows [Options.Replace] removed. Live is the number of distinct live
// keys the load holds and Queryable how many of them a FINAL read finds after the load.
// A row that would lose to a higher _version already in the graph refuses the load
// ([*ShadowError]); with [Options.SkipInvalid] it is counted in Shadowed instead (and in
// neither Written nor Unchanged), and a FINAL read keeps showing the stored row.
type Report struct {
	Files                  []FileReport
	Version                uint64
	RowsIn, Valid, Invalid int64
	Unchanged, Written     int64
	// Deleted, of Written: the keys the files' tombstones delete, once each. A key counts when
	// the graph held it live before the load and the row that wins it in the load is a
	// tombstone that no higher _version in the graph outdates; a tombstone outdated by a later
	// or higher-version live row of the load, or of a key not live, counts nothing.
	Deleted                     int64
	Tombstoned                  int64
	Shadowed                    int64 // with SkipInvalid: rows that lost to a higher _version in the graph
	Live, Queryable             int64
	Skipped                     []Issue // with SkipInvalid: the first MaxIssues skipped rows
	Staged, Committed, Verified time.Duration

	// Recovered lists the earlier loads, killed after writing their manifest, that this
	// load finished first; their rows are not counted above.
	Recovered []Recovered
	// Merged is what the writer merged after the load ([Merge]; package ingest fills it),
	// and Merging how long that took.
	Merged  []MergedTable
	Merging time.Duration
}

// Load validates files against ont and writes them to the graph e holds.
//
// Every file is read by the engine's own format reader (the file table function) into a
// staging table, checked there, and turned into delta tables shaped like the graph tables.
// Only when all of that has succeeded are the deltas attached to the graph tables (ALTER TABLE
// … ATTACH PARTITION … FROM, a metadata operation), inside a load record (package loadstate).
// Until then the graph is untouched; a refused, failed or killed load leaves it as it was.
// A load killed while attaching leaves a manifest, and the next Load (or [Recover]) finishes it.
func Load(ctx context.Context, e Engine, ont *ontology.Ontology, srcs []Source, opts Options) (Report, error) {
	opts = opts.withDefaults()
	start := time.Now()
	e = withTrace(ctx, e, opts.Logger)
	var rep Report
	if len(srcs) == 0 {
		return rep, errors.New("load: no input files")
	}
	if opts.Replace != nil && !compiler.ValidPath(opts.Replace.TraversalPath) {
		return rep, fmt.Errorf("load: replace scope %q: %w", opts.Replace.TraversalPath, ErrPath)
	}
	var ts []*target
	for _, s := range srcs {
		t, err := resolve(ont, s)
		if err != nil {
			var is Issue
			if errors.As(err, &is) {
				return rep, &ValidationError{Issues: []Issue{is}, Count: 1}
			}
			return rep, err
		}
		ts = append(ts, t)
	}
	unlink, err := literalPaths(ts)
	defer unlink()
	if err != nil {
		return rep, err
	}
	// Nodes before edges: edge endpoints are checked against the nodes of the load.
	slices.SortStableFunc(ts, func(a, b *target) int { return cmp.Compare(btoi(a.entity == nil), btoi(b.entity == nil)) })
	if err := createSchema(ctx, e, ont); err != nil {
		return rep, err
	}
	rec, err := recoverLoads(ctx, e, ont, opts)
	rep.Recovered = rec
	if err != nil {
		return rep, err
	}
	prefix, err := newStagePrefix()
	if err != nil {
		return rep, fmt.Errorf("load: %w", err)
	}
	st := &stage{e: e, ont: ont, opts: opts, prefix: prefix, deltas: map[string]bool{}, empty: map[string]bool{}}
	committed := false
	defer func() {
		if !committed {
			// A context already cancelled would refuse the clean-up; the next load drops
			// what is left.
			st.drop(context.WithoutCancel(ctx))
		}
	}()
	if rep.Version, err = loadVersion(ctx, e, ont); err != nil {
		return rep, err
	}
	if err := st.params(ctx, rep.Version); err != nil {
		return rep, err
	}
	prog := Progress{TotalFiles: len(ts)}
	for _, t := range ts {
		prog.TotalBytes += t.size
	}
	report := func() {
		if opts.Progress != nil {
			prog.Elapsed = time.Since(start)
			opts.Progress(prog)
		}
	}
	report()
	var issues []Issue
	var invalid int64
	for i, t := range ts {
		fr, is, err := st.file(ctx, i, t)
		if err != nil {
			return rep, err
		}
		rep.Files = append(rep.Files, fr)
		rep.RowsIn += fr.Rows
		invalid += fr.Invalid
		issues = append(issues, is...)
		prog.Files++
		prog.Rows += fr.Rows
		prog.Bytes += t.size
		report()
		opts.Checkpoint("staged " + t.src.Path)
	}
	// The files are sorted as staged, so each report's index is its file's index in ts.
	perFile, dangling, err := st.danglingIssues(ctx, ts)
	if err != nil {
		return rep, err
	}
	for f, n := range perFile {
		rep.Files[f].Invalid += n
		invalid += n
	}
	if len(dangling) > 0 {
		issues = append(issues, dangling...)
		sortIssues(ts, issues)
	}
	rep.Invalid = invalid
	rep.Valid = rep.RowsIn - invalid
	if len(issues) > opts.MaxIssues {
		issues = issues[:opts.MaxIssues]
	}
	if invalid > 0 && !opts.SkipInvalid {
		return rep, &ValidationError{Issues: issues, Count: invalid}
	}
	rep.Skipped = issues
	if err := st.settle(ctx); err != nil {
		return rep, err
	}
	if rep.Deleted, err = st.deletions(ctx); err != nil {
		return rep, err
	}
	if opts.Replace != nil {
		n, err := st.replace(ctx, ts)
		if err != nil {
			return rep, err
		}
		rep.Tombstoned = n
	}
	if err := st.finishEdges(ctx); err != nil {
		return rep, err
	}
	opts.Checkpoint("validated")
	written, nodes, edges, err := st.counts(ctx)
	if err != nil {
		return rep, err
	}
	shadow, err := st.shadowed(ctx)
	if err != nil {
		return rep, err
	}
	if shadow != nil {
		if !opts.SkipInvalid {
			return rep, shadow
		}
		// Written, they lose: they are counted as shadowed, not as written or unchanged.
		rep.Shadowed = shadow.Count
	}
	rep.Written = written - rep.Tombstoned - rep.Shadowed
	rep.Unchanged = rep.Valid - rep.Written - rep.Shadowed
	rep.Staged = time.Since(start)
	if err := st.writeManifest(ctx); err != nil {
		return rep, err
	}
	// From the manifest on, the load is finished, by this call or by the next load's
	// recovery: its staging is never dropped unfinished (that would leave the tables
	// attached so far with this load's rows and the others without), and a caller that
	// goes away mid-commit (a WriteService client disconnecting) does not stop it.
	committed = true
	opts.Checkpoint("manifest")
	cstart := time.Now()
	if err := commit(context.WithoutCancel(ctx), e, ont, opts, st.prefix, loadstate.Totals{Version: rep.Version, Nodes: uint64(nodes), Edges: uint64(edges)}, false); err != nil {
		return rep, err
	}
	rep.Committed = time.Since(cstart)
	vstart := time.Now()
	rep.Live, rep.Queryable, err = st.verify(ctx)
	rep.Verified = time.Since(vstart)
	st.drop(context.WithoutCancel(ctx))
	if err != nil {
		return rep, err
	}
	prog.Done = true
	report()
	return rep, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// stagePrefix starts the name of every staging table; a load's tables share
// stagePrefix + token + "_".
const stagePrefix = "gw_stage_"

// newStagePrefix returns the prefix of a new load's or export's staging tables.
func newStagePrefix() (string, error) {
	tok := make([]byte, 6)
	if _, err := rand.Read(tok); err != nil {
		return "", err
	}
	return stagePrefix + hex.EncodeToString(tok) + "_", nil
}

// schemaTables names every table and view [ontology.Ontology.DDLStatements] creates.
func schemaTables(ont *ontology.Ontology) []string {
	var names []string
	for _, ent := range ont.Entities {
		names = append(names, ent.Table)
	}
	return append(names, ont.EdgeTable, ont.EdgeTableByTarget, ont.EdgeTableByTarget+"_mv", ontology.LoadStateTable)
}

// tables returns those of names that exist in the current database and, when rows is set,
// hold rows (or do not tell how many: an engine without a row count).
func tables(ctx context.Context, e Engine, names []string, rows bool) (map[string]bool, error) {
	sql := "SELECT name FROM system.tables WHERE database = currentDatabase() AND has({p0:Array(String)}, name)"
	if rows {
		sql += " AND (total_rows IS NULL OR total_rows > 0)"
	}
	res, err := collect(ctx, e, &compiler.Query{SQL: sql, Params: []compiler.Param{{Name: "p0", Type: "Array(String)", Value: names}}})
	if err != nil {
		return nil, err
	}
	found := map[string]bool{}
	for _, r := range res.Rows {
		n, _ := r[0].(string)
		found[n] = true
	}
	return found, nil
}

// createSchema creates the graph tables, the view and the load record table when any of them
// is missing. Every load after the first finds them all and runs no CREATE statement.
func createSchema(ctx context.Context, e Engine, ont *ontology.Ontology) error {
	names := schemaTables(ont)
	found, err := tables(ctx, e, names, false)
	if err != nil {
		return fmt.Errorf("load: create schema: %w", err)
	}
	// A graph created before ontology version 3 gets the edge property columns.
	if err := loadstate.MigrateEdges(ctx, e, ont); err != nil {
		return fmt.Errorf("load: %w", err)
	}
	if len(found) == len(names) {
		return nil
	}
	for _, stmt := range ont.DDLStatements() {
		if err := e.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("load: create schema: %w", err)
		}
	}
	return nil
}

func collect(ctx context.Context, r executor.Runner, q *compiler.Query) (*executor.Result, error) {
	rows, err := r.Run(ctx, q)
	if err != nil {
		return nil, err
	}
	return executor.Collect(rows)
}

// count runs a query of one UInt64 or Int64 cell.
func count(ctx context.Context, r executor.Runner, sql string) (int64, error) {
	res, err := collect(ctx, r, &compiler.Query{SQL: sql})
	if err != nil {
		return 0, err
	}
	n, err := unsigned(res, "count")
	return int64(n), err
}

func unsigned(res *executor.Result, what string) (uint64, error) {
	if len(res.Rows) != 1 || len(res.Rows[0]) != 1 {
		return 0, fmt.Errorf("load: %s: unexpected result %v", what, res.Rows)
	}
	switch v := res.Rows[0][0].(type) {
	case int64:
		return uint64(max(v, 0)), nil
	case uint64:
		return v, nil
	case nil:
		return 0, nil
	}
	return 0, fmt.Errorf("load: %s: unexpected value %v", what, res.Rows[0][0])
}

// Progress is how far a load has come, as [Options.Progress] receives it. The rows of a
// file are known once it is read; bytes are the only total known from the start.
type Progress struct {
	Files, TotalFiles int   // input files staged and checked, of all
	Rows              int64 // rows read so far
	Bytes, TotalBytes int64 // input bytes of the files staged, of all
	Elapsed           time.Duration
	Done              bool // committed and verified: the last call
}

// RowsPerSecond is the rate of the rows read so far.
func (p Progress) RowsPerSecond() float64 { return float64(p.Rows) / max(p.Elapsed.Seconds(), 1e-9) }

// ETA estimates the time left by the share of input bytes done; 0 before the first file and
// when done.
func (p Progress) ETA() time.Duration {
	if p.Bytes == 0 || p.Done {
		return 0
	}
	return time.Duration(float64(p.Elapsed) * float64(p.TotalBytes-p.Bytes) / float64(p.Bytes))
}
