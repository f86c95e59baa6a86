package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/load"
)

// coldResult is one cold start: a fresh process opens the engine on the prepared data and
// answers the first neighbors query (admin).
type coldResult struct {
	Engine  string
	Seconds float64 // open + first query, to the last row
	RSSMB   float64 // resident memory after the query
	HWMMB   float64 // peak resident memory of the process
	Digest  string
}

func cold(dir, engine string) (*coldResult, error) {
	ctx := context.Background()
	ont, err := loadOntology()
	if err != nil {
		return nil, err
	}
	admin := callerSpec{Name: "admin", Admin: true}
	sh := shapes(sqlgen{c: admin, versioned: true})
	var nb shape
	for _, s := range sh {
		if strings.HasPrefix(s.name, "neighbors/") {
			nb = s
		}
	}
	r := &coldResult{Engine: engine}
	start := time.Now()
	var p projection
	switch engine {
	case "chdb":
		e, err := openChDBThreads(dir, serveMaxThreads())
		if err != nil {
			return nil, err
		}
		defer e.Close()
		c, err := compiler.New(ont, compiler.Options{})
		if err != nil {
			return nil, err
		}
		if p, _, err = runOurs(ctx, e, c, nb, admin, nil, 0); err != nil {
			return nil, err
		}
	case "duckdb":
		db, err := sql.Open("duckdb", duckFile(dir)+"?access_mode=READ_ONLY")
		if err != nil {
			return nil, err
		}
		defer db.Close()
		if p, err = runDuck(ctx, db, nb); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("-engine %q: want chdb or duckdb", engine)
	}
	r.Seconds = time.Since(start).Seconds()
	r.RSSMB, r.HWMMB = memory()
	r.Digest = p.digest()
	return r, nil
}

// memory reads VmRSS and VmHWM of this process, in MB.
func memory() (rss, hwm float64) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "VmRSS:":
			rss = kb / 1024
		case "VmHWM:":
			hwm = kb / 1024
		}
	}
	return rss, hwm
}

// projection is the comparable part of an answer: the shape's fields of every row, one line
// per row, sorted.
type projection []string

