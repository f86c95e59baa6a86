// Package cluster holds the suite of graphwire on a sharded ClickHouse cluster's faults: an
// unknown cluster name, a shard whose tables differ, a shard stopped before and during a
// query, and servers that are not ClickHouse. Each test starts a private loopback cluster of
// two servers (scripts/clickhouse-server.sh --cluster, in a temporary directory) so that it
// can stop a shard. The answers on a healthy cluster are checked in tests/compiler
// (TestClusterMatchesEmbedded) and tests/orbit (GRAPHWIRE_TEST_ENGINE=cluster).
package cluster
