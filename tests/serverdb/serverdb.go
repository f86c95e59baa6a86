// Package serverdb gives a test suite a database of its own on a ClickHouse server: the server
// that scripts/clickhouse-server.sh starts (a ClickHouse 26.7 made from the embedded engine's
// library) or any other named by GRAPHWIRE_CLICKHOUSE_DSN. Suites seed the same graph into it
// as into the embedded engine and run their queries on both (tests/compiler) or on it alone
// (GRAPHWIRE_TEST_ENGINE=server, tests/orbit).
package serverdb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"time"

	"github.com/graphwire/graphwire/executor/clickhouse"
)

// DSNEnv names the server; EngineEnv set to "server" runs a suite on the server instead of
// the embedded engine.
const (
	DSNEnv    = "GRAPHWIRE_CLICKHOUSE_DSN"
	EngineEnv = "GRAPHWIRE_TEST_ENGINE"
)

// OnServer reports whether the suite is asked to run on the server (EngineEnv=server); any
// value other than "", "embedded" and "server" is an error.
func OnServer() (bool, error) {
	switch v := os.Getenv(EngineEnv); v {
	case "", "embedded", "cluster": // cluster: OnCluster
		return false, nil
	case "server":
		return true, nil
	default:
		return false, fmt.Errorf("%s=%q: want embedded, server or cluster", EngineEnv, v)
	}
}

var prefixRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// dbName is a database name of its own: prefix, the process and the time.
func dbName(prefix string) (string, error) {
	if !prefixRE.MatchString(prefix) {
		return "", fmt.Errorf("serverdb: database prefix %q", prefix)
	}
	return fmt.Sprintf("%s_%d_%d", prefix, os.Getpid(), time.Now().UnixNano()), nil
}

// Open creates a database named after prefix, the process and the time on the server at dsn
// and returns an executor on it, with drop, which removes the database and closes the
// executor. A missing dsn is an error naming DSNEnv.
func Open(dsn, prefix string) (e *clickhouse.Executor, drop func(), err error) {
	e, _, drop, err = open(dsn, prefix)
	return e, drop, err
}

// open is Open that also returns the database's name.
func open(dsn, prefix string) (e *clickhouse.Executor, db string, drop func(), err error) {
	if dsn == "" {
		return nil, "", func() {}, errors.New(DSNEnv + " is not set (source <(bash scripts/clickhouse-server.sh --env))")
	}
	db, err = dbName(prefix)
	if err != nil {
		return nil, "", func() {}, err
	}
	e, err = clickhouse.Open(clickhouse.Options{DSN: dsn, Database: db, CreateDatabase: true, DialTimeout: 10 * time.Second})
	if err != nil {
		return nil, "", func() {}, fmt.Errorf("open %s: %w", dsn, err)
	}
	drop = func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := e.Exec(ctx, "DROP DATABASE IF EXISTS "+db+" SYNC"); err != nil {
			fmt.Fprintf(os.Stderr, "serverdb: drop %s: %v\n", db, err)
		}
		e.Close()
	}
	return e, db, drop, nil
}
