package ingest

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/load"
	"github.com/graphwire/graphwire/ontology"
)

// Batch is one write: files for package load, with the replace scope and, for a code index,
// the digests of the files it rewrites.
type Batch struct {
	// Sources are the files to load, readable by the engine (the writer's local disk).
	Sources []load.Source
	// Source names the writer in the load record: "load" or "index". Default "load".
	Source string
	// SkipInvalid is [load.Options.SkipInvalid].
	SkipInvalid bool
	// Replace is [load.Options.Replace].
	Replace *load.Scope
	// Digests, when not nil, are recorded in the index state of Replace's project and branch
	// after the load: the new digest of each file (or [codeindex.Global]) the batch rewrites,
	// "" for a file that is gone. Requires Replace.
	Digests map[string]string
	// Progress is [load.Options.Progress].
	Progress func(load.Progress)
	// Logger is [load.Options.Logger]; nil discards.
	Logger *slog.Logger
}

// Target is where writes go: a [Writer] in this process, or a server's (graphwire's
// gRPC client in cmd/graphwire).
type Target interface {
	// IndexState returns the digests of the last code index of sc's project and branch, nil
	// when there was none.
	IndexState(ctx context.Context, sc load.Scope) (map[string]string, error)
	// Write applies b and returns the load's report.
	Write(ctx context.Context, b Batch) (load.Report, error)
}

// Options configures a [Writer].
type Options struct {
	// Logger receives one line per write; nil discards.
	Logger *slog.Logger
	// Shards, when set, makes every load write through a sharded cluster
	// ([load.Options.Shards]).
	Shards load.Shards
	// Merge, when set, makes every write end by merging the graph tables it left in several
	// parts ([load.Merge]), while it still holds the write slot: set it for the embedded
	// engine, which merges nothing by itself in a short-lived process. Nil merges nothing (a
	// ClickHouse server merges in the background).
	Merge *load.MergeOptions
}

// Writer applies writes to one engine, one at a time, atomically for the queries that run
// through [Writer.Reader]. It is safe for concurrent use.
type Writer struct {
	e   load.Engine
	ont *ontology.Ontology
	log *slog.Logger
	// shards: the cluster the loads write through (Options.Shards); nil for one engine.
	shards load.Shards
	merge  *load.MergeOptions // nil: no merge after a write
	sem    chan struct{}      // one write at a time
	gate   sync.RWMutex       // readers hold the read side; a load's attach the write side
	// Idle merging (MergeIdle): set when a merge may be due (at start, after every write);
	// the statements running through Reader, and when the last one began or ended.
	pending   atomic.Bool
	running   atomic.Int64
	lastQuery atomic.Int64 // UnixNano
	// gen is the data generation (Generation): bumped when a write starts and when it ends.
	gen atomic.Uint64
	// activity counts the writes and the statements run through Reader that are no
	// [Background] ones ([Writer.Activity]).
	activity atomic.Uint64
}

// Generation reports the data generation of the writer's engine as this process sees it: it
// changes when a write starts and when it ends, and is odd while one runs
// ([executor.EdgeCacheOptions.Generation]). It counts only the writes of this [Writer].
func (w *Writer) Generation() uint64 { return w.gen.Load() }

// NewWriter returns a writer to e, whose graph tables ont describes.
func NewWriter(e load.Engine, ont *ontology.Ontology, opts Options) *Writer {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	w := &Writer{e: e, ont: ont, log: log, shards: opts.Shards, sem: make(chan struct{}, 1)}
	if opts.Merge != nil {
		m := *opts.Merge
		w.merge = &m
		// A graph written before (by an older graphwire, or with merging off) may be in
		// several parts: the first idle moment merges it.
		w.pending.Store(true)
	}
	return w
}

// IndexState implements [Target].
func (w *Writer) IndexState(ctx context.Context, sc load.Scope) (map[string]string, error) {
	if err := w.acquire(ctx); err != nil {
		return nil, err
	}
	defer w.release()
	return readDigests(ctx, w.e, sc)
}

