package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/executor/clickhouse"
	"github.com/graphwire/graphwire/internal/xdg"
)

// engineFlags select the engine: --embedded DIR (chDB) or --clickhouse DSN.
type engineFlags struct {
	embedded     string
	clickhouse   string
	cluster      string // --cluster NAME, else $GRAPHWIRE_CLUSTER (with --clickhouse only)
	memoryBudget byteSize
	engineLog    string
	// logger, when set, receives the engine's warnings (serve's, in its log format); nil means
	// text lines on the command's stderr.
	logger *slog.Logger
	// inUse says what works for the command when another process holds the embedded data
	// directory; empty means "stop it first".
	inUse string
}

func (f *engineFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.embedded, "embedded", "", "data directory of the embedded engine (default $GRAPHWIRE_DATA, else ${XDG_DATA_HOME:-$HOME/.local/share}/graphwire/data)")
	fs.StringVar(&f.clickhouse, "clickhouse", "", "ClickHouse server DSN, e.g. clickhouse://127.0.0.1:9000/graphwire")
	fs.StringVar(&f.cluster, "cluster", "", "with --clickhouse: the graph is sharded over this cluster of the server's remote_servers (docs/cluster.md; default $"+clusterEnv+")")
	fs.StringVar(&f.engineLog, "engine-log", "", "append the embedded engine's own log (warnings and worse) to this file; by default it is off")
	fs.Var(&f.memoryBudget, "memory-budget", "memory the embedded engine may use in total, e.g. 8GiB; each statement gets at most budget/pool size; 0 = the engine's default (default half of physical memory or the cgroup limit)")
}

// budget is --memory-budget, else half of the memory this process may use.
func (f *engineFlags) budget() int64 {
	if f.memoryBudget.set {
		return f.memoryBudget.n
	}
	return defaultMemoryBudget()
}

func (f *engineFlags) check() error {
	if f.embedded != "" && f.clickhouse != "" {
		return errors.New("use --embedded or --clickhouse, not both")
	}
	if f.cluster == "" && f.clickhouse != "" {
		f.cluster = os.Getenv(clusterEnv)
	}
	if f.cluster != "" && f.clickhouse == "" {
		return errors.New("--cluster needs --clickhouse: the DSN of one of the cluster's servers")
	}
	if f.cluster != "" && !executor.ValidIdent(f.cluster) {
		return fmt.Errorf("--cluster %q: a cluster name is letters, digits and _", f.cluster)
	}
	return nil
}

// clusterEnv is --cluster's default.
const clusterEnv = "GRAPHWIRE_CLUSTER"

func (f *engineFlags) describe() string {
	if f.cluster != "" {
		return "clickhouse cluster " + f.cluster
	}
	if f.clickhouse != "" {
		return "clickhouse"
	}
	return "embedded " + f.dataDir()
}

// dataDir is --embedded, else $GRAPHWIRE_DATA, else graphwire/data under the XDG data home
// (${XDG_DATA_HOME:-$HOME/.local/share}): a seeded graph is data, not a cache.
func (f *engineFlags) dataDir() string {
	if f.embedded != "" {
		return f.embedded
	}
	if d := os.Getenv("GRAPHWIRE_DATA"); d != "" {
		return d
	}
	return filepath.Join(xdg.Dir("XDG_DATA_HOME", ".local", "share"), "graphwire", "data")
}

// engine is what seed and sql use of an executor.
type engine interface {
	executor.Executor
	executor.Loader
}

// open opens the selected engine for reading. An embedded data directory that is missing or
// empty is "no graph" and is left as it is.
func (f *engineFlags) open(stderr io.Writer) (engine, error) { return f.openEngine(stderr, false) }

// openWritable opens the selected engine for commands that create the schema; on a server it
// first creates the DSN's database when it is missing.
func (f *engineFlags) openWritable(stderr io.Writer) (engine, error) {
	return f.openEngine(stderr, true)
}

