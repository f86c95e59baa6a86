package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphwire/graphwire/cluster"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor/clickhouse"
	"github.com/graphwire/graphwire/ontology"
	"github.com/graphwire/graphwire/seed"
)

// seedFlags are the parsed flags of graphwire seed.
type seedFlags struct {
	engine    engineFlags
	scale     float64
	seed      uint64
	batchSize int
}

func newSeedCmd(s streams) *cobra.Command {
	var f seedFlags
	cmd := &cobra.Command{
		Use:   "seed [flags]",
		Short: "create the schema and load a synthetic SDLC graph",
		Long: "Create the schema and load a synthetic SDLC graph (users, groups, projects, merge requests,\n" +
			"pipelines, …). The same --scale and --seed give the same graph.\n\n" +
			"On a terminal, progress bars for generating and loading go to stderr; elsewhere only the\n" +
			"summary line. GRAPHWIRE_PROGRESS=1 draws the bars anyway, GRAPHWIRE_PROGRESS=0 never.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.scale <= 0 || f.batchSize <= 0 || f.seed == 0 {
				return usageErrorf("--scale, --seed and --batch-size must be positive")
			}
			if err := f.engine.check(); err != nil {
				return &usageError{err}
			}
			bar, err := newProgress(s.stderr, os.Getenv(progressEnv), unitRows)
			if err != nil {
				return &usageError{err}
			}
			return seedGraph(cmd.Context(), f, bar, s.stderr)
		},
	}
	fs := cmd.Flags()
	f.engine.register(fs)
	fs.Float64Var(&f.scale, "scale", 1, "graph size: 1 ≈ 14k nodes, 100 ≈ 1.4M nodes")
	fs.Uint64Var(&f.seed, "seed", 42, "random seed; the same scale and seed give the same graph")
	fs.IntVar(&f.batchSize, "batch-size", 50_000, "rows per insert")
	return cmd
}

// seedGraph generates and loads the graph, drawing both phases on bar, and ends with one
// summary line on stderr.
func seedGraph(ctx context.Context, f seedFlags, bar *progress, stderr io.Writer) error {
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		return err
	}
	eng, err := f.engine.openWritable(stderr)
	if err != nil {
		return err
	}
	defer eng.Close()
	defer bar.finish()
	opts := seed.Options{Scale: f.scale, Seed: f.seed, BatchSize: f.batchSize, Progress: bar.report}
	if ce, ok := eng.(*clickhouse.Executor); ok && ce.Cluster() != "" {
		// Distributed tables do not merge: the shards' local tables do.
		opts.Merge = func(ctx context.Context, table string) error { return cluster.Merge(ctx, ce, table) }
	}
	start := time.Now()
	g, err := seed.Generate(ont, opts)
	if err != nil {
		return err
	}
	generated := time.Since(start)
	st, err := seed.Load(ctx, eng, ont, g, opts)
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	bar.finish()
	rows := st.Nodes + st.Edges
	fmt.Fprintf(stderr, "seeded %s: %d nodes, %d edges (scale %g, seed %d, version %d) in %s (generate %s); %.0f rows/s\n",
		f.engine.describe(), st.Nodes, st.Edges, f.scale, f.seed, st.Version,
		elapsed.Round(time.Millisecond), generated.Round(time.Millisecond), float64(rows)/elapsed.Seconds())
	return nil
}
