package clickhouse

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
)

// Options configures [Open].
type Options struct {
	// DSN is a clickhouse-go DSN such as "clickhouse://user:password@127.0.0.1:9000/graphwire".
	// Its scheme chooses the protocol: clickhouse:// and tcp:// the native one, http:// HTTP,
	// https:// HTTP over TLS. Required; a DSN that names no usable server is a [*DSNError].
	DSN string
	// Database overrides the DSN's database when set.
	Database string
	// MaxOpenConns caps the connection pool. Default 32.
	MaxOpenConns int
	// DialTimeout bounds connecting. Default 5s.
	DialTimeout time.Duration
	// CreateDatabase makes Open create the DSN's database when it does not exist (for seeding
	// and schema setup; it needs a user allowed to create databases).
	CreateDatabase bool
	// Progress, when set, is called with the running totals each time the server reports
	// progress. It is called on the goroutine that reads the rows.
	Progress func(executor.Stats)
	// Cluster names a cluster of the server's remote_servers (docs/cluster.md): the graph
	// tables are Distributed tables over local tables on every shard. Every statement then
	// runs with prefer_global_in_and_join = 1 (a sub-query of IN or JOIN is run once and sent
	// to every shard), skip_unavailable_shards = 0 (a shard that does not answer fails the
	// statement instead of leaving its rows out) and distributed_foreground_insert = 1 (an
	// INSERT returns once every shard holds its rows). Empty: a single server.
	Cluster string
	// Logger receives diagnostics. Nil discards them.
	Logger *slog.Logger
}

// Executor runs queries on a ClickHouse server. It implements [executor.Executor] and
// [executor.Loader] and is safe for concurrent use.
type Executor struct {
	conn  driver.Conn
	opts  Options
	http  bool       // the DSN chose HTTP: the driver reports no progress (rows and bytes read)
	addrs []string   // the servers' host:port, for errors
	dsn   ch.Options // the parsed DSN, for the connections to single shards (OpenShard)
}

// ReportsProgress reports whether statements report the rows and bytes they read
// ([executor.Rows.Stats]): over the native protocol they do; over HTTP the driver reads no
// progress, and the stats stay zero.
func (e *Executor) ReportsProgress() bool { return !e.http }

// Open parses the DSN and opens a connection pool. It does not contact the server; use Ping.
func Open(opts Options) (*Executor, error) {
	const op = "open clickhouse"
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.DSN == "" {
		return nil, executor.New(op, executor.ErrUnavailable, errors.New("no DSN given"))
	}
	dsn, err := checkDSN(opts.DSN)
	if err != nil {
		return nil, err
	}
	o, err := ch.ParseDSN(dsn)
	if err != nil {
		return nil, &DSNError{DSN: redactDSN(opts.DSN), Reason: strings.TrimPrefix(err.Error(), "clickhouse [dsn parse]:"), Err: err}
	}
	// The scheme chooses the protocol: clickhouse:// and tcp:// the native one, http:// and
	// https:// HTTP, https:// over TLS (ParseDSN sets it; forcing native made an http DSN
	// fail its handshake).
	if o.Compression == nil {
		o.Compression = &ch.Compression{Method: ch.CompressionLZ4}
	}
	if opts.Database != "" {
		o.Auth.Database = opts.Database
	}
	o.MaxOpenConns = 32
	if opts.MaxOpenConns > 0 {
		o.MaxOpenConns = opts.MaxOpenConns
	}
	o.MaxIdleConns = min(o.MaxOpenConns, 8)
	o.DialTimeout = 5 * time.Second
	if opts.DialTimeout > 0 {
		o.DialTimeout = opts.DialTimeout
	}
	if opts.Cluster != "" {
		if !executor.ValidIdent(opts.Cluster) {
			return nil, executor.New(op, executor.ErrInternal, fmt.Errorf("invalid cluster name %q: letters, digits and _", opts.Cluster))
		}
		if o.Settings == nil {
			o.Settings = ch.Settings{}
		}
		for k, v := range clusterSettings {
			o.Settings[k] = v
		}
	}
	e := &Executor{opts: opts, http: o.Protocol == ch.HTTP, addrs: o.Addr}
	if opts.CreateDatabase && o.Auth.Database != "" && o.Auth.Database != "default" {
		if err := e.createDatabase(*o); err != nil {
			return nil, err
		}
	}
	if e.conn, err = ch.Open(o); err != nil {
		return nil, e.classify(op, err)
	}
	e.dsn = *o
	return e, nil
}