func (f *engineFlags) openEngine(stderr io.Writer, write bool) (engine, error) {
	logger := f.logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	if f.clickhouse != "" {
		e, err := clickhouse.Open(clickhouse.Options{DSN: f.clickhouse, CreateDatabase: write, Cluster: f.cluster, Logger: logger})
		if err != nil || f.cluster == "" {
			return e, err
		}
		if err := f.openCluster(e, write); err != nil {
			e.Close()
			return nil, err
		}
		return e, nil
	}
	dir := f.dataDir()
	if !write {
		ok, err := hasData(dir)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, f.errNoGraph()
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	eng, err := chdb.Open(chdb.Options{Library: chdb.DefaultLibrary(), Path: dir, MemoryBudget: f.budget(), EngineLog: f.engineLog, Logger: logger})
	if err != nil && dirLocked(dir) {
		hint := f.inUse
		if hint == "" {
			hint = "stop it first"
		}
		return nil, &classError{code: exitUnavailable, err: err, msg: fmt.Sprintf("the data directory %s is in use by another process "+
			"(a running `graphwire serve`?): %s", dir, hint)}
	}
	return eng, err
}

// sqlFlags are the parsed flags of graphwire sql.
type sqlFlags struct {
	engine  engineFlags
	output  string
	timeout time.Duration
	query   string
}

func newSQLCmd(s streams) *cobra.Command {
	var f sqlFlags
	cmd := &cobra.Command{
		Use:   "sql [flags] ['SELECT …' | -]",
		Short: "run read-only SQL against the graph, for debugging",
		Long: "Run read-only SQL against the graph, for debugging. The statement is the arguments joined by\n" +
			"spaces, or standard input when the argument is - or missing.",
		Example: "  graphwire sql 'SELECT count() FROM gl_user'\n  echo 'SELECT 1' | graphwire sql --format json",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.finish(args, s.stdin); err != nil {
				return &usageError{err}
			}
			return runSQL(cmd.Context(), f, s.stdout, s.stderr)
		},
	}
	fs := cmd.Flags()
	f.engine.register(fs)
	f.engine.inUse = "stop it first (a server answers the query language, `graphwire query --server ADDR`, not SQL)"
	fs.StringVar(&f.output, "format", "table", "table (aligned columns) or json (one object per row)")
	deprecatedAlias(fs, "format", "output", s.stderr)
	fs.DurationVar(&f.timeout, "timeout", 0, "give up after this long, e.g. 30s (0: no limit beyond the engine's own)")
	completeWords(cmd, "format", "table", "json")
	return cmd
}

func (f *sqlFlags) finish(args []string, stdin io.Reader) error {
	if f.output != "table" && f.output != "json" {
		return fmt.Errorf("unknown --format %q (want table or json)", f.output)
	}
	if f.timeout < 0 {
		return errors.New("--timeout must not be negative")
	}
	f.query = strings.TrimSpace(strings.Join(args, " "))
	if f.query == "-" || f.query == "" {
		if isTerminal(stdin) {
			return errors.New("no query given: pass the SQL as an argument, or pipe it in")
		}
		b, err := io.ReadAll(stdin)
		if err != nil {
			return fmt.Errorf("read query: %w", err)
		}
		f.query = strings.TrimSpace(string(b))
	}
	if f.query == "" {
		return errors.New("no query given")
	}
	if m := formatClauseRE.FindStringSubmatch(f.query); m != nil {
		// The engine answers in RowBinary, which graphwire decodes and prints itself; a FORMAT
		// clause of the query's own would make it answer in that format instead.
		return fmt.Errorf("the query ends with FORMAT %s: graphwire sql prints the rows itself (--format table or json); drop the FORMAT clause", m[1])
	}
	return f.engine.check()
}

// formatClauseRE finds a FORMAT clause at the end of a statement (before an optional ';').
var formatClauseRE = regexp.MustCompile(`(?is)\bFORMAT\s+([A-Za-z][A-Za-z0-9_]*)\s*;?\s*$`)

