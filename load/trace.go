package load

import (
	"context"
	"log/slog"
	"time"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
)

// traced is an [Engine] that logs every statement, and how long the engine took to run it,
// at debug level: where a load spends its time (graphwire load --trace).
type traced struct {
	Engine
	log *slog.Logger
}

// withTrace returns e, wrapped in [traced] when log takes debug records.
func withTrace(ctx context.Context, e Engine, log *slog.Logger) Engine {
	if _, ok := e.(traced); ok || !log.Enabled(ctx, slog.LevelDebug) {
		return e
	}
	return traced{Engine: e, log: log}
}

func (t traced) Exec(ctx context.Context, sql string) error {
	defer t.timed(time.Now(), sql)
	return t.Engine.Exec(ctx, sql)
}

func (t traced) Run(ctx context.Context, q *compiler.Query) (executor.Rows, error) {
	defer t.timed(time.Now(), q.SQL)
	return t.Engine.Run(ctx, q)
}

func (t traced) Insert(ctx context.Context, table string, columns []string, rows [][]any) error {
	defer t.timed(time.Now(), "INSERT INTO "+table+" (Go rows)")
	return t.Engine.Insert(ctx, table, columns, rows)
}

func (t traced) timed(start time.Time, sql string) {
	if len(sql) > 160 {
		sql = sql[:160] + "…"
	}
	t.log.Debug("load_statement", "seconds", time.Since(start).Seconds(), "sql", sql)
}