// createDatabase connects to the default database and creates o's database if missing.
func (e *Executor) createDatabase(o ch.Options) error {
	const op = "create database"
	db := o.Auth.Database
	if !executor.ValidIdent(db) {
		return executor.New(op, executor.ErrInternal, fmt.Errorf("invalid database name %q", db))
	}
	o.Auth.Database = "default"
	o.MaxOpenConns, o.MaxIdleConns = 1, 1
	conn, err := ch.Open(&o)
	if err != nil {
		return e.classify(op, err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), o.DialTimeout+30*time.Second)
	defer cancel()
	return e.classify(op, conn.Exec(ctx, "CREATE DATABASE IF NOT EXISTS "+db))
}

// classify is the package's classify, naming the server when it does not answer as
// ClickHouse.
func (e *Executor) classify(op string, err error) error {
	err = classify(op, err)
	var nc *notClickHouseError
	if errors.As(err, &nc) && nc.addrs == nil {
		nc.addrs = e.addrs
	}
	return err
}

// notClickHouseError is a server that did not answer as ClickHouse: the native handshake or
// HTTP's first query got something else (an HTTP server on a native DSN, ClickHouse's TCP
// port on an http:// one, another protocol, or silence until the dial timeout).
type notClickHouseError struct {
	http  bool
	addrs []string
	err   error
}

func (e *notClickHouseError) Error() string {
	// The reply can be a whole HTML page, which a one-line error must not carry.
	msg, _, _ := strings.Cut(e.err.Error(), " response body:")
	msg = oneLine(msg, 600)
	where := "the server"
	if len(e.addrs) > 0 {
		where = strings.Join(e.addrs, ", ")
	}
	if e.http {
		return where + " does not answer as ClickHouse's HTTP interface (http:// and https:// want its HTTP port, 8123 or 8443 by default; " +
			"its TCP port wants clickhouse://): " + msg
	}
	return where + " does not answer as a ClickHouse server over the native protocol (clickhouse:// and tcp:// want its TCP port, 9000 by default; " +
		"its HTTP port wants http://): " + msg
}

func (e *notClickHouseError) Unwrap() error { return e.err }

// Is makes a server that is not ClickHouse an [errNotClickHouse]: it is not retried.
func (e *notClickHouseError) Is(target error) bool { return target == errNotClickHouse }

// notClickHouse recognises the driver's failures to greet a server: the native handshake
// ("handshake: …", "[handshake] unexpected packet …") and HTTP's first query ("failed to
// query server hello"). The driver gives them no type of their own.
func notClickHouse(err error) *notClickHouseError {
	var ex *ch.Exception
	if errors.As(err, &ex) {
		return nil // the server answered, as ClickHouse
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" || errors.Is(err, syscall.ECONNREFUSED) {
		return nil // nothing listens there: unavailable, as any refused connection
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "DB::Exception"):
		return nil // ClickHouse's own error over HTTP (a wrong password, say)
	case strings.Contains(msg, "failed to query server hello"):
		return &notClickHouseError{http: true, err: err}
	case strings.HasPrefix(msg, "handshake:"), strings.HasPrefix(msg, "[handshake]"):
		return &notClickHouseError{err: err}
	}
	return nil
}

// classify sorts a driver error into an executor kind.
func classify(op string, err error) error {
	if err == nil {
		return nil
	}
	var ee *executor.Error
	if errors.As(err, &ee) {
		return err
	}
	if nc := notClickHouse(err); nc != nil {
		// Before the context check: a handshake that timed out is a server that did not
		// answer, not a query that ran out of time.
		return executor.New(op, executor.ErrUnavailable, nc)
	}
	if e := executor.FromContext(op, err); e != nil {
		return e
	}
	var ex *ch.Exception
	if errors.As(err, &ex) {
		if ex.Code == 32 && strings.Contains(ex.Message, "while receiving packet from") {
			// ATTEMPT_TO_READ_AFTER_EOF from a shard of a cluster: it went away during the
			// statement (the message names it).
			return executor.New(op, executor.ErrUnavailable, err)
		}
		return executor.FromCode(op, int(ex.Code), err)
	}
	var netErr net.Error
	switch {
	case errors.As(err, &netErr), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, ch.ErrAcquireConnTimeout):
		return executor.New(op, executor.ErrUnavailable, err)
	}
	return executor.New(op, executor.ErrInternal, err)
}