// Write implements [Target]. Writes queue behind each other; a cancelled ctx stops a write
// that waits.
func (w *Writer) Write(ctx context.Context, b Batch) (load.Report, error) {
	if b.Digests != nil && b.Replace == nil {
		return load.Report{}, fmt.Errorf("ingest: digests need a replace scope")
	}
	if err := w.acquire(ctx); err != nil {
		return load.Report{}, err
	}
	defer w.release()
	// The generation is odd from before the first row changes until after the last: an edge
	// set read meanwhile is never kept, nor one used.
	w.gen.Add(1)
	defer w.gen.Add(1)
	defer w.activity.Add(1) // also when it fails: what it did is not known
	opts := load.Options{Source: b.Source, SkipInvalid: b.SkipInvalid, Replace: b.Replace, Progress: b.Progress,
		Logger: b.Logger, Exclusive: &w.gate, Shards: w.shards}
	rep, err := load.Load(ctx, w.e, w.ont, b.Sources, opts)
	if err != nil {
		return rep, err
	}
	if b.Digests != nil {
		if err := writeDigests(ctx, w.e, *b.Replace, b.Digests, rep.Version); err != nil {
			return rep, err
		}
	}
	w.log.Info("write", "source", opts.Source, "files", len(b.Sources), "rows", rep.RowsIn, "written", rep.Written,
		"tombstoned", rep.Tombstoned, "version", rep.Version)
	if w.merge != nil {
		rep.Merged, rep.Merging = w.mergeParts(ctx, *w.merge)
		w.pending.Store(true)
	}
	return rep, nil
}

// MergeIdle merges every graph table in several parts, whatever its size (the parts of a
// large table that the merges after writes left for later, [load.MergeOptions]), when all of
// this holds: the writer merges ([Options.Merge]), a write or the start has happened since
// the last such merge, no statement runs through [Writer.Reader] and none began or ended
// within idle (statements with a [Background] context do not count), and no write runs. It returns what it merged, nil when it did nothing.
//
// The merge holds the write slot, so a write arriving meanwhile waits for it; a query
// arriving meanwhile runs beside it and reads the parts it started with. serve calls it
// periodically.
func (w *Writer) MergeIdle(ctx context.Context, idle time.Duration) []load.MergedTable {
	if w.merge == nil || !w.pending.Load() || !w.idle(idle) {
		return nil
	}
	select {
	case w.sem <- struct{}{}:
	default:
		return nil // a write runs; it sets pending again
	}
	defer w.release()
	if !w.idle(idle) {
		return nil
	}
	w.pending.Store(false)
	done, _ := w.mergeParts(ctx, load.MergeOptions{WholeBytes: math.MaxInt64})
	return done
}

// Activity returns a count that grows with every write and every statement run through
// [Writer.Reader] other than [Background] ones (a health check's), so that a caller can
// tell whether anything used the graph since it last looked: serve's health check leaves
// the engine alone while nothing did (grpcsvc.Options.HealthActivity).
func (w *Writer) Activity() uint64 { return w.activity.Load() }

// backgroundKey marks a context whose statements are no query ([Background]).
type backgroundKey struct{}

// Background returns ctx marked so that the statements run with it through [Writer.Reader]
// do not count as queries for [Writer.MergeIdle]: a health check that polls the graph every
// few seconds would otherwise keep a server that nobody queries from ever being idle.
func Background(ctx context.Context) context.Context {
	return context.WithValue(ctx, backgroundKey{}, true)
}

// idle reports whether no statement runs through Reader and none began or ended within d.
func (w *Writer) idle(d time.Duration) bool {
	return w.running.Load() == 0 && time.Since(time.Unix(0, w.lastQuery.Load())) >= d
}

// mergeParts merges the tables the write left in several parts. The write has committed, so
// a merge that fails is logged and costs only read speed: the rows are all there.
func (w *Writer) mergeParts(ctx context.Context, opts load.MergeOptions) ([]load.MergedTable, time.Duration) {
	start := time.Now()
	done, err := load.Merge(ctx, w.e, w.ont, opts)
	elapsed := time.Since(start)
	for _, m := range done {
		w.log.Info("merge", "table", m.Table, "parts", m.Parts, "parts_after", m.PartsAfter, "rows", m.Rows,
			"bytes", m.Bytes, "elapsed_ms", m.Elapsed.Milliseconds())
	}
	if err != nil {
		w.log.Warn("merge_failed", "err", err)
	}
	return done, elapsed
}

// acquire takes the one write slot, or gives up when ctx ends first.
func (w *Writer) acquire(ctx context.Context) error {
	select {
	case w.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("ingest: wait for the previous write: %w", ctx.Err())
	}
}

