package serverdb

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/executor/clickhouse"
)

// Engine is what a suite uses of its engine: queries, statements and inserts.
type Engine interface {
	executor.Executor
	executor.Loader
}

// Opened is a suite's engine and where it lives.
type Opened struct {
	Engine Engine
	// Server is true when Engine is a database on the server (EngineEnv=server).
	Server bool
	// Name says which engine it is, for messages: "embedded" or "server <dsn>".
	Name string
}

// OpenEngine opens the engine a suite runs on: with EngineEnv=server a database of its own
// (named after prefix) on the server GRAPHWIRE_CLICKHOUSE_DSN names, otherwise the embedded
// engine in dir with pool query connections. close releases it (and drops the server's
// database); it is never nil. A run asked for the server that has none is an error, never
// a fallback to the embedded engine.
func OpenEngine(dir, prefix string, pool int) (o Opened, close func(), err error) {
	onServer, err := OnServer()
	if err != nil {
		return Opened{}, func() {}, err
	}
	if onServer {
		dsn := os.Getenv(DSNEnv)
		e, drop, err := Open(dsn, prefix)
		if err != nil {
			return Opened{}, drop, err
		}
		return Opened{Engine: e, Server: true, Name: "server " + dsn}, drop, nil
	}
	lib := chdb.DefaultLibrary()
	if _, err := os.Stat(lib); err != nil {
		return Opened{}, func() {}, fmt.Errorf("libchdb.so not found at %s (run bash scripts/install-chdb.sh or set GRAPHWIRE_CHDB_LIB): %w", lib, err)
	}
	e, err := chdb.Open(chdb.Options{Library: lib, Path: dir, PoolSize: pool})
	if err != nil {
		return Opened{}, func() {}, fmt.Errorf("open chdb: %w", err)
	}
	return Opened{Engine: e, Name: "embedded"}, func() { e.Close() }, nil
}

// GraphArgs returns the graphwire flags that select a new, empty graph for a suite that runs
// the binary: --embedded dir, or with EngineEnv=server --clickhouse and a DSN naming a
// database of its own on the server (the binary's seed creates it). drop removes that
// database; it is never nil.
func GraphArgs(dir, prefix string) (args []string, drop func(), err error) {
	onServer, err := OnServer()
	if err != nil || !onServer {
		return []string{"--embedded", dir}, func() {}, err
	}
	base := os.Getenv(DSNEnv)
	if base == "" {
		return nil, func() {}, errors.New(DSNEnv + " is not set (source <(bash scripts/clickhouse-server.sh --env))")
	}
	db, err := dbName(prefix)
	if err != nil {
		return nil, func() {}, err
	}
	dsn, err := WithDatabase(base, db)
	if err != nil {
		return nil, func() {}, err
	}
	drop = func() {
		e, err := clickhouse.Open(clickhouse.Options{DSN: base, DialTimeout: 10 * time.Second})
		if err != nil {
			fmt.Fprintf(os.Stderr, "serverdb: drop %s: %v\n", db, err)
			return
		}
		defer e.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := e.Exec(ctx, "DROP DATABASE IF EXISTS "+db+" SYNC"); err != nil {
			fmt.Fprintf(os.Stderr, "serverdb: drop %s: %v\n", db, err)
		}
	}
	return []string{"--clickhouse", dsn}, drop, nil
}

// WithDatabase returns dsn with its database (the URL path) set to db.
func WithDatabase(dsn, db string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", fmt.Errorf("serverdb: DSN %q: %w", dsn, err)
	}
	u.Path = "/" + db
	return u.String(), nil
}

// CopyGraph copies every table of the database dsn names into a new database of its own
// (named after prefix) on the same server and returns the DSN naming the copy, with drop,
// which removes it; drop is never nil. It is the server's counterpart of copying an
// embedded data directory: a test changes the copy and leaves the shared graph alone.
// Materialized views are not copied: writes to the copy reach only the table written.
func CopyGraph(ctx context.Context, dsn, prefix string) (copyDSN string, drop func(), err error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", func() {}, fmt.Errorf("serverdb: DSN %q: %w", dsn, err)
	}
	src := strings.TrimPrefix(u.Path, "/")
	if !executor.ValidIdent(src) {
		return "", func() {}, fmt.Errorf("serverdb: DSN %q names no database", dsn)
	}
	e, dst, drop, err := open(dsn, prefix)
	if err != nil {
		return "", drop, err
	}
	// Tables with data only: a materialized view has none of its own (its target table is
	// copied), and the copy takes no writes through it.
	rows, err := executor.CollectRows(ctx, e, &compiler.Query{
		SQL:    "SELECT name FROM system.tables WHERE database = {db:String} AND engine != 'MaterializedView' ORDER BY name",
		Params: []compiler.Param{{Name: "db", Type: "String", Value: src}},
	})
	if err != nil {
		return "", drop, fmt.Errorf("list the tables of %s: %w", src, err)
	}
	for _, r := range rows.Values {
		t, _ := r[0].(string)
		if !executor.ValidIdent(t) {
			return "", drop, fmt.Errorf("copy %s: table name %q", src, t)
		}
		for _, stmt := range []string{
			"CREATE TABLE " + dst + "." + t + " AS " + src + "." + t,
			"INSERT INTO " + dst + "." + t + " SELECT * FROM " + src + "." + t,
		} {
			if err := e.Exec(ctx, stmt); err != nil {
				return "", drop, fmt.Errorf("copy %s.%s: %w", src, t, err)
			}
		}
	}
	copyDSN, err = WithDatabase(dsn, dst)
	return copyDSN, drop, err
}