func (p projection) digest() string {
	h := sha256.New()
	for _, r := range p {
		h.Write([]byte(r))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func project(cols []string, rows [][]any, fields []string) (projection, error) {
	idx := make([]int, len(fields))
	for i, f := range fields {
		idx[i] = slices.Index(cols, f)
		if idx[i] < 0 {
			return nil, fmt.Errorf("answer has no column %s (columns %v)", f, cols)
		}
	}
	out := make(projection, len(rows))
	for i, r := range rows {
		var b strings.Builder
		for j, k := range idx {
			if j > 0 {
				b.WriteByte('\t')
			}
			canonical(&b, r[k])
		}
		out[i] = b.String()
	}
	sort.Strings(out)
	return out, nil
}

// canonical writes v so that equal values of either engine read the same: integers in
// decimal, dates as YYYY-MM-DD, arrays and tuples (ClickHouse) or lists and structs (DuckDB,
// fields in name order) as [a,b].
func canonical(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case int32:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case int8, int16, uint8, uint16, uint32:
		fmt.Fprintf(b, "%d", x) // ClickHouse's narrow integers (path_finding's depth is UInt8)
	case uint64:
		b.WriteString(strconv.FormatUint(x, 10))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case string:
		b.WriteString(strconv.Quote(x))
	case executor.Date:
		b.WriteString(x.String())
	case time.Time:
		b.WriteString(x.UTC().Format("2006-01-02"))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			canonical(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		vals := make([]any, len(keys))
		for i, k := range keys {
			vals[i] = x[k]
		}
		canonical(b, vals)
	default:
		fmt.Fprintf(b, "%T:%v", v, v)
	}
}

// runOurs compiles the shape's DSL and answers it as the server does: the base statement,
// then the hydration statement where the query type has one, path_finding on the edge cache
// when there is one (executor.RespondWith). The projection is taken from the base statement's
// rows.
func runOurs(ctx context.Context, e *chdb.Executor, c *compiler.Compiler, s shape, caller callerSpec, edges *executor.EdgeCache, splitKinds int) (projection, int, error) {
	q, err := c.Compile([]byte(s.dsl), caller.compilerCaller())
	if err != nil {
		return nil, 0, fmt.Errorf("compile %s: %w", s.name, err)
	}
	_, ex, err := executor.RespondWith(ctx, e, c, q, executor.RespondOptions{Edges: edges, SplitKinds: splitKinds})
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", s.name, err)
	}
	p, err := project(ex.Base.Columns, ex.Base.Values, s.fields)
	if err != nil {
		return nil, 0, fmt.Errorf("%s (graphwire): %w", s.name, err)
	}
	return p, len(ex.Statements), nil
}

func runDuck(ctx context.Context, db *sql.DB, s shape) (projection, error) {
	rows, err := db.QueryContext(ctx, s.duck)
	if err != nil {
		return nil, fmt.Errorf("%s (duckdb): %w\n%s", s.name, err, s.duck)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var all [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		all = append(all, vals)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s (duckdb): %w", s.name, err)
	}
	p, err := project(cols, all, s.fields)
	if err != nil {
		return nil, fmt.Errorf("%s (duckdb): %w", s.name, err)
	}
	return p, nil
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// timing is the wall and CPU time of each round of one side of one case.
type timing struct {
	Wall, CPU []float64 // ms
}

func (t *timing) add(wall, cpu time.Duration) {
	t.Wall = append(t.Wall, float64(wall.Microseconds())/1000)
	t.CPU = append(t.CPU, float64(cpu.Microseconds())/1000)
}

// caseResult is one shape at one scale.
type caseResult struct {
	Name       string
	Statements int // graphwire's statements (base, hydration)
	Rows       int
	Ours       timing
	Duck       timing // versioned layout
	DuckLive   timing // live-only layout
	Equal      bool   // all three projections equal
	Digest     string
	Note       string
}

type benchResult struct {
	Cases []caseResult
	Load  string // /proc/loadavg before and after
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// bench opens both engines on the prepared data and runs every shape, interleaved: each round
// runs every case once on graphwire, once on DuckDB (versioned) and once on DuckDB (live only),
// in an order that alternates which engine goes first. The first round warms and is not timed.
// With cacheMB > 0, graphwire answers path_finding on an edge cache of that size, as serve does
// (its graph-cache-mb); the first round fills it.
func bench(dir string, rounds, cacheMB, splitKinds int) (*benchResult, error) {
	ctx := context.Background()
	ont, err := loadOntology()
	if err != nil {
		return nil, err
	}
	// max_threads as serve and the CLI set it (chdb.Options' default for their pool of 4): on
	// 2 cores 1, which made every case of the comparison cheaper in CPU and, at scale 10, in
	// wall than the 2 of a pool of one (docs/duckdb.md, "What each read costs").
	// With split-kinds, serve's pool of 4 connections, so that a lookup may run in two halves.
	pool := 1
	if splitKinds > 0 {
		pool = 4
	}
	e, err := openChDBPool(dir, serveMaxThreads(), pool)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	c, err := sizedCompiler(ctx, e, ont)
	if err != nil {
		return nil, err
	}
	db, err := openDuckReadOnly(dir)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	callers, err := loadCallers(dir)
	if err != nil {
		return nil, err
	}
	var edges *executor.EdgeCache
	if cacheMB > 0 {
		// Nothing writes the graph while the rounds run: one generation.
		if edges, err = executor.NewEdgeCache(executor.EdgeCacheOptions{MaxBytes: int64(cacheMB) << 20, Generation: func() uint64 { return 0 }}); err != nil {
			return nil, err
		}
	}
	type pair struct {
		caller    callerSpec
		versioned shape
		live      shape
	}
	var all []pair
	for _, cl := range callers {
		v := shapes(sqlgen{c: cl, versioned: true})
		l := shapes(sqlgen{c: cl, versioned: false})
		for i := range v {
			all = append(all, pair{cl, v[i], l[i]})
		}
	}
	// Order by question, admin before scoped.
	sort.SliceStable(all, func(i, j int) bool {
		qi, _, _ := strings.Cut(all[i].versioned.name, "/")
		qj, _, _ := strings.Cut(all[j].versioned.name, "/")
		return slices.Index(questionOrder, qi) < slices.Index(questionOrder, qj)
	})
	res := &benchResult{Load: loadavg()}
	res.Cases = make([]caseResult, len(all))
	adminAnswer := map[string]projection{} // question → the admin's answer (admin runs first)
	for round := 0; round <= rounds; round++ {
		for i, pr := range all {
			cr := &res.Cases[i]
			cr.Name = pr.versioned.name
			type side struct {
				t   *timing
				run func() (projection, error)
			}
			var ours, duck, live projection
			sides := []side{
				{&cr.Ours, func() (projection, error) {
					p, n, err := runOurs(ctx, e, c, pr.versioned, pr.caller, edges, splitKinds)
					cr.Statements = n
					ours = p
					return p, err
				}},
				{&cr.Duck, func() (projection, error) { p, err := runDuck(ctx, db, pr.versioned); duck = p; return p, err }},
				{&cr.DuckLive, func() (projection, error) { p, err := runDuck(ctx, db, pr.live); live = p; return p, err }},
			}
			if (round+i)%2 == 1 {
				slices.Reverse(sides)
			}
			for _, sd := range sides {
				start, cpu0 := time.Now(), cpuNow()
				if _, err := sd.run(); err != nil {
					return nil, err
				}
				wall, cpu := time.Since(start), cpuNow()-cpu0
				if round > 0 {
					sd.t.add(wall, cpu)
				}
			}
			if round == 0 {
				cr.Rows = len(ours)
				cr.Digest = ours.digest()
				cr.Equal = slices.Equal(ours, duck) && slices.Equal(ours, live)
				if !cr.Equal {
					cr.Note = fmt.Sprintf("graphwire %d rows %s, duckdb %d rows %s, duckdb live %d rows %s; first difference: %s",
						len(ours), ours.digest(), len(duck), duck.digest(), len(live), live.digest(), firstDiff(ours, duck))
				}
				q, _, _ := strings.Cut(cr.Name, "/")
				if pr.caller.Admin {
					adminAnswer[q] = ours
				} else if err := checkScoped(cr.Name, ours, adminAnswer[q]); err != nil {
					return nil, fmt.Errorf("%w (grants %s)", err, pr.caller.describe())
				}
			}
		}
	}
	res.Load += " → " + loadavg()
	if edges != nil {
		s := edges.Stats()
		fmt.Fprintf(os.Stderr, "edge cache: %d sets read in %v, %d kept, %d bytes, %d too large\n", s.Builds, s.Reading, s.Entries, s.Bytes, s.TooBig)
	}
	return res, nil
}

var questionOrder = []string{"search", "traversal_1hop", "traversal_2hop", "variable_length", "aggregation", "path_finding", "neighbors"}

func firstDiff(a, b projection) string {
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return fmt.Sprintf("row %d: %q vs %q", i, x, y)
		}
	}
	return "none"
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

type scaleReport struct {
	Scale    float64
	Prepared prepared
	Cold     []coldResult
	Bench    benchResult
	Stages   *stagesResult // with -stages
}

// mergeNote says in which parts the compared graph was stored.
func mergeNote(p prepared) string {
	var b strings.Builder
	list := func(ms []load.MergedTable) {
		if len(ms) == 0 {
			b.WriteString("nothing")
		}
		for i, m := range ms {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s (%d → %d parts, %.1f s)", m.Table, m.Parts, m.PartsAfter, m.Elapsed.Seconds())
		}
	}
	switch p.PartsMode {
	case "unmerged":
		b.WriteString(" The churn's parts were left unmerged (-parts unmerged)")
	default:
		b.WriteString(" After the churn, graphwire's merge after a write (load.Merge) merged ")
		list(p.Merges)
		if p.PartsMode == "served" {
			b.WriteString("; serve's idle merge then merged ")
			list(p.IdleMerges)
		}
	}
	if p.Merged {
		b.WriteString("; then every table's parts were merged (-merged)")
	}
	b.WriteString(". ")
	if len(p.Parts) == 0 {
		b.WriteString("Every table was in one part at the export.")
	} else {
		b.WriteString("In several parts at the export:")
		for i, t := range slices.Sorted(maps.Keys(p.Parts)) {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " %s %d", t, p.Parts[t])
		}
		b.WriteString(".")
	}
	return b.String()
}

func markdown(reps []scaleReport, rounds int) string {
	var b strings.Builder
	for _, r := range reps {
		p := r.Prepared
		fmt.Fprintf(&b, "### Scale %g\n\n%d nodes and %d edges generated; %d rows stored with versions and tombstones, %d live. The scoped caller's prefixes, chosen from this graph: %s.",
			r.Scale, p.Nodes, p.Edges, p.VersionRows, p.LiveRows, callersOf(p.Scoped)[1].describe())
		b.WriteString(mergeNote(p))
		if len(r.Bench.Cases) == 0 {
			b.WriteString("\n\n")
		} else {
			fmt.Fprintf(&b, " Load average (1, 5, 15 min) before → after the rounds: %s. Medians of %d interleaved rounds, ms.\n\n", r.Bench.Load, rounds)
			b.WriteString("| query | rows | graphwire wall | DuckDB wall | ratio DuckDB/graphwire | graphwire CPU | DuckDB CPU | DuckDB live-only wall | answers |\n|---|---|---|---|---|---|---|---|---|\n")
			for _, c := range r.Bench.Cases {
				ow, dw, lw := median(c.Ours.Wall), median(c.Duck.Wall), median(c.DuckLive.Wall)
				eq := "equal " + c.Digest
				if !c.Equal {
					eq = "DIFFER: " + c.Note
				}
				stmts := ""
				if c.Statements > 1 {
					stmts = fmt.Sprintf(" (%d statements)", c.Statements)
				}
				fmt.Fprintf(&b, "| %s%s | %d | %.1f | %.1f | %.2f× | %.1f | %.1f | %.1f | %s |\n",
					c.Name, stmts, c.Rows, ow, dw, dw/ow, median(c.Ours.CPU), median(c.Duck.CPU), lw, eq)
			}
			b.WriteString("\n")
		}
		if len(r.Cold) > 0 {
			b.WriteString("Cold start (a fresh process: open the engine on the data, answer the first neighbors query, admin):\n\n| engine | seconds | RSS after, MB | peak RSS, MB |\n|---|---|---|---|\n")
			for _, c := range r.Cold {
				fmt.Fprintf(&b, "| %s | %.2f | %.0f | %.0f |\n", c.Engine, c.Seconds, c.RSSMB, c.HWMMB)
			}
			b.WriteString("\n")
		}
		if r.Stages != nil {
			b.WriteString(stagesMarkdown(r.Stages, r.Scale, rounds))
		}
	}
	return b.String()
}