// errNotClickHouse is what every [notClickHouseError] is (errors.Is): a reply that is not
// ClickHouse's protocol, which is not retried.
var errNotClickHouse = errors.New("the server does not answer as ClickHouse")

// oneLine collapses s's white space and cuts it to about n bytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") + " …"
	}
	return s
}

// queryContext adds the query's id, parameters, settings and progress handler to ctx.
func (e *Executor) queryContext(ctx context.Context, q *compiler.Query, st *stats, queryID string) (context.Context, error) {
	opts := []ch.QueryOption{ch.WithQueryID(queryID)}
	if len(q.Params) > 0 {
		params, err := executor.ParamTexts(q.Params)
		if err != nil {
			return nil, executor.New("run query", executor.ErrInvalidQuery, err)
		}
		opts = append(opts, ch.WithParameters(ch.Parameters(params)))
	}
	s := make(ch.Settings, len(q.Settings)+1)
	for _, kv := range q.Settings {
		s[kv.Key] = settingValue(kv.Value)
	}
	deadlineSetting(ctx, s)
	if len(s) > 0 {
		opts = append(opts, ch.WithSettings(s))
	}
	opts = append(opts, ch.WithProgress(st.add))
	return ch.Context(ctx, opts...), nil
}

// deadlineSetting lowers s's max_execution_time to the seconds left before ctx's deadline, so
// that the server stops the statement itself (TIMEOUT_EXCEEDED, an [executor.ErrTimeout])
// even where the driver's cancel on ctx does not reach it. Whole seconds, rounded up, at least
// 1: servers before 20.1 take only integer settings (see settingValue). The server's
// timeout_overflow_mode is left at its default, throw: such servers would refuse its string.
func deadlineSetting(ctx context.Context, s ch.Settings) {
	if dl, ok := ctx.Deadline(); ok {
		limitTime(s, time.Until(dl))
	}
}

// limitTime does the work of deadlineSetting for left before the deadline.
func limitTime(s ch.Settings, left time.Duration) {
	secs := int(math.Ceil(executor.DeadlineSeconds(left)))
	if cur, ok := s["max_execution_time"].(int); ok && cur > 0 && cur <= secs {
		return
	}
	s["max_execution_time"] = secs
}

// settingValue converts a setting to what the driver encodes: servers before settings were sent
// as strings (ClickHouse < 20.1, e.g. Debian's 18.16) accept only Go int and bool values.
func settingValue(v any) any {
	switch n := v.(type) {
	case int64:
		return int(n)
	case int32:
		return int(n)
	case uint64:
		if n <= math.MaxInt64 {
			return int(n)
		}
		return strconv.FormatUint(n, 10)
	case uint32:
		return int(n)
	}
	return v
}

// retryable reports a connection-level failure: unavailable and not an exception of the server.
func retryable(err error) bool {
	var ex *ch.Exception
	c := classify("", err)
	return !errors.As(err, &ex) && errors.Is(c, executor.ErrUnavailable) && !errors.Is(c, errNotClickHouse)
}

// stats sums progress packets.
type stats struct {
	mu       sync.Mutex
	s        executor.Stats
	start    time.Time
	callback func(executor.Stats)
}

func (s *stats) add(p *ch.Progress) {
	s.mu.Lock()
	s.s.RowsRead += p.Rows
	s.s.BytesRead += p.Bytes
	s.s.Elapsed = time.Since(s.start)
	cur := s.s
	s.mu.Unlock()
	if s.callback != nil {
		s.callback(cur)
	}
}

func (s *stats) get() executor.Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.s
}

