package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/loadstate"
	"github.com/graphwire/graphwire/ontology"
)

func newRekeyCmd(s streams) *cobra.Command {
	var f engineFlags
	var check bool
	cmd := &cobra.Command{
		Use:   "rekey [flags]",
		Short: "rebuild edge tables created by an earlier graphwire in the current key order (faster edge reads)",
		Long: "Rebuild the two edge tables of a graph created before the edge key order changed (traversal_path\n" +
			"first) in the current order, every row with its versions: answers stay the same, seeded edge reads\n" +
			"get the primary key's help. Nothing may write to the graph meanwhile. With --check, only say\n" +
			"whether the graph needs it (exit 0 when current, 10 when it needs a rebuild; any other code is a\n" +
			"failure, as for every command).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
				return &usageError{err}
			}
			if f.cluster != "" {
				return &usageError{errors.New("on a cluster rebuild each shard's local edge tables (docs/cluster.md); rekey works on one engine")}
			}
			return runRekey(cmd.Context(), f, check, s.stdout, s.stderr)
		},
	}
	f.register(cmd.Flags())
	f.inUse = "stop it first: rekey rebuilds the edge tables and needs the data directory to itself"
	cmd.Flags().BoolVar(&check, "check", false, "only report whether the edge tables use an earlier key order")
	return cmd
}

func runRekey(ctx context.Context, f engineFlags, check bool, stdout, stderr io.Writer) error {
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		return err
	}
	eng, err := f.openGraph(ctx, ont, stderr)
	if err != nil {
		return err
	}
	defer eng.Close()
	if check {
		old, err := loadstate.OldEdgeKeys(ctx, eng, ont)
		if err != nil {
			return err
		}
		for _, o := range old {
			fmt.Fprintf(stdout, "%s: sorted by (%s), current is (%s)\n", o.Table, o.From, ont.EdgeSortingKey(o.Table))
		}
		if len(old) > 0 {
			return &classError{code: exitRekeyNeeded, msg: "the edge tables use an earlier key order: run graphwire rekey"}
		}
		fmt.Fprintln(stdout, "edge tables: current key order")
		return nil
	}
	start := time.Now()
	done, err := loadstate.RekeyEdges(ctx, eng, ont)
	for _, d := range done {
		fmt.Fprintf(stdout, "%s: %d rows rebuilt from (%s) into (%s)\n", d.Table, d.Rows, d.From, ont.EdgeSortingKey(d.Table))
	}
	if err != nil {
		return err
	}
	if len(done) == 0 {
		fmt.Fprintln(stdout, "edge tables: already in the current key order, nothing to do")
		return nil
	}
	fmt.Fprintf(stderr, "rekeyed %d edge tables in %s\n", len(done), time.Since(start).Round(time.Millisecond))
	return nil
}
