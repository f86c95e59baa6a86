package load

import (
	"context"
	"log/slog"
	"time"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/internal/cputime"
)

// traced is an [Engine] that logs every statement, how long the engine took to run it and,
// where the platform tells, the CPU time the process used meanwhile (all its threads, the
// engine's background merges included), at debug level: where a load spends its time
// (graphwire load --trace).
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
	defer t.timed(start(), sql)
	return t.Engine.Exec(ctx, sql)
}

func (t traced) Run(ctx context.Context, q *compiler.Query) (executor.Rows, error) {
	defer t.timed(start(), q.SQL)
	return t.Engine.Run(ctx, q)
}

func (t traced) Insert(ctx context.Context, table string, columns []string, rows [][]any) error {
	defer t.timed(start(), "INSERT INTO "+table+" (Go rows)")
	return t.Engine.Insert(ctx, table, columns, rows)
}

// mark is when a statement started: the wall clock and the process's CPU time.
type mark struct {
	wall   time.Time
	cpu    time.Duration
	hasCPU bool
}

func start() mark {
	cpu, ok := cputime.Process()
	return mark{wall: time.Now(), cpu: cpu, hasCPU: ok}
}

func (t traced) timed(m mark, sql string) {
	wall := time.Since(m.wall).Seconds()
	if len(sql) > 160 {
		sql = sql[:160] + "…"
	}
	if cpu, ok := cputime.Process(); ok && m.hasCPU {
		t.log.Debug("load_statement", "seconds", wall, "cpu_seconds", (cpu - m.cpu).Seconds(), "sql", sql)
		return
	}
	t.log.Debug("load_statement", "seconds", wall, "sql", sql)
}