// Run sends q and returns a stream over the server's result blocks.
func (e *Executor) Run(ctx context.Context, q *compiler.Query) (executor.Rows, error) {
	const op = "run query"
	st := &stats{start: time.Now(), callback: e.opts.Progress}
	queryID := newQueryID()
	qctx, err := e.queryContext(ctx, q, st, queryID)
	if err != nil {
		return nil, err
	}
	stopKill := e.killOnCancel(ctx, queryID)
	rs, err := e.conn.Query(qctx, q.SQL)
	if err != nil && ctx.Err() == nil && retryable(err) {
		// A pooled connection the server closed fails on first use; no row has been
		// received yet, so one retry on a fresh connection is safe: a read-only statement
		// that failed before its first row had no effect.
		// The retry has an id of its own: the server may still hold the first one (a
		// duplicate id is refused while it runs).
		e.opts.Logger.Warn("clickhouse query retried", "error", err)
		stopKill()
		queryID = newQueryID()
		if qctx, err = e.queryContext(ctx, q, st, queryID); err != nil {
			return nil, err
		}
		stopKill = e.killOnCancel(ctx, queryID)
		rs, err = e.conn.Query(qctx, q.SQL)
	}
	if err != nil {
		stopKill()
		if ctx.Err() != nil {
			return nil, executor.FromContext(op, ctx.Err())
		}
		return nil, e.classify(op, err)
	}
	r := &rows{rs: rs, ctx: ctx, st: st, stopKill: stopKill}
	if err := r.init(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// newQueryID returns a query id of graphwire's own ("gw-" and 32 hex digits): every statement
// Run sends carries one, so that it can be found in system.processes and system.query_log,
// and killed.
func newQueryID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return "gw-" + hex.EncodeToString(b[:])
}

// killOnCancel arranges for the statement queryID to be killed on the server when ctx is
// done, over HTTP: there a cancelled request only closes its connection, and the server
// runs the statement on to its max_execution_time (measured: a cancelled statement stayed in
// system.processes for the whole 60 s the test waited). Over the native protocol the driver
// sends Cancel itself. stop, called once the rows are closed, withdraws it.
func (e *Executor) killOnCancel(ctx context.Context, queryID string) (stop func() bool) {
	if !e.http {
		return func() bool { return false }
	}
	return context.AfterFunc(ctx, func() { e.kill(queryID) })
}

// kill runs KILL QUERY for queryID, without waiting for the statement to stop (ASYNC); the
// server stops it at its next check, between blocks.
func (e *Executor) kill(queryID string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	kctx := ch.Context(ctx, ch.WithParameters(ch.Parameters{"id": queryID}))
	if err := e.conn.Exec(kctx, "KILL QUERY WHERE query_id = {id:String} ASYNC"); err != nil {
		e.opts.Logger.Warn("clickhouse kill of a cancelled query failed", "query_id", queryID, "error", err)
	}
}

type rows struct {
	rs       driver.Rows
	stopKill func() bool // withdraws the kill on cancel (killOnCancel)
	ctx      context.Context
	st       *stats
	cols     []executor.Column
	dests    []any
	cur      []any
	err      error
	done     bool
}

func (r *rows) init() error {
	cts := r.rs.ColumnTypes()
	r.cols = make([]executor.Column, len(cts))
	r.dests = make([]any, len(cts))
	for i, ct := range cts {
		r.cols[i] = executor.Column{Name: ct.Name(), Type: ct.DatabaseTypeName()}
		r.dests[i] = reflect.New(ct.ScanType()).Interface()
	}
	return nil
}

func (r *rows) Columns() []executor.Column { return r.cols }

func (r *rows) Next() bool {
	if r.done || r.err != nil {
		return false
	}
	if !r.rs.Next() {
		r.done = true
		if err := r.rs.Err(); err != nil {
			if r.ctx.Err() != nil {
				r.err = executor.FromContext("read rows", r.ctx.Err())
			} else {
				r.err = classify("read rows", err)
			}
		}
		return false
	}
	if err := r.rs.Scan(r.dests...); err != nil {
		r.err = classify("scan row", err)
		return false
	}
	r.cur = make([]any, len(r.dests))
	for i, d := range r.dests {
		v, err := normalize(reflect.ValueOf(d).Elem(), r.cols[i].Type)
		if err != nil {
			r.err = executor.New("scan row", executor.ErrInternal, fmt.Errorf("column %s: %w", r.cols[i].Name, err))
			return false
		}
		r.cur[i] = v
	}
	return true
}

func (r *rows) Values() []any         { return r.cur }
func (r *rows) Err() error            { return r.err }
func (r *rows) Stats() executor.Stats { return r.st.get() }
func (r *rows) Close() error {
	r.done = true
	r.stopKill()
	return r.rs.Close()
}

var errUnsupported = errors.New("value outside the executor value model")

// normalize converts a scanned driver value into the executor value model. typ is the
// ClickHouse type, needed to tell Date from DateTime (both scan as time.Time).
func normalize(v reflect.Value, typ string) (any, error) {
	typ = stripWrappers(typ)
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil, nil
		}
		return normalize(v.Elem(), typ)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u := v.Uint()
		if u > math.MaxInt64 {
			return u, nil // the value model keeps UInt64 values above MaxInt64 as uint64
		}
		return int64(u), nil
	case reflect.Float32, reflect.Float64:
		return v.Float(), nil
	case reflect.Bool:
		return v.Bool(), nil
	case reflect.String:
		return v.String(), nil
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return []any{}, nil
		}
		elemType := ""
		if inner, ok := unwrap(typ, "Array"); ok {
			elemType = inner
		}
		out := make([]any, v.Len())
		for i := range v.Len() {
			x, err := normalize(v.Index(i), elemType)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case reflect.Struct:
		if t, ok := v.Interface().(time.Time); ok {
			if strings.HasPrefix(typ, "Date") && !strings.HasPrefix(typ, "DateTime") {
				return executor.DateOf(t), nil
			}
			return t.UTC(), nil
		}
	}
	return nil, fmt.Errorf("%w: %s (Go %s)", errUnsupported, typ, v.Type())
}