// runSQL is the running half of graphwire sql.
func runSQL(ctx context.Context, f sqlFlags, stdout, stderr io.Writer) error {
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	eng, err := f.engine.open(stderr)
	if err != nil {
		return err
	}
	defer eng.Close()
	// Read-only whatever the engine's defaults: readonly = 2 still lets SETTINGS clauses work.
	ro := []compiler.Setting{{Key: "readonly", Value: int64(2)}}
	if writeRE.MatchString(f.query) {
		if err := refuseWrites(ctx, eng, f.query, ro); err != nil {
			return err
		}
	}
	q := &compiler.Query{SQL: f.query, Settings: ro}
	return statementError(querySQL(ctx, eng, q, f.output, stdout))
}

// writeRE finds the words OUTFILE and INSERT anywhere: a statement without either cannot
// write a file.
var writeRE = regexp.MustCompile(`(?i)OUTFILE|INSERT`)

// refuseWrites refuses a statement that writes a file: one with an INTO OUTFILE clause, or
// one that holds an INSERT. readonly stops neither: the embedded engine writes an OUTFILE
// itself, as its client would, and readonly = 2 refuses INSERT INTO a table but not INSERT
// INTO FUNCTION file(…), which writes, appends to or empties any file the process may write
// (EXPLAIN PIPELINE of one opens the file, emptying it, without running the statement).
// Which words are clauses is the engine's parser's call, not a pattern's (a word may sit in a
// string or a comment): its AST holds the file's name as a literal right under the
// statement, where no other clause puts one, and an INSERT as an InsertQuery node at any
// depth (under EXPLAIN too).
func refuseWrites(ctx context.Context, eng executor.Executor, sql string, ro []compiler.Setting) error {
	rows, err := eng.Run(ctx, &compiler.Query{SQL: "EXPLAIN AST " + sql, Settings: ro})
	if err != nil {
		return statementError(err)
	}
	ast, err := executor.Collect(rows)
	if err != nil {
		return statementError(err)
	}
	for _, r := range ast.Rows {
		line, _ := r[0].(string)
		if strings.HasPrefix(line, " Literal ") {
			return &classError{code: exitInvalid, msg: "the statement writes a file (INTO OUTFILE) and graphwire sql only reads: drop the clause and redirect the output instead (graphwire sql --format json ... > FILE)"}
		}
		if strings.HasPrefix(strings.TrimLeft(line, " "), "InsertQuery") {
			return &classError{code: exitInvalid, msg: "the statement writes (INSERT) and graphwire sql only reads: load rows with graphwire load, and redirect the output of a SELECT to write a file (graphwire sql --format json ... > FILE)"}
		}
	}
	return nil
}

// statementCodes are the ClickHouse exception codes of a statement the engine refuses as
// written. For graphwire sql the user's SQL is at fault (exit 3, invalid input); the executor
// files them as internal errors because for a compiled statement they would mean a compiler
// bug.
var statementCodes = map[int]bool{
	16: true, 36: true, 42: true, 43: true, 44: true, 46: true, 47: true, 53: true, // NO_SUCH_COLUMN_IN_TABLE, BAD_ARGUMENTS, NUMBER_OF_ARGUMENTS_DOESNT_MATCH, ILLEGAL_TYPE_OF_ARGUMENT, ILLEGAL_COLUMN, UNKNOWN_FUNCTION, UNKNOWN_IDENTIFIER, TYPE_MISMATCH
	60: true, 62: true, 81: true, 115: true, 164: true, 179: true, 184: true, 215: true, // UNKNOWN_TABLE, SYNTAX_ERROR, UNKNOWN_DATABASE, UNKNOWN_SETTING, READONLY, MULTIPLE_EXPRESSIONS_FOR_ALIAS, ILLEGAL_AGGREGATION, NOT_AN_AGGREGATE
	352: true, 386: true, // AMBIGUOUS_COLUMN_NAME, NO_COMMON_TYPE
}

// marker is the setting the embedded executor appends to every statement (a log_comment that
// names it for KILL QUERY), in a SETTINGS clause of its own or after the statement's; the
// engine quotes it back in its messages.
var marker = regexp.MustCompile(`(\s+SETTINGS|,) log_comment = 'graphwire-[0-9a-f]+-[0-9]+'`)

