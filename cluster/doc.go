// Package cluster lays the graph out on a ClickHouse cluster and checks that layout
// (docs/cluster.md).
//
// Every shard holds the graph's tables under local names (gl_user_local, gl_edge_local, …,
// ReplacingMergeTree as on a single server), and every shard holds a Distributed table under
// the name the compiler uses (gl_user, gl_edge, …) over the local tables of all shards, so any
// shard answers any query:
//
//	gl_user        Distributed(NAME, db, gl_user_local, cityHash64(id))
//	gl_user_local  ReplacingMergeTree(_version, _deleted) ORDER BY (traversal_path, id)
//	gl_edge        Distributed(NAME, db, gl_edge_local, cityHash64(source_id))
//
// The sharding key is a function of columns every version of a row shares (the node's id; the
// edge's source id), so every version and tombstone of a row lands on one shard and FINAL on a
// shard sees all of them. gl_edge_by_target_local is filled on each shard by a materialized
// view from gl_edge_local, so both copies of an edge sit on the shard of its source.
//
// ClickHouse Keeper is not needed: [Init] runs the DDL on every shard in turn through a
// connection of its own (no ON CLUSTER).
package cluster
