package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
)

// The reads step (docs/duckdb.md, "What each read costs"): for every statement executor.Respond
// runs, what the engine read for it (the growth of system.events over a few runs: parts, marks,
// rows and bytes selected, compressed bytes read, time spent), the read steps of its plan with
// the parts and granules each index left (EXPLAIN indexes = 1), and the SQL itself. With
// -settings, the same cases also run interleaved with and without those settings on every
// statement, with the answers compared.

// readEvents are the counters the reads step reports per statement, in this order; the
// engine only lists a counter once it has counted something.
var readEvents = []string{
	"SelectedParts", "SelectedPartsTotal", "SelectedRanges", "SelectedMarks", "SelectedMarksTotal",
	"SelectedRows", "SelectedBytes", "ReadCompressedBytes", "CompressedReadBufferBlocks",
	"CompressedReadBufferBytes", "UserTimeMicroseconds", "SystemTimeMicroseconds",
	"RealTimeMicroseconds", "QueryAnalysisMicroseconds", "QueryPlanBuildMicroseconds",
	"QueryPlanOptimizeMicroseconds", "QueryPipelineBuildMicroseconds",
	"FilteringMarksWithPrimaryKeyMicroseconds", "FilteringMarksWithSecondaryKeysMicroseconds",
	"FilteringMarksWithPrimaryKeyProcessedMarks", "IndexBinarySearchAlgorithm",
	"IndexGenericExclusionSearchAlgorithm", "MergeTreeDataSelectExecutorFilterMarks",
	"ScalarSubqueriesCacheMiss", "QueriesWithSubqueries", "FunctionExecute",
	"LoadedDataParts", "OpenedFileCacheHits", "OpenedFileCacheMisses", "ReadBufferFromFileDescriptorReadBytes",
}

// withSettings is a Runner that adds settings to every statement it runs (a statement's own
// setting of the same key wins, as in the executor).
type withSettings struct {
	r   executor.Runner
	add []compiler.Setting
}

func (w withSettings) Run(ctx context.Context, q *compiler.Query) (executor.Rows, error) {
	if len(w.add) == 0 {
		return w.r.Run(ctx, q)
	}
	c := *q
	c.Settings = append(slices.Clone(w.add), q.Settings...)
	return w.r.Run(ctx, &c)
}

// parseSettings reads "k=v;k=v" (integers or quoted strings).
func parseSettings(s string) ([]compiler.Setting, error) {
	var out []compiler.Setting
	for _, kv := range strings.Split(s, ";") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("-settings: %q is not key=value", kv)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			out = append(out, compiler.Setting{Key: k, Value: n})
		} else {
			out = append(out, compiler.Setting{Key: k, Value: strings.Trim(v, "'")})
		}
	}
	return out, nil
}

