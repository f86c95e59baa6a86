//go:build cgo

package chdb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
)

// Executor runs queries on embedded ClickHouse. It implements [executor.Executor] and
// [executor.Loader] and is safe for concurrent use.
//
// Queries run on a pool of read-only connections (readonly = 2), one statement per connection
// at a time; Exec and Insert run on a separate writable connection, one at a time.
type Executor struct {
	lib      *lib
	opts     Options
	connArgs []string

	pool   chan *conn // idle query connections
	opened int        // query connections created; all of them return to pool

	wmu    sync.Mutex // guards writer and types
	writer *conn      // writable; also keeps the engine alive while the executor is open
	types  map[string]map[string]*chType

	closeOnce sync.Once
	closed    chan struct{}
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

const outputFormat = "RowBinaryWithNamesAndTypes"

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
	if !identRE.MatchString(opts.Database) {
		return nil, executor.New(op, executor.ErrInternal, fmt.Errorf("invalid database name %q", opts.Database))
	}
	l, err := loadLib(opts.Library)
	if err != nil {
		return nil, executor.New(op, executor.ErrUnavailable, err)
	}
	if opts.RequireVersion != "" && !strings.HasPrefix(l.version, opts.RequireVersion) {
		return nil, executor.New(op, executor.ErrUnavailable, fmt.Errorf("%s is chDB %s, want %s", opts.Library, l.version, opts.RequireVersion))
	}
	e := &Executor{
		lib:    l,
		opts:   opts,
		pool:   make(chan *conn, opts.PoolSize),
		types:  map[string]map[string]*chType{},
		closed: make(chan struct{}),
	}
	e.connArgs = []string{"graphwire", "--path=" + opts.Path, "--readonly=2"}
	if opts.MaxThreads > 0 {
		e.connArgs = append(e.connArgs, fmt.Sprintf("--max_threads=%d", opts.MaxThreads))
	}

	if e.writer, err = l.connect([]string{"graphwire", "--path=" + opts.Path}); err != nil {
		return nil, executor.New(op, executor.ErrUnavailable, err)
	}
	for _, stmt := range []string{"CREATE DATABASE IF NOT EXISTS " + opts.Database, "USE " + opts.Database} {
		if r := e.writer.query(stmt, outputFormat, nil, nil); r.errText != "" {
			e.writer.close()
			return nil, engineError(op, r.errText)
		}
	}
	for range opts.PoolSize {
		c, err := e.newQueryConn()
		if err != nil {
			e.closeAll()
			return nil, err
		}
		e.pool <- c
		e.opened++
	}
	opts.Logger.Debug("chdb engine open", "path", opts.Path, "version", l.version, "pool_size", opts.PoolSize)
	return e, nil
}

func (e *Executor) newQueryConn() (*conn, error) {
	const op = "open chdb connection"
	c, err := e.lib.connect(e.connArgs)
	if err != nil {
		return nil, executor.New(op, executor.ErrUnavailable, err)
	}
	if r := c.query("USE "+e.opts.Database, outputFormat, nil, nil); r.errText != "" {
		c.close()
		return nil, engineError(op, r.errText)
	}
	return c, nil
}

// engineError sorts a chDB error text ("Code: 62. DB::Exception: …") into a kind.
func engineError(op, text string) error {
	code, ok := executor.ParseCode(text)
	if !ok {
		return executor.New(op, executor.ErrInternal, errors.New(text))
	}
	return executor.FromCode(op, code, errors.New(strings.TrimSpace(text)))
}