// statementError files an engine's refusal of the statement's text as invalid input and drops
// the executor's own additions from the message the engine quoted.
func statementError(err error) error {
	var ee *executor.Error
	if !errors.As(err, &ee) || !statementCodes[ee.Code] {
		return err
	}
	return &classError{code: exitInvalid, err: err, msg: fmt.Sprintf("the engine refused the statement (code %d): %s", ee.Code, marker.ReplaceAllString(ee.Err.Error(), ""))}
}

func querySQL(ctx context.Context, e executor.Executor, q *compiler.Query, output string, w io.Writer) error {
	rows, err := e.Run(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	if output == "json" {
		return writeJSONRows(w, rows)
	}
	return writeTable(w, rows)
}

// writeJSONRows writes one JSON object per row, keys in column order.
func writeJSONRows(w io.Writer, rows executor.Rows) error {
	cols := rows.Columns()
	keys := make([][]byte, len(cols))
	for i, c := range cols {
		keys[i], _ = json.Marshal(c.Name)
	}
	var line []byte
	for rows.Next() {
		line = append(line[:0], '{')
		for i, v := range rows.Values() {
			if i > 0 {
				line = append(line, ',')
			}
			line = append(line, keys[i]...)
			line = append(line, ':')
			b, err := json.Marshal(jsonValue(v))
			if err != nil {
				return fmt.Errorf("encode column %s: %w", cols[i].Name, err)
			}
			line = append(line, b...)
		}
		line = append(line, '}', '\n')
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return rows.Err()
}

// jsonValue maps the executor value model to JSON: dates as "YYYY-MM-DD", times as RFC 3339.
// Integers, uint64 included, stay exact JSON numbers.
func jsonValue(v any) any {
	switch x := v.(type) {
	case executor.Date:
		return x.String()
	case time.Time:
		return x.Format(time.RFC3339Nano)
	case []any:
		out := make([]any, len(x))
		for i, it := range x {
			out[i] = jsonValue(it)
		}
		return out
	}
	return v
}

// writeTable writes an aligned table: a header, a rule, the rows and a row count.
func writeTable(w io.Writer, rows executor.Rows) error {
	cols := rows.Columns()
	header := make([]string, len(cols))
	for i, c := range cols {
		header[i] = c.Name
	}
	var cells [][]string
	for rows.Next() {
		vals := rows.Values()
		line := make([]string, len(vals))
		for i, v := range vals {
			line[i] = tableCell(v)
		}
		cells = append(cells, line)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	widths := make([]int, len(cols))
	for _, line := range append([][]string{header}, cells...) {
		for i, c := range line {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	writeLine := func(line []string) {
		for i, c := range line {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(c)
			if i < len(line)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)))
			}
		}
		b.WriteString("\n")
	}
	writeLine(header)
	rule := make([]string, len(cols))
	for i := range rule {
		rule[i] = strings.Repeat("-", widths[i])
	}
	writeLine(rule)
	for _, line := range cells {
		writeLine(line)
	}
	fmt.Fprintf(&b, "(%d rows)\n", len(cells))
	_, err := io.WriteString(w, b.String())
	return err
}

// cellEscaper keeps a string cell on its line. It is built once: a Replacer builds its lookup
// table on first use, which tableCell would otherwise pay for with every string value.
var cellEscaper = strings.NewReplacer("\\", `\\`, "\n", `\n`, "\t", `\t`, "\r", `\r`, "\x00", `\0`)

// tableCell renders one value on one line: NULL for nil, control characters escaped.
func tableCell(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return cellEscaper.Replace(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64: // a UInt64 above math.MaxInt64
		return strconv.FormatUint(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case time.Time:
		return x.Format("2006-01-02 15:04:05.999999999")
	case executor.Date:
		return x.String()
	case []any:
		parts := make([]string, len(x))
		for i, it := range x {
			parts[i] = tableCell(it)
			if s, ok := it.(string); ok {
				parts[i] = strconv.Quote(s)
			}
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}