func stripWrappers(typ string) string {
	for {
		if inner, ok := unwrap(typ, "Nullable"); ok {
			typ = inner
			continue
		}
		if inner, ok := unwrap(typ, "LowCardinality"); ok {
			typ = inner
			continue
		}
		return typ
	}
}

func unwrap(typ, wrapper string) (string, bool) {
	if !strings.HasPrefix(typ, wrapper+"(") || !strings.HasSuffix(typ, ")") {
		return "", false
	}
	return typ[len(wrapper)+1 : len(typ)-1], true
}

// Ping checks that the server answers; on a cluster ([Options.Cluster]), that every shard
// does: a shard that does not is an [executor.ErrUnavailable] whose message names it.
func (e *Executor) Ping(ctx context.Context) error {
	if err := e.conn.Ping(ctx); err != nil {
		return e.classify("ping", err)
	}
	if e.opts.Cluster == "" {
		return nil
	}
	_, err := executor.CollectRows(ctx, e, &compiler.Query{SQL: "SELECT count() FROM clusterAllReplicas('" + e.opts.Cluster + "', system.one)"})
	if err != nil {
		return fmt.Errorf("ping cluster %s: %w", e.opts.Cluster, err)
	}
	return nil
}

// Version returns the server's version, e.g. "18.16.1" or "26.7.2.1".
func (e *Executor) Version(ctx context.Context) (string, error) {
	v, err := e.conn.ServerVersion()
	if err != nil {
		return "", e.classify("version", err)
	}
	return fmt.Sprintf("%d.%d.%d", v.Version.Major, v.Version.Minor, v.Version.Patch), nil
}

// Exec runs one statement that returns no rows.
func (e *Executor) Exec(ctx context.Context, sql string) error {
	if err := e.conn.Exec(ctx, sql); err != nil {
		if ctx.Err() != nil {
			return executor.FromContext("exec", ctx.Err())
		}
		return e.classify("exec", err)
	}
	return nil
}

// Insert sends rows as one native-protocol batch.
func (e *Executor) Insert(ctx context.Context, table string, columns []string, rows [][]any) error {
	op := "insert into " + table
	if !executor.ValidIdent(table) {
		return executor.New(op, executor.ErrInternal, fmt.Errorf("invalid table name %q", table))
	}
	for _, c := range columns {
		if !executor.ValidIdent(c) {
			return executor.New(op, executor.ErrInternal, fmt.Errorf("invalid column name %q", c))
		}
	}
	batch, err := e.conn.PrepareBatch(ctx, "INSERT INTO "+table+" ("+strings.Join(columns, ", ")+")")
	if err != nil {
		return e.classify(op, err)
	}
	defer batch.Close()
	vals := make([]any, len(columns))
	for ri, row := range rows {
		if len(row) != len(columns) {
			return executor.New(op, executor.ErrInternal, fmt.Errorf("row %d has %d values for %d columns", ri, len(row), len(columns)))
		}
		for i, v := range row {
			vals[i] = driverValue(v)
		}
		if err := batch.Append(vals...); err != nil {
			return e.classify(op, err)
		}
	}
	if err := batch.Send(); err != nil {
		return e.classify(op, err)
	}
	return nil
}

// driverValue converts a value-model value into what clickhouse-go appends.
func driverValue(v any) any {
	switch x := v.(type) {
	case executor.Date:
		return x.Time()
	case []any:
		out := make([]any, len(x))
		for i, it := range x {
			out[i] = driverValue(it)
		}
		return out
	}
	return v
}

// Close closes the connection pool.
func (e *Executor) Close() error { return e.conn.Close() }