// Run executes q on a pool connection and returns its rows, decoded lazily from the
// RowBinaryWithNamesAndTypes result.
//
// Settings are applied with SET before the statement and reset with SET … = DEFAULT after it;
// readonly is skipped because every query connection already runs with readonly = 2, which may
// not be changed. When ctx has a deadline, max_execution_time is lowered to the whole seconds
// left (at least 1). When ctx ends first, Run returns at once; the statement finishes on its
// own goroutine and only then does the connection go back to the pool, so the pool size bounds
// the statements still running.
func (e *Executor) Run(ctx context.Context, q *compiler.Query) (executor.Rows, error) {
	const op = "run query"
	names, values, err := paramLists(q.Params)
	if err != nil {
		return nil, executor.New(op, executor.ErrInvalidQuery, err)
	}
	set, reset, err := settingStatements(ctx, q.Settings)
	if err != nil {
		return nil, executor.New(op, executor.ErrInternal, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, executor.FromContext(op, err)
	}
	var c *conn
	select {
	case c = <-e.pool:
	case <-e.closed:
		return nil, executor.New(op, executor.ErrUnavailable, errors.New("executor closed"))
	case <-ctx.Done():
		return nil, executor.FromContext(op, ctx.Err())
	}
	done := make(chan result, 1)
	go func() {
		done <- e.runOn(c, q.SQL, set, reset, names, values)
	}()
	var res result
	select {
	case res = <-done:
	case <-ctx.Done():
		return nil, executor.FromContext(op, ctx.Err())
	}
	if res.errText != "" {
		if ctxErr := executor.FromContext(op, ctx.Err()); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, engineError(op, res.errText)
	}
	dec, err := newDecoder(res.data)
	if err != nil {
		return nil, executor.New(op, executor.ErrInternal, fmt.Errorf("decode result: %w", err))
	}
	return &rows{dec: dec, stats: executor.Stats{
		RowsRead: res.stats.rowsRead, BytesRead: res.stats.bytesRead, Elapsed: res.stats.elapsed,
	}}, nil
}

// runOn runs one statement on c with its settings and gives c back to the pool.
func (e *Executor) runOn(c *conn, sql, set, reset string, names, values []string) result {
	healthy := true
	defer func() {
		if !healthy {
			c.close()
			fresh, err := e.newQueryConn()
			if err != nil {
				e.opts.Logger.Error("chdb reconnect", "error", err)
				// Keep the pool size: a broken slot fails its next query instead of hanging.
				fresh = &conn{lib: e.lib}
			}
			c = fresh
		}
		e.pool <- c
	}()
	if c.c == nil {
		healthy = false
		return result{errText: "chdb connection lost"}
	}
	if set != "" {
		if r := c.query(set, outputFormat, nil, nil); r.errText != "" {
			healthy = false
			return r
		}
	}
	res := c.query(sql, outputFormat, names, values)
	if reset != "" {
		if r := c.query(reset, outputFormat, nil, nil); r.errText != "" {
			healthy = false // settings may have leaked into the connection
		}
	}
	return res
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

var settingRE = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// settingStatements returns "SET k = v, …" and "SET k = DEFAULT, …" for the query's settings.
func settingStatements(ctx context.Context, settings []compiler.Setting) (set, reset string, err error) {
	type kv struct{ k, v string }
	var list []kv
	maxExec := int64(-1)
	for _, s := range settings {
		if !settingRE.MatchString(s.Key) {
			return "", "", fmt.Errorf("invalid setting name %q", s.Key)
		}
		if s.Key == "readonly" {
			continue
		}
		v, err := executor.SettingText(s.Value)
		if err != nil {
			return "", "", fmt.Errorf("setting %s: %w", s.Key, err)
		}
		if s.Key == "max_execution_time" {
			if n, ok := asInt(s.Value); ok {
				maxExec = n
				continue
			}
		}
		list = append(list, kv{s.Key, v})
	}
	if dl, ok := ctx.Deadline(); ok {
		left := int64(math.Ceil(time.Until(dl).Seconds()))
		left = max(left, 1)
		if maxExec <= 0 || left < maxExec {
			maxExec = left
		}
	}
	if maxExec >= 0 {
		list = append(list, kv{"max_execution_time", fmt.Sprint(maxExec)})
	}
	if len(list) == 0 {
		return "", "", nil
	}
	var sb, rb strings.Builder
	sb.WriteString("SET ")
	rb.WriteString("SET ")
	for i, s := range list {
		if i > 0 {
			sb.WriteString(", ")
			rb.WriteString(", ")
		}
		sb.WriteString(s.k + " = " + s.v)
		rb.WriteString(s.k + " = DEFAULT")
	}
	return sb.String(), rb.String(), nil
}

func asInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int64:
		return n, true
	case uint64:
		return int64(min(n, math.MaxInt64)), true
	}
	return 0, false
}

// rows decodes a buffered result one row at a time.
type rows struct {
	dec   *decoder
	cur   []any
	err   error
	stats executor.Stats
}

func (r *rows) Columns() []executor.Column { return r.dec.cols }

func (r *rows) Next() bool {
	if r.err != nil || !r.dec.more() {
		return false
	}
	r.cur, r.err = r.dec.row()
	if r.err != nil {
		r.err = executor.New("decode row", executor.ErrInternal, r.err)
		return false
	}
	return true
}

func (r *rows) Values() []any         { return r.cur }
func (r *rows) Err() error            { return r.err }
func (r *rows) Stats() executor.Stats { return r.stats }
func (r *rows) Close() error          { r.dec.off = len(r.dec.buf); return nil }

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
	if !identRE.MatchString(table) {
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
		if !ok || !identRE.MatchString(c) {
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
	e.wmu.Lock()
	if e.writer != nil {
		e.writer.close()
		e.writer = nil
	}
	e.wmu.Unlock()
}
