//go:build cgo

package chdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/internal/residency"
)

// Executor runs queries on embedded ClickHouse. It implements [executor.Executor] and
// [executor.Loader] and is safe for concurrent use.
//
// Queries run on a pool of read-only connections (readonly = 2), one statement per connection
// at a time; Exec and Insert run on a separate writable connection, one at a time. A third
// kind, the control connection, only cancels statements (KILL QUERY).
type Executor struct {
	lib        *lib
	opts       Options
	connArgs   []string // of a query connection
	writerArgs []string // of the writable connection

	pool   chan *conn // idle query connections
	opened int        // query connections created; all of them return to pool

	ctlMu sync.Mutex // guards ctl
	ctl   *conn      // read-only; runs KILL QUERY for canceled statements

	markerPrefix string        // random, names this executor's statements
	seq          atomic.Uint64 // numbers its statements

	wmu    sync.Mutex // guards writer and types
	writer *conn      // writable; also keeps the engine alive while the executor is open
	types  map[string]map[string]*chType

	closeOnce sync.Once
	closed    chan struct{}
}

const outputFormat = "RowBinaryWithNamesAndTypes"

// killRetry is how often a canceled statement that is still running is killed again: a KILL
// sent before the engine registered the statement finds nothing.
const killRetry = 100 * time.Millisecond

// Open loads the library, boots the engine on opts.Path, creates opts.Database if missing and
// opens the connection pool. A missing library or symbol gives an error matching
// [executor.ErrUnavailable] that names the path tried.
func Open(opts Options) (*Executor, error) {
	opts = opts.withDefaults()
	const op = "open chdb"
	if opts.Library == "" {
		return nil, executor.New(op, executor.ErrUnavailable, errors.New("no libchdb.so path given (run scripts/install-chdb.sh or set GRAPHWIRE_CHDB_LIB)"))
	}
	if _, err := os.Stat(opts.Library); err != nil {
		return nil, executor.New(op, executor.ErrUnavailable, fmt.Errorf("libchdb.so not found (run scripts/install-chdb.sh): %w", err))
	}
	if !executor.ValidIdent(opts.Database) {
		return nil, executor.New(op, executor.ErrInternal, fmt.Errorf("invalid database name %q", opts.Database))
	}
	logArgs, err := opts.logArgs()
	if err != nil {
		return nil, executor.New(op, executor.ErrInternal, err)
	}
	l, err := loadLib(opts.Library)
	if err != nil {
		return nil, executor.New(op, executor.ErrUnavailable, err)
	}
	if opts.RequireVersion != "" && !strings.HasPrefix(l.version, opts.RequireVersion) {
		return nil, executor.New(op, executor.ErrUnavailable, fmt.Errorf("%s is chDB %s, want %s", opts.Library, l.version, opts.RequireVersion))
	}
	var salt [4]byte
	_, _ = rand.Read(salt[:]) // never fails (crypto/rand)
	e := &Executor{
		lib:          l,
		opts:         opts,
		pool:         make(chan *conn, opts.PoolSize),
		types:        map[string]map[string]*chType{},
		closed:       make(chan struct{}),
		markerPrefix: "graphwire-" + hex.EncodeToString(salt[:]) + "-",
	}
	e.connArgs = append([]string{"graphwire", "--path=" + opts.Path, "--readonly=2"}, logArgs...)
	if opts.MaxThreads > 0 {
		e.connArgs = append(e.connArgs, fmt.Sprintf("--max_threads=%d", opts.MaxThreads))
	}
	if opts.QueryMemory > 0 {
		e.connArgs = append(e.connArgs, fmt.Sprintf("--max_memory_usage=%d", opts.QueryMemory))
	}

	// The first connection of a process boots the engine and is the only one whose
	// server-level arguments count.
	e.writerArgs = append([]string{"graphwire", "--path=" + opts.Path}, logArgs...)
	if opts.MemoryBudget > 0 {
		e.writerArgs = append(e.writerArgs, fmt.Sprintf("--max_server_memory_usage=%d", opts.MemoryBudget))
	}
	if e.writer, err = l.connectQuiet(e.writerArgs); err != nil {
		return nil, executor.New(op, executor.ErrUnavailable, err)
	}
	for _, stmt := range []string{"CREATE DATABASE IF NOT EXISTS " + opts.Database, "USE " + opts.Database} {
		if r := e.writer.query(stmt, outputFormat, nil, nil); r.errText != "" {
			e.writer.close()
			return nil, engineError(op, r.errText)
		}
	}
	if opts.MemoryBudget > 0 {
		e.checkBudget()
	}
	if e.ctl, err = l.connect(append([]string{"graphwire", "--path=" + opts.Path, "--readonly=2"}, logArgs...)); err != nil {
		e.closeAll()
		return nil, executor.New(op, executor.ErrUnavailable, err)
	}
	for range opts.PoolSize {
		c, err := e.dial(e.connArgs)
		if err != nil {
			e.closeAll()
			return nil, err
		}
		e.pool <- c
		e.opened++
	}
	opts.Logger.Debug("chdb engine open", "path", opts.Path, "version", l.version, "pool_size", opts.PoolSize,
		"max_threads", opts.MaxThreads, "memory_budget", opts.MemoryBudget, "query_memory", opts.QueryMemory)
	return e, nil
}

