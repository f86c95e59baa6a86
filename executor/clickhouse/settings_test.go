package clickhouse

import (
	"context"
	"testing"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"
)

// This test sits in package clickhouse because deadlineSetting is internal to the engine.

func TestDeadlineSetting(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2500*time.Millisecond)
	defer cancel()
	tests := []struct {
		name string
		ctx  context.Context
		in   ch.Settings
		want any // max_execution_time afterwards; nil: not set
	}{
		{"no deadline: nothing set", t.Context(), ch.Settings{}, nil},
		{"no deadline: the query's own stays", t.Context(), ch.Settings{"max_execution_time": 30}, 30},
		{"deadline lowers the query's", ctx, ch.Settings{"max_execution_time": 30}, 3},
		{"deadline sets one", ctx, ch.Settings{}, 3},
		{"a lower limit of the query stays", ctx, ch.Settings{"max_execution_time": 1}, 1},
		{"zero (none) is replaced", ctx, ch.Settings{"max_execution_time": 0}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			deadlineSetting(tt.ctx, tt.in)
			if got := tt.in["max_execution_time"]; got != tt.want {
				t.Errorf("max_execution_time = %v, want %v", got, tt.want)
			}
		})
	}
}
