package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
)

// clusterSettings are the settings of every statement on a cluster ([Options.Cluster]).
//
//   - prefer_global_in_and_join: the compiler's statements join and filter Distributed
//     tables by sub-queries over Distributed tables. Without GLOBAL each shard would run the
//     sub-query against its own rows only (or, by default, refuse: DISTRIBUTED_IN_JOIN_
//     SUBQUERY_DENIED); GLOBAL runs it once on the initiator and ships its result to every
//     shard, so a walk that crosses shards finds every edge. Set per connection, the SQL
//     text the compiler emits (and its security checks) stay the same on every engine.
//   - skip_unavailable_shards = 0 (the default, made explicit): a shard that does not answer
//     fails the statement (ALL_CONNECTION_TRIES_FAILED) instead of dropping its rows.
//   - distributed_foreground_insert: an INSERT into a Distributed table returns after every
//     shard has written its part, not when the initiator has queued it.
var clusterSettings = ch.Settings{
	"prefer_global_in_and_join":     1,
	"skip_unavailable_shards":       0,
	"distributed_foreground_insert": 1,
}

// ErrUnknownCluster is returned by [Executor.Shards] for a cluster name the server does not
// know (it is not in its remote_servers).
var ErrUnknownCluster = errors.New("unknown cluster")

// Shard is one shard of a cluster as the server's system.clusters lists it: its number and
// the native-protocol address of its first replica.
type Shard struct {
	Num  int
	Addr string // host:port
}

// String names the shard for messages: "shard 2 (127.0.0.1:9000)".
func (s Shard) String() string { return fmt.Sprintf("shard %d (%s)", s.Num, s.Addr) }

// Cluster returns [Options.Cluster].
func (e *Executor) Cluster() string { return e.opts.Cluster }

// Database returns the database the executor's statements run in.
func (e *Executor) Database() string {
	if e.dsn.Auth.Database == "" {
		return "default"
	}
	return e.dsn.Auth.Database
}

// Shards lists the shards of [Options.Cluster], in shard order. A name the server does not
// know is an [ErrUnknownCluster] naming the clusters it does know.
func (e *Executor) Shards(ctx context.Context) ([]Shard, error) {
	const op = "list shards"
	if e.opts.Cluster == "" {
		return nil, executor.New(op, executor.ErrInternal, errors.New("no cluster configured"))
	}
	rows, err := executor.CollectRows(ctx, e, &compiler.Query{
		SQL:    "SELECT toInt64(shard_num), host_address, toInt64(port), toInt64(cluster = {p0:String}) FROM system.clusters ORDER BY cluster, shard_num, replica_num",
		Params: []compiler.Param{{Name: "p0", Type: "String", Value: e.opts.Cluster}},
	})
	if err != nil {
		return nil, err
	}
	var shards []Shard
	var known []string
	for _, r := range rows.Values {
		num, _ := r[0].(int64)
		host, _ := r[1].(string)
		port, _ := r[2].(int64)
		if mine, _ := r[3].(int64); mine != 1 {
			continue
		}
		if len(shards) > 0 && shards[len(shards)-1].Num == int(num) {
			continue // a further replica of the same shard
		}
		shards = append(shards, Shard{Num: int(num), Addr: net.JoinHostPort(host, strconv.FormatInt(port, 10))})
	}
	if len(shards) == 0 {
		known, err = e.clusterNames(ctx)
		if err != nil {
			return nil, err
		}
		have := "none"
		if len(known) > 0 {
			have = strings.Join(known, ", ")
		}
		return nil, fmt.Errorf("%w %q: the server's remote_servers does not define it (it defines: %s)", ErrUnknownCluster, e.opts.Cluster, have)
	}
	return shards, nil
}

func (e *Executor) clusterNames(ctx context.Context) ([]string, error) {
	rows, err := executor.CollectRows(ctx, e, &compiler.Query{SQL: "SELECT DISTINCT cluster FROM system.clusters ORDER BY cluster"})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, r := range rows.Values {
		n, _ := r[0].(string)
		names = append(names, n)
	}
	return names, nil
}

// OpenShard opens a connection to one shard alone, over the native protocol, with the DSN's
// user, password, TLS and database: for the statements that must run on every shard (the
// local tables. DDL, merges, per-shard checks). create creates the database there
// first.
func (e *Executor) OpenShard(s Shard, create bool) (*Executor, error) {
	o := e.dsn
	o.Addr = []string{s.Addr}
	o.Protocol = ch.Native
	o.Settings = nil
	opts := e.opts
	opts.Cluster = ""
	opts.Progress = nil
	shard := &Executor{opts: opts, addrs: o.Addr, dsn: o}
	if create && o.Auth.Database != "" && o.Auth.Database != "default" {
		if err := shard.createDatabase(o); err != nil {
			return nil, fmt.Errorf("%s: %w", s, err)
		}
	}
	conn, err := ch.Open(&o)
	if err != nil {
		return nil, shard.classify("open "+s.String(), err)
	}
	shard.conn = conn
	return shard, nil
}