// checkBudget warns when the running engine's server-wide memory limit is not the budget:
// the engine was booted earlier in this process with another one.
func (e *Executor) checkBudget() {
	const q = "SELECT value FROM system.server_settings WHERE name = 'max_server_memory_usage'"
	r := e.writer.query(q, outputFormat, nil, nil)
	if r.errText != "" {
		e.opts.Logger.Warn("chdb memory limit unknown", "error", r.errText)
		return
	}
	dec, err := newDecoder(r.data)
	if err != nil || !dec.more() {
		e.opts.Logger.Warn("chdb memory limit unknown", "error", err)
		return
	}
	row, err := dec.row()
	if err != nil {
		e.opts.Logger.Warn("chdb memory limit unknown", "error", err)
		return
	}
	if v, _ := row[0].(string); v != strconv.FormatInt(e.opts.MemoryBudget, 10) {
		e.opts.Logger.Warn("chdb engine already running with another memory limit",
			"max_server_memory_usage", v, "memory_budget", e.opts.MemoryBudget)
	}
}

// dial opens a connection with args and makes the executor's database its current one.
func (e *Executor) dial(args []string) (*conn, error) {
	const op = "open chdb connection"
	c, err := e.lib.connect(args)
	if err != nil {
		return nil, executor.New(op, executor.ErrUnavailable, err)
	}
	if r := c.query("USE "+e.opts.Database, outputFormat, nil, nil); r.errText != "" {
		c.close()
		return nil, engineError(op, r.errText)
	}
	return c, nil
}

// release gives c back to the pool. A connection that saw an engine error, a cancel or a
// statement abandoned before its end is closed and replaced instead: chDB may hand what such a
// statement left behind (partial output, its columns) to the next statement on the same
// connection, and pool connections serve every caller.
func (e *Executor) release(c *conn, clean bool) {
	if !clean {
		c.close()
		fresh, err := e.dial(e.connArgs)
		if err != nil {
			e.opts.Logger.Error("chdb reconnect", "error", err)
			// Keep the pool size: a broken slot fails its next query instead of hanging.
			fresh = &conn{lib: e.lib}
		}
		c = fresh
	}
	e.pool <- c
}

// kill asks the engine to stop the statement whose log_comment is marker. It returns at once
// (KILL QUERY … ASYNC); the statement then fails with QUERY_WAS_CANCELLED.
func (e *Executor) kill(marker string) {
	e.ctlMu.Lock()
	defer e.ctlMu.Unlock()
	if e.ctl == nil {
		return
	}
	const q = "KILL QUERY WHERE Settings['log_comment'] = {m:String} ASYNC"
	if r := e.ctl.query(q, outputFormat, []string{"m"}, []string{marker}); r.errText != "" {
		e.opts.Logger.Warn("chdb kill query", "error", r.errText)
	}
}

// replaceWriter closes the writable connection after an engine error and opens a fresh one,
// for the reason [Executor.release] gives. The caller holds wmu. If the new connection fails,
// later writes report the executor as closed.
func (e *Executor) replaceWriter() {
	e.writer.close()
	c, err := e.dial(e.writerArgs)
	if err != nil {
		e.opts.Logger.Error("chdb reconnect", "error", err)
	}
	e.writer = c // nil on failure
}

// engineError sorts a chDB error text ("Code: 62. DB::Exception: …") into a kind.
func engineError(op, text string) error {
	code, ok := executor.ParseCode(text)
	if !ok {
		return executor.New(op, executor.ErrInternal, errors.New(text))
	}
	return executor.FromCode(op, code, errors.New(strings.TrimSpace(text)))
}

