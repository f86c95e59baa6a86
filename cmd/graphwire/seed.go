package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
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

func parseSeedFlags(args []string, stderr io.Writer) (seedFlags, error) {
	var f seedFlags
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: graphwire seed [--embedded DIR | --clickhouse DSN] [--scale N] [--seed S]")
		fs.PrintDefaults()
	}
	f.engine.register(fs)
	fs.Float64Var(&f.scale, "scale", 1, "graph size: 1 ≈ 10k nodes, 100 ≈ 1M nodes")
	fs.Uint64Var(&f.seed, "seed", 42, "random seed; the same scale and seed give the same graph")
	fs.IntVar(&f.batchSize, "batch-size", 50_000, "rows per insert")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return f, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if f.scale <= 0 || f.batchSize <= 0 || f.seed == 0 {
		fs.Usage()
		return f, errors.New("--scale, --seed and --batch-size must be positive")
	}
	return f, f.engine.check()
}

func runSeed(ctx context.Context, args []string, _ io.Reader, _, stderr io.Writer) int {
	f, err := parseSeedFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(stderr, "graphwire seed: %s\n", oneLine(err))
		return exitUsage
	}
	if err := seedGraph(ctx, f, stderr); err != nil {
		fmt.Fprintf(stderr, "graphwire seed: %s\n", oneLine(err))
		return exitFailure
	}
	return exitOK
}

func seedGraph(ctx context.Context, f seedFlags, stderr io.Writer) error {
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		return err
	}
	eng, err := f.engine.openWritable(stderr)
	if err != nil {
		return err
	}
	defer eng.Close()
	opts := seed.Options{Scale: f.scale, Seed: f.seed, BatchSize: f.batchSize, Progress: stderr}
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
	rows := st.Nodes + st.Edges
	fmt.Fprintf(stderr, "seeded %s: %d nodes, %d edges (scale %g, seed %d, version %d) in %s (generate %s); %.0f rows/s\n",
		f.engine.describe(), st.Nodes, st.Edges, f.scale, f.seed, st.Version,
		elapsed.Round(time.Millisecond), generated.Round(time.Millisecond), float64(rows)/elapsed.Seconds())
	return nil
}
