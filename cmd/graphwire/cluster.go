package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphwire/graphwire/cluster"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/clickhouse"
	"github.com/graphwire/graphwire/load"
	"github.com/graphwire/graphwire/ontology"
)

// openCluster checks the cluster an executor was opened on: its name must be one of the
// server's clusters (else exit 6, naming the clusters it has), and the graph's layout is
// created on every shard (write) or checked (read: a shard whose tables differ is refused,
// exit 7, naming the shard and the difference; a shard that does not answer is left to the
// reads, which fail naming it).
func (f *engineFlags) openCluster(e *clickhouse.Executor, write bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		return err
	}
	if write {
		return clusterError(cluster.Init(ctx, e, ont))
	}
	err = cluster.Check(ctx, e, ont)
	if errors.Is(err, executor.ErrUnavailable) {
		// A server or shard that does not answer now: reads say so themselves (and serve
		// starts NOT_SERVING, as with a single server that is down), naming the shard.
		return nil
	}
	return clusterError(err)
}

// clusterError classifies the errors of a cluster's set-up: an unknown name is "not found",
// a shard whose schema differs "unavailable"; others keep their class.
func clusterError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, clickhouse.ErrUnknownCluster):
		return &classError{code: exitNotFound, err: err, msg: err.Error()}
	case errors.Is(err, cluster.ErrSchema):
		return &classError{code: exitUnavailable, err: err, msg: err.Error() + " (graphwire cluster check lists the shards; fix or recreate that shard's tables)"}
	}
	return err
}

// clusterFlags are the parsed flags of graphwire cluster.
type clusterFlags struct {
	engine engineFlags
}

func newClusterCmd(s streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cluster init|check --clickhouse DSN --cluster NAME",
		Short: "create or check the graph's tables on every shard of a ClickHouse cluster",
		Long: "Create (init) or check (check) the graph's layout on a ClickHouse cluster (docs/cluster.md):\n" +
			"local ReplacingMergeTree tables (gl_user_local, …) on every shard and Distributed tables\n" +
			"(gl_user, …) over them. init is safe to run again; both refuse a shard whose tables differ\n" +
			"from the first shard's, naming the shard, the table and the difference.",
		Args: cobra.NoArgs,
	}
	for _, sub := range []struct {
		name, short string
		write       bool
	}{
		{"init", "create the graph's tables on every shard (and the database), then check them", true},
		{"check", "check that every shard holds the graph's tables, alike", false},
	} {
		var f clusterFlags
		c := &cobra.Command{
			Use:   sub.name + " --clickhouse DSN --cluster NAME",
			Short: sub.short,
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				if err := f.engine.check(); err != nil {
					return &usageError{err}
				}
				if f.engine.clickhouse == "" || f.engine.cluster == "" {
					return usageErrorf("graphwire cluster %s needs --clickhouse and --cluster (or $%s)", sub.name, clusterEnv)
				}
				return runCluster(f, sub.write, s.stdout, s.stderr)
			},
		}
		f.engine.register(c.Flags())
		cmd.AddCommand(c)
	}
	return cmd
}

func runCluster(f clusterFlags, write bool, stdout, stderr io.Writer) error {
	eng, err := f.engine.openEngine(stderr, write)
	if err != nil {
		return err
	}
	defer eng.Close()
	e := eng.(*clickhouse.Executor)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	shards, err := e.Shards(ctx)
	if err != nil {
		return clusterError(err)
	}
	for _, s := range shards {
		fmt.Fprintf(stdout, "%s ok\n", s)
	}
	return nil
}

// clusterOf is the cluster an engine's graph is sharded over, "" when it is not.
func clusterOf(eng any) string {
	if c, ok := eng.(interface{ Cluster() string }); ok {
		return c.Cluster()
	}
	return ""
}

// clusterWriter is how a load writes to eng's cluster, nil when eng is not one.
func clusterWriter(eng any, ont *ontology.Ontology) load.Shards {
	if c, ok := eng.(*clickhouse.Executor); ok && c.Cluster() != "" {
		return cluster.NewWriter(c, ont)
	}
	return nil
}