// Run starts q on a pool connection and returns its rows, streamed from the engine chunk by
// chunk (chdb_stream_query_with_params_n) and decoded one row at a time from the
// RowBinaryWithNamesAndTypes output. Run reads the first chunk, so errors the engine reports
// at once come from Run; later ones from Rows.Err. The connection stays with the rows until
// they reach their end or are closed.
//
// q.Settings and the executor's limits travel in the statement's own SETTINGS clause (see
// [Options]); nothing else is sent. When ctx ends before the statement does, the statement is
// killed in the engine (KILL QUERY from the control connection), so its connection is free
// again within moments instead of running on to max_execution_time, and the error matches
// ctx.Err(); Run and Rows.Next return that error when ctx ends, without waiting for the
// engine call in progress (see rows.await). A connection whose statement failed, was killed or was abandoned is replaced,
// never reused.
func (e *Executor) Run(ctx context.Context, q *compiler.Query) (executor.Rows, error) {
	return e.run(ctx, q, nil)
}

// run is [Executor.Run] on the connection lent (see [Executor.Lend]), or on one from the
// pool when lent is nil. A lent connection goes back to the pool like any other.
func (e *Executor) run(ctx context.Context, q *compiler.Query, lent *conn) (executor.Rows, error) {
	const op = "run query"
	giveBack := func() {
		if lent != nil {
			e.pool <- lent
		}
	}
	names, values, err := paramLists(q.Params)
	if err != nil {
		giveBack()
		return nil, executor.New(op, executor.ErrInvalidQuery, err)
	}
	lim := limits{queryMemory: e.opts.QueryMemory, marker: e.markerPrefix + strconv.FormatUint(e.seq.Add(1), 10)}
	if dl, ok := ctx.Deadline(); ok {
		lim.left = max(time.Until(dl), time.Millisecond) // a deadline passed: ctx.Err below
	}
	sql, err := statementSQL(q, lim)
	if err != nil {
		giveBack()
		return nil, executor.New(op, executor.ErrInternal, err)
	}
	if err := ctx.Err(); err != nil {
		giveBack()
		return nil, executor.FromContext(op, err)
	}
	c := lent
	if c == nil {
		select {
		case c = <-e.pool:
		case <-e.closed:
			return nil, executor.New(op, executor.ErrUnavailable, errors.New("executor closed"))
		case <-ctx.Done():
			return nil, executor.FromContext(op, ctx.Err())
		}
	}
	r := &rows{e: e, ctx: ctx, c: c, marker: lim.marker, done: make(chan struct{})}
	r.stopWatch = context.AfterFunc(ctx, r.killUntilDone)
	if c.c == nil {
		r.finish(false)
		return nil, executor.New(op, executor.ErrUnavailable, errors.New("chdb connection lost"))
	}
	var s unsafe.Pointer
	var errText string
	start := func() { s, errText = c.startStream(sql, outputFormat, names, values) }
	if !r.await(start, func() { r.stream = s }) {
		return nil, r.abandoned(op)
	}
	if errText != "" && notStreamable(errText) {
		return r.runWhole(op, sql, names, values)
	}
	if errText != "" {
		r.finish(false)
		return nil, r.failure(op, errText)
	}
	r.stream = s
	if err := r.readHeader(); err != nil {
		return nil, err
	}
	return r, nil
}

// Lend implements [executor.Lender]: when no statement is running on the engine (every
// query connection is idle) and the pool has at least two connections, it takes one now and
// returns a Runner whose first statement runs on it; otherwise ok is false. It never waits,
// and never takes a connection another statement waits for: a Go channel holds idle
// connections only while nobody waits on it. release gives the connection back when no
// statement took it; call it in every case.
func (e *Executor) Lend() (r executor.Runner, release func(), ok bool) {
	if e.opened < 2 || len(e.pool) < e.opened {
		return nil, nil, false
	}
	select {
	case c := <-e.pool:
		l := &lentRunner{e: e, c: c}
		return l, l.release, true
	default:
		return nil, nil, false
	}
}

// lentRunner runs its first statement on the connection [Executor.Lend] took, later ones
// as [Executor.Run] does.
type lentRunner struct {
	e  *Executor
	mu sync.Mutex
	c  *conn // nil once a statement took it or it went back
}

func (l *lentRunner) take() *conn {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.c
	l.c = nil
	return c
}

func (l *lentRunner) Run(ctx context.Context, q *compiler.Query) (executor.Rows, error) {
	return l.e.run(ctx, q, l.take())
}

