package serverdb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/graphwire/graphwire/cluster"
	"github.com/graphwire/graphwire/executor/clickhouse"
	"github.com/graphwire/graphwire/ontology"
)

// ClusterDSNEnv names a server of a cluster and ClusterEnv the cluster (in its remote_servers):
// `bash scripts/clickhouse-server.sh --cluster NAME --env` prints both. EngineEnv set to
// "cluster" runs a suite on the cluster (make test-cluster).
const (
	ClusterDSNEnv = "GRAPHWIRE_CLUSTER_DSN"
	ClusterEnv    = "GRAPHWIRE_CLUSTER"
)

// OnCluster reports whether the suite is asked to run on a cluster (EngineEnv=cluster).
func OnCluster() bool { return os.Getenv(EngineEnv) == "cluster" }

// OpenCluster creates a database named after prefix, the process and the time on every shard
// of the cluster name that the server at dsn knows, lays the graph out there (package
// cluster) and returns an executor on it, with drop, which removes the database from every
// shard and closes the executor.
func OpenCluster(dsn, name, prefix string, ont *ontology.Ontology) (e *clickhouse.Executor, drop func(), err error) {
	if dsn == "" || name == "" {
		return nil, func() {}, errors.New(ClusterDSNEnv + " or " + ClusterEnv + " is not set (source <(bash scripts/clickhouse-server.sh --cluster gw --env))")
	}
	if !prefixRE.MatchString(prefix) {
		return nil, func() {}, fmt.Errorf("serverdb: database prefix %q", prefix)
	}
	db := fmt.Sprintf("%s_%d_%d", prefix, os.Getpid(), time.Now().UnixNano())
	e, err = clickhouse.Open(clickhouse.Options{DSN: dsn, Database: db, CreateDatabase: true, Cluster: name, DialTimeout: 10 * time.Second})
	if err != nil {
		return nil, func() {}, fmt.Errorf("open %s: %w", dsn, err)
	}
	drop = func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := cluster.OnShards(ctx, e, []string{"DROP DATABASE IF EXISTS " + db + " SYNC"}); err != nil {
			fmt.Fprintf(os.Stderr, "serverdb: drop %s: %v\n", db, err)
		}
		e.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := cluster.Init(ctx, e, ont); err != nil {
		return nil, drop, fmt.Errorf("cluster %s on %s: %w", name, dsn, err)
	}
	return e, drop, nil
}
