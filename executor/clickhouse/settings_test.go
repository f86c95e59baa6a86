package clickhouse

import (
	"context"
	"testing"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"
)

// These tests sit in package clickhouse because deadlineSetting is internal to the engine.

// TestLimitTime checks the arithmetic on exact durations left, so that no outcome depends on
// how fast the test runs.
func TestLimitTime(t *testing.T) {
	tests := []struct {
		name string
		left time.Duration
		in   ch.Settings
		want any // max_execution_time afterwards
	}{
		{"deadline lowers the query's", 2500 * time.Millisecond, ch.Settings{"max_execution_time": 30}, 3},
		{"deadline sets one", 2500 * time.Millisecond, ch.Settings{}, 3},
		{"whole seconds stay", 2 * time.Second, ch.Settings{}, 2},
		{"a lower limit of the query stays", 2500 * time.Millisecond, ch.Settings{"max_execution_time": 1}, 1},
		{"zero (none) is replaced", 2500 * time.Millisecond, ch.Settings{"max_execution_time": 0}, 3},
		{"a deadline passed still limits", -time.Second, ch.Settings{}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			limitTime(tt.in, tt.left)
			if got := tt.in["max_execution_time"]; got != tt.want {
				t.Errorf("max_execution_time = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestDeadlineSetting: the context's deadline, when it has one, limits the statement.
func TestDeadlineSetting(t *testing.T) {
	s := ch.Settings{"max_execution_time": 30}
	deadlineSetting(t.Context(), s)
	if got := s["max_execution_time"]; got != 30 {
		t.Errorf("no deadline: max_execution_time = %v, want the query's 30", got)
	}
	s = ch.Settings{}
	deadlineSetting(t.Context(), s)
	if got, ok := s["max_execution_time"]; ok {
		t.Errorf("no deadline: max_execution_time = %v, want none", got)
	}
	// An hour away: whatever the test's speed, between 1 and 3600 seconds.
	ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
	defer cancel()
	s = ch.Settings{"max_execution_time": 7200}
	deadlineSetting(ctx, s)
	if got, ok := s["max_execution_time"].(int); !ok || got < 1 || got > 3600 {
		t.Errorf("deadline in an hour: max_execution_time = %v, want 1 to 3600", s["max_execution_time"])
	}
}