func (l *lentRunner) release() {
	if c := l.take(); c != nil {
		l.e.pool <- c
	}
}

// notStreamable reports whether chDB refused to stream a statement (anything but a query,
// e.g. CREATE or SYSTEM), which then runs with chdb_query_with_params_n instead.
func notStreamable(text string) bool {
	code, _ := executor.ParseCode(text)
	return code == 36 && strings.Contains(text, "Streaming query is not supported")
}

// runWhole runs the statement of r with the whole-result call. The context watch still kills
// it; the connection is replaced afterwards, because it saw the refused stream.
func (r *rows) runWhole(op, sql string, names, values []string) (executor.Rows, error) {
	res := r.c.query(sql, outputFormat, names, values)
	r.finish(false)
	if res.errText != "" {
		return nil, r.failure(op, res.errText)
	}
	dec, err := newDecoder(res.data)
	if err != nil {
		return nil, executor.New(op, executor.ErrInternal, fmt.Errorf("decode result: %w", err))
	}
	r.dec, r.eof = *dec, true
	r.stats = executor.Stats{RowsRead: res.stats.rowsRead, BytesRead: res.stats.bytesRead, Elapsed: res.stats.elapsed}
	return r, nil
}

func paramLists(params []compiler.Param) (names, values []string, err error) {
	names = make([]string, len(params))
	values = make([]string, len(params))
	for i, p := range params {
		if values[i], err = executor.ParamText(p); err != nil {
			return nil, nil, err
		}
		names[i] = p.Name
	}
	return names, values, nil
}

// rows decodes a streamed result one row at a time. It holds the statement's connection
// until the stream ends, fails or is closed.
type rows struct {
	e      *Executor
	ctx    context.Context
	c      *conn          // nil once given back
	stream unsafe.Pointer // chdb stream handle; nil when none
	marker string
	eof    bool // the engine sent its last chunk
	// detached is set when ctx ended during an engine call: the goroutine of that call
	// then owns the connection and ends the statement (see await); the reader is done.
	detached bool
	done     chan struct{} // closed when the statement has ended
	// stopWatch stops the context watch that kills the statement.
	stopWatch func() bool

	dec   decoder // the current chunk, and the columns of the first
	cur   []any
	err   error
	stats executor.Stats
}

// killUntilDone runs when ctx ends while the statement holds its connection: it kills the
// statement, again every killRetry until the statement has ended.
func (r *rows) killUntilDone() {
	t := time.NewTicker(killRetry)
	defer t.Stop()
	for {
		r.e.kill(r.marker)
		select {
		case <-r.done:
			return
		case <-t.C:
		}
	}
}

// failure classifies an engine error; when ctx has ended, the context error wins (a killed
// statement reports QUERY_WAS_CANCELLED).
func (r *rows) failure(op, text string) error {
	if err := executor.FromContext(op, r.ctx.Err()); err != nil {
		return err
	}
	return engineError(op, text)
}

// await runs call, a blocking engine call on r's connection, and waits for it or for ctx to
// end, whichever comes first. The engine does not check max_execution_time or a KILL
// everywhere (a hash join being built, a scalar sub-query being evaluated): a statement can
// run on for seconds past both. So when ctx ends first, await returns false at once and
// the statement is abandoned: the call's goroutine waits for the engine, runs adopt (which
// keeps what the call returned that must be released), then ends the statement and gives
// the connection back. Until then the connection stays out of the pool, so the engine never
// runs more statements than the pool has connections. The caller's answer no longer waits for
// the engine; the error's Ended ([executor.Error]) says when the engine let go, and the
// pipeline keeps the caller's admission slot until then. On true the call has returned and
// adopt has not run.
func (r *rows) await(call, adopt func()) bool {
	if r.ctx.Done() == nil {
		call()
		return true
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		call()
	}()
	select {
	case <-done:
		return true
	case <-r.ctx.Done():
	}
	select {
	case <-done:
		return true
	default:
	}
	r.detached = true
	go func() {
		<-done
		if adopt != nil {
			adopt()
		}
		r.release(false)
	}()
	return false
}

// abandoned is the error of a statement await left running: the context's, with Ended set
// to close when the engine lets go of the statement.
func (r *rows) abandoned(op string) error {
	err := executor.FromContext(op, r.ctx.Err())
	if e, ok := err.(*executor.Error); ok {
		e.Ended = r.done
	}
	return err
}