func (w *Writer) release() { <-w.sem }

// Reader returns r, whose statements each hold the read side of w's gate from Run until
// their rows are closed: a statement sees the graph before a write's attach or after it.
func (w *Writer) Reader(r executor.Runner) executor.Runner { return gatedRunner{r: r, w: w} }

type gatedRunner struct {
	r executor.Runner
	w *Writer
}

func (g gatedRunner) Run(ctx context.Context, q *compiler.Query) (executor.Rows, error) {
	query := ctx.Value(backgroundKey{}) == nil
	if query {
		g.w.activity.Add(1)
		g.w.running.Add(1)
		g.w.lastQuery.Store(time.Now().UnixNano())
	}
	g.w.gate.RLock()
	done := func() {
		g.w.gate.RUnlock()
		if query {
			g.w.lastQuery.Store(time.Now().UnixNano())
			g.w.running.Add(-1)
		}
	}
	rows, err := g.r.Run(ctx, q)
	if err != nil {
		done()
		return nil, err
	}
	return &gatedRows{Rows: rows, unlock: sync.OnceFunc(done)}, nil
}

// Lend lends a second connection of the runner g gates, when it is an [executor.Lender]
// that lends one now; the lent runner's statements hold the read side of the gate as g's do.
func (g gatedRunner) Lend() (executor.Runner, func(), bool) {
	l, ok := g.r.(executor.Lender)
	if !ok {
		return nil, nil, false
	}
	r, release, ok := l.Lend()
	if !ok {
		return nil, nil, false
	}
	return gatedRunner{r: r, w: g.w}, release, true
}

type gatedRows struct {
	executor.Rows
	unlock func()
}

func (r *gatedRows) Close() error {
	err := r.Rows.Close()
	r.unlock()
	return err
}

// indexState is the table of the digests of each file's rows ([codeindex.Graph.Digests]) at
// the last index of each project and branch; an index reads it to skip the files whose rows
// did not change.
const indexState = "gw_index_files"

func createIndexState(ctx context.Context, e load.Engine) error {
	return e.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+indexState+" (traversal_path String, project_id Int64, branch String, owner String, digest String, version UInt64)"+
		" ENGINE = ReplacingMergeTree(version) ORDER BY (traversal_path, project_id, branch, owner)")
}

// readDigests returns the digests of the last index of sc, nil when there was none.
func readDigests(ctx context.Context, e load.Engine, sc load.Scope) (map[string]string, error) {
	if err := createIndexState(ctx, e); err != nil {
		return nil, fmt.Errorf("index state: %w", err)
	}
	rows, err := e.Run(ctx, &compiler.Query{
		SQL: "SELECT owner, digest FROM " + indexState + " FINAL WHERE traversal_path = {p0:String} AND project_id = {p1:Int64} AND branch = {p2:String}",
		Params: []compiler.Param{{Name: "p0", Type: "String", Value: sc.TraversalPath}, {Name: "p1", Type: "Int64", Value: sc.ProjectID},
			{Name: "p2", Type: "String", Value: sc.Branch}},
	})
	if err != nil {
		return nil, fmt.Errorf("index state: %w", err)
	}
	res, err := executor.Collect(rows)
	if err != nil {
		return nil, fmt.Errorf("index state: %w", err)
	}
	if len(res.Rows) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, r := range res.Rows {
		owner, _ := r[0].(string)
		digest, _ := r[1].(string)
		if digest != "" { // "" marks a file that is gone
			out[owner] = digest
		}
	}
	return out, nil
}

// writeDigests records the digests of an index, after its load: killed in between, the next
// index finds the older digests and loads those files again, which changes nothing.
func writeDigests(ctx context.Context, e load.Engine, sc load.Scope, digests map[string]string, version uint64) error {
	if len(digests) == 0 {
		return nil
	}
	if err := createIndexState(ctx, e); err != nil {
		return fmt.Errorf("index state: %w", err)
	}
	var rows [][]any
	for _, owner := range slices.Sorted(maps.Keys(digests)) {
		rows = append(rows, []any{sc.TraversalPath, sc.ProjectID, sc.Branch, owner, digests[owner], int64(version)})
	}
	if err := e.Insert(ctx, indexState, []string{"traversal_path", "project_id", "branch", "owner", "digest", "version"}, rows); err != nil {
		return fmt.Errorf("index state: %w", err)
	}
	return nil
}