// reads writes the report of the reads step to w.
func reads(w io.Writer, dir, only, extra string, rounds int, showSQL bool, cacheMB int) error {
	ctx := context.Background()
	add, err := parseSettings(extra)
	if err != nil {
		return err
	}
	ont, err := loadOntology()
	if err != nil {
		return err
	}
	e, err := openChDBThreads(dir, serveMaxThreads())
	if err != nil {
		return err
	}
	defer e.Close()
	c, err := sizedCompiler(ctx, e, ont)
	if err != nil {
		return err
	}
	callers, err := loadCallers(dir)
	if err != nil {
		return err
	}
	parts, err := collect(ctx, e, "SELECT table, count(), sum(rows), groupArray(level) FROM system.parts WHERE active AND database = currentDatabase() GROUP BY table ORDER BY table")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "load %s; max_threads %d\nactive parts per table:", loadavg(), serveMaxThreads())
	for _, r := range parts.Rows {
		fmt.Fprintf(w, " %v:%v", r[0], r[1])
	}
	fmt.Fprintln(w)
	type item struct {
		name string
		q    *compiler.Query
	}
	var items []item
	for _, cl := range callers {
		for _, s := range shapes(sqlgen{c: cl, versioned: true}) {
			if only != "" && !strings.Contains(s.name, only) {
				continue
			}
			q, err := c.Compile([]byte(s.dsl), cl.compilerCaller())
			if err != nil {
				return fmt.Errorf("compile %s: %w", s.name, err)
			}
			items = append(items, item{s.name, q})
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		qi, _, _ := strings.Cut(items[i].name, "/")
		qj, _, _ := strings.Cut(items[j].name, "/")
		return slices.Index(questionOrder, qi) < slices.Index(questionOrder, qj)
	})
	variant := withSettings{r: e, add: add}
	var cache *executor.EdgeCache
	if cacheMB > 0 {
		// Nothing writes the graph meanwhile: one generation. Each case runs once to read
		// its edge sets, and the statements of its second, warm run are listed.
		if cache, err = executor.NewEdgeCache(executor.EdgeCacheOptions{MaxBytes: int64(cacheMB) << 20, Generation: func() uint64 { return 0 }}); err != nil {
			return err
		}
	}
	for _, it := range items {
		o := executor.RespondOptions{Edges: cache}
		if _, _, err := executor.RespondWith(ctx, variant, c, it.q, o); err != nil {
			return fmt.Errorf("%s: %w", it.name, err)
		}
		_, ex, err := executor.RespondWith(ctx, variant, c, it.q, o)
		if err != nil {
			return fmt.Errorf("%s: %w", it.name, err)
		}
		fmt.Fprintf(w, "\n=== %s: %d statements, %d rows\n", it.name, len(ex.Statements), len(ex.Base.Values))
		for _, st := range ex.Statements {
			q := st.Query
			if len(add) > 0 {
				c := *q
				c.Settings = append(slices.Clone(add), q.Settings...)
				q = &c
			}
			before, err := events(ctx, e)
			if err != nil {
				return err
			}
			for i := 0; i < profileRuns; i++ {
				if _, err := executor.CollectRows(ctx, e, q); err != nil {
					return fmt.Errorf("%s %s: %w", it.name, st.Label, err)
				}
			}
			after, err := events(ctx, e)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "--- %s (%d chars); per run:", st.Label, len(q.SQL))
			for _, k := range readEvents {
				if d := (after[k] - before[k]) / profileRuns; d != 0 {
					fmt.Fprintf(w, " %s=%.6g", k, d)
				}
			}
			fmt.Fprintln(w)
			plan, err := executor.CollectRows(ctx, e, withPrefix(q, "EXPLAIN indexes = 1, actions = 0 "))
			if err != nil {
				return fmt.Errorf("%s %s: explain: %w", it.name, st.Label, err)
			}
			for _, v := range plan.Values {
				fmt.Fprintf(w, "  %v\n", v[0])
			}
			if showSQL {
				fmt.Fprintf(w, "SQL:\n%s\nparams: %v\n", q.SQL, q.Params)
			}
		}
	}
	if len(add) == 0 || rounds <= 0 {
		return nil
	}
	// Interleaved: each round runs every case without and with the settings, alternating which
	// goes first; answers compared on the base rows.
	fmt.Fprintf(w, "\n=== interleaved, %d rounds, with %s; load %s\n", rounds, extra, loadavg())
	type tm struct{ a, b timing }
	res := make([]tm, len(items))
	for round := 0; round <= rounds; round++ {
		for i, it := range items {
			sides := []executor.Runner{e, variant}
			if (round+i)%2 == 1 {
				sides = []executor.Runner{variant, e}
			}
			var digests [2]string
			for _, r := range sides {
				start, cpu0 := time.Now(), cpuNow()
				_, ex, err := executor.RespondWith(ctx, r, c, it.q, executor.RespondOptions{Edges: cache})
				if err != nil {
					return fmt.Errorf("%s: %w", it.name, err)
				}
				wall, cpu := time.Since(start), cpuNow()-cpu0
				d := fmt.Sprint(ex.Base.Values)
				if _, isVariant := r.(withSettings); isVariant {
					digests[1] = d
					if round > 0 {
						res[i].b.add(wall, cpu)
					}
				} else {
					digests[0] = d
					if round > 0 {
						res[i].a.add(wall, cpu)
					}
				}
			}
			if digests[0] != digests[1] {
				return fmt.Errorf("%s: the answer differs with %s", it.name, extra)
			}
		}
	}
	fmt.Fprintf(w, "load after %s\n| case | wall without | wall with | CPU without | CPU with |\n|---|---|---|---|---|\n", loadavg())
	for i, it := range items {
		fmt.Fprintf(w, "| %s | %.1f | %.1f | %.1f | %.1f |\n", it.name, median(res[i].a.Wall), median(res[i].b.Wall), median(res[i].a.CPU), median(res[i].b.CPU))
	}
	return nil
}