// finish ends the statement and gives the connection back; clean means the stream reached
// its end without an error, so the connection can be reused as it is. After await has
// abandoned the statement, the goroutine it left owns the connection and finish does nothing.
func (r *rows) finish(clean bool) {
	if r.detached {
		return
	}
	r.release(clean)
}

// release does the work of finish.
func (r *rows) release(clean bool) {
	if r.c == nil {
		return
	}
	r.stopWatch()
	if r.stream != nil {
		if !clean && !r.eof {
			// Abandoned mid-stream: stop the engine first, so that chDB's own cancel does not
			// wait for a long computation to finish.
			r.e.kill(r.marker)
			r.c.cancelStream(r.stream)
		}
		r.c.endStream(r.stream)
		r.stream = nil
	}
	close(r.done)
	c := r.c
	r.c = nil
	r.e.release(c, clean)
}

// fetch reads the next chunk. Every chunk is a complete RowBinaryWithNamesAndTypes document:
// the header again, then whole rows. It reports false at the end of the stream or on an error
// (then r.err is set); either way the statement has ended.
func (r *rows) fetch() bool {
	if r.c == nil {
		return false
	}
	var res result
	if !r.await(func() { res = r.c.fetch(r.stream) }, nil) {
		r.err = r.abandoned("read rows")
		return false
	}
	if res.errText != "" {
		r.err = r.failure("read rows", res.errText)
		r.finish(false)
		return false
	}
	r.stats.RowsRead += res.stats.rowsRead
	r.stats.BytesRead += res.stats.bytesRead
	r.stats.Elapsed += res.stats.elapsed
	if len(res.data) == 0 {
		r.eof = true
		r.finish(true)
		return false
	}
	r.dec.buf, r.dec.off = res.data, 0
	if err := r.dec.header(); err != nil { // the first chunk's columns; later ones must repeat them
		r.err = executor.New("read rows", executor.ErrInternal, fmt.Errorf("decode result: %w", err))
		r.finish(false)
		return false
	}
	return true
}

// readHeader fetches the first chunk, which carries the column names and types. A statement
// without output (SET, DDL) has no chunk and no columns.
func (r *rows) readHeader() error {
	r.fetch()
	return r.err
}

func (r *rows) Columns() []executor.Column { return r.dec.cols }

func (r *rows) Next() bool {
	for r.err == nil {
		if r.dec.more() {
			row, err := r.dec.row()
			if err != nil {
				r.err = executor.New("decode row", executor.ErrInternal, err)
				r.finish(false)
				return false
			}
			r.cur = row
			return true
		}
		if !r.fetch() {
			return false
		}
	}
	return false
}

func (r *rows) Values() []any         { return r.cur }
func (r *rows) Err() error            { return r.err }
func (r *rows) Stats() executor.Stats { return r.stats }

// Close ends the statement if it is still running and releases its connection.
func (r *rows) Close() error {
	r.finish(false)
	r.dec.buf, r.dec.off = nil, 0
	return nil
}

// Ping runs SELECT 1.
func (e *Executor) Ping(ctx context.Context) error {
	rs, err := e.Run(ctx, &compiler.Query{SQL: "SELECT 1"})
	if err != nil {
		return err
	}
	_, err = executor.Collect(rs)
	return err
}

// Version returns the engine's version() (for chDB 26.7.3 this is the ClickHouse version it
// embeds, e.g. "26.7.2.1").
func (e *Executor) Version(ctx context.Context) (string, error) {
	rs, err := e.Run(ctx, &compiler.Query{SQL: "SELECT version()"})
	if err != nil {
		return "", err
	}
	res, err := executor.Collect(rs)
	if err != nil {
		return "", err
	}
	if len(res.Rows) != 1 {
		return "", executor.New("version", executor.ErrInternal, errors.New("no row"))
	}
	v, _ := res.Rows[0][0].(string)
	return v, nil
}

// Exec runs one statement on the writable connection.
func (e *Executor) Exec(ctx context.Context, sql string) error {
	const op = "exec"
	if err := ctx.Err(); err != nil {
		return executor.FromContext(op, err)
	}
	e.wmu.Lock()
	defer e.wmu.Unlock()
	if e.writer == nil {
		return executor.New(op, executor.ErrUnavailable, errors.New("executor closed"))
	}
	if r := e.writer.query(sql, outputFormat, nil, nil); r.errText != "" {
		e.replaceWriter()
		return engineError(op, r.errText)
	}
	clear(e.types) // DDL may have changed column types
	return nil
}

// Insert encodes rows as RowBinary using the table's column types and streams them in.
func (e *Executor) Insert(ctx context.Context, table string, columns []string, rows [][]any) error {
	op := "insert into " + table
	if err := ctx.Err(); err != nil {
		return executor.FromContext(op, err)
	}
	if !executor.ValidIdent(table) {
		return executor.New(op, executor.ErrInternal, fmt.Errorf("invalid table name %q", table))
	}
	e.wmu.Lock()
	defer e.wmu.Unlock()
	if e.writer == nil {
		return executor.New(op, executor.ErrUnavailable, errors.New("executor closed"))
	}
	types, err := e.columnTypes(table)
	if err != nil {
		return err
	}
	colTypes := make([]*chType, len(columns))
	for i, c := range columns {
		t, ok := types[c]
		if !ok || !executor.ValidIdent(c) {
			return executor.New(op, executor.ErrInternal, fmt.Errorf("unknown column %q", c))
		}
		colTypes[i] = t
	}
	var buf []byte
	for ri, row := range rows {
		if len(row) != len(columns) {
			return executor.New(op, executor.ErrInternal, fmt.Errorf("row %d has %d values for %d columns", ri, len(row), len(columns)))
		}
		for i, v := range row {
			if buf, err = appendValue(buf, colTypes[i], v); err != nil {
				return executor.New(op, executor.ErrInvalidQuery, fmt.Errorf("row %d column %s: %w", ri, columns[i], err))
			}
		}
	}
	sql := "INSERT INTO " + table + " (" + strings.Join(columns, ", ") + ")"
	if r := e.writer.insert(sql, "RowBinary", buf); r.errText != "" {
		e.replaceWriter()
		return engineError(op, r.errText)
	}
	return nil
}

// columnTypes returns (and caches) the column types of table. The caller holds wmu.
func (e *Executor) columnTypes(table string) (map[string]*chType, error) {
	if t, ok := e.types[table]; ok {
		return t, nil
	}
	const q = "SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = {t:String}"
	r := e.writer.query(q, outputFormat, []string{"t"}, []string{table})
	if r.errText != "" {
		e.replaceWriter()
		return nil, engineError("describe "+table, r.errText)
	}
	dec, err := newDecoder(r.data)
	if err != nil {
		return nil, executor.New("describe "+table, executor.ErrInternal, err)
	}
	types := map[string]*chType{}
	for dec.more() {
		row, err := dec.row()
		if err != nil {
			return nil, executor.New("describe "+table, executor.ErrInternal, err)
		}
		name, _ := row[0].(string)
		typ, _ := row[1].(string)
		if types[name], err = parseType(typ); err != nil {
			return nil, executor.New("describe "+table, executor.ErrInternal, err)
		}
	}
	if len(types) == 0 {
		return nil, executor.New("describe "+table, executor.ErrUnavailable, fmt.Errorf("table %s does not exist", table))
	}
	e.types[table] = types
	return types, nil
}

// ReleaseLibraryPages takes the pages of libchdb.so that the engine's boot touched out of the
// process's resident set and returns how many bytes were resident (see package
// internal/residency): the library's static initializers and the boot leave well over 100 MB
// of its code and read-only data resident, most of which a serving process never runs again.
// The pages stay in the page cache; what statements use faults back in on their next run, at
// the cost of a minor fault per page. Call it once a long-running process is up; a short one
// gains nothing from it.
func (e *Executor) ReleaseLibraryPages() (int64, error) { return residency.Release(e.lib.path) }

// Close waits for running statements, closes every connection and leaves the library loaded
// (chDB cannot be restarted inside a process once shut down, so chdb_shutdown is never called;
// process exit reaps the engine). A later Open in the same process may use another path.
func (e *Executor) Close() error {
	e.closeOnce.Do(func() {
		close(e.closed)
		e.closeAll()
	})
	return nil
}

func (e *Executor) closeAll() {
	// Every opened connection comes back to the pool once its statement ends, so this waits
	// for running statements.
	for range e.opened {
		c := <-e.pool
		c.close()
	}
	e.ctlMu.Lock()
	if e.ctl != nil {
		e.ctl.close()
		e.ctl = nil
	}
	e.ctlMu.Unlock()
	e.wmu.Lock()
	if e.writer != nil {
		e.writer.close()
		e.writer = nil
	}
	e.wmu.Unlock()
}
