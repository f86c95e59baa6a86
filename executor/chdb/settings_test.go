package chdb

import (
	"testing"
	"time"

	"github.com/graphwire/graphwire/compiler"
)

// This test sits in package chdb because statementSQL is internal to the engine.

func TestStatementSQL(t *testing.T) {
	compiled := []compiler.Setting{
		{Key: "max_execution_time", Value: int64(30)},
		{Key: "max_memory_usage", Value: int64(4294967296)},
		{Key: "readonly", Value: int64(2)},
	}
	soon := 4500*time.Millisecond + 300*time.Microsecond // 4.501 s: rounded up to the millisecond
	tests := []struct {
		name string
		q    compiler.Query
		lim  limits
		want string
	}{
		{
			name: "compiled SQL is authoritative: nothing repeated",
			q:    compiler.Query{SQL: "SELECT 1\nSETTINGS max_execution_time = 30, max_memory_usage = 4294967296", Settings: compiled},
			want: "SELECT 1\nSETTINGS max_execution_time = 30, max_memory_usage = 4294967296",
		},
		{
			name: "marker, deadline and memory cap extend the clause",
			q:    compiler.Query{SQL: "SELECT 1\nSETTINGS max_execution_time = 30, max_memory_usage = 4294967296", Settings: compiled},
			lim:  limits{left: soon, queryMemory: 1 << 30, marker: "graphwire-ab-1"},
			want: "SELECT 1\nSETTINGS max_execution_time = 30, max_memory_usage = 4294967296, max_execution_time = 4.501, timeout_overflow_mode = 'throw', max_memory_usage = 1073741824, log_comment = 'graphwire-ab-1'",
		},
		{
			name: "limits already lower stay",
			q:    compiler.Query{SQL: "SELECT 1 SETTINGS max_execution_time = 2, max_memory_usage = 1000"},
			lim:  limits{left: soon, queryMemory: 1 << 30},
			want: "SELECT 1 SETTINGS max_execution_time = 2, max_memory_usage = 1000, timeout_overflow_mode = 'throw'",
		},
		{
			name: "unlimited memory is capped",
			q:    compiler.Query{SQL: "SELECT 1 SETTINGS max_memory_usage = 0"},
			lim:  limits{queryMemory: 1 << 30},
			want: "SELECT 1 SETTINGS max_memory_usage = 0, max_memory_usage = 1073741824",
		},
		{
			name: "no clause: settings get one, readonly skipped",
			q:    compiler.Query{SQL: "SELECT 1;\n", Settings: compiled},
			want: "SELECT 1\nSETTINGS max_execution_time = 30, max_memory_usage = 4294967296",
		},
		{
			name: "no settings: SQL unchanged",
			q:    compiler.Query{SQL: "SELECT 1 -- note\n"},
			want: "SELECT 1 -- note\n",
		},
		{
			name: "a line comment at the end does not swallow the clause",
			q:    compiler.Query{SQL: "SELECT 1 -- note"},
			lim:  limits{marker: "m"},
			want: "SELECT 1 -- note\nSETTINGS log_comment = 'm'",
		},
		{
			name: "SETTINGS in a subquery, a string or a comment is not the clause",
			q: compiler.Query{
				SQL: "SELECT 'SETTINGS a = 1' AS s FROM (SELECT 1 SETTINGS max_threads = 1) /* SETTINGS b = 2 */",
			},
			lim:  limits{marker: "m"},
			want: "SELECT 'SETTINGS a = 1' AS s FROM (SELECT 1 SETTINGS max_threads = 1) /* SETTINGS b = 2 */\nSETTINGS log_comment = 'm'",
		},
		{
			name: "a column named settings is not the clause",
			q:    compiler.Query{SQL: "SELECT 1 AS settings"},
			lim:  limits{marker: "m"},
			want: "SELECT 1 AS settings\nSETTINGS log_comment = 'm'",
		},
		{
			name: "string values in the clause",
			q:    compiler.Query{SQL: "SELECT 1 SETTINGS join_algorithm = 'hash', use_query_cache = true"},
			lim:  limits{marker: "m"},
			want: "SELECT 1 SETTINGS join_algorithm = 'hash', use_query_cache = true, log_comment = 'm'",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := statementSQL(&tt.q, tt.lim)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("statementSQL =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
	t.Run("invalid setting name", func(t *testing.T) {
		_, err := statementSQL(&compiler.Query{SQL: "SELECT 1", Settings: []compiler.Setting{{Key: "a; DROP", Value: int64(1)}}}, limits{})
		if err == nil {
			t.Fatal("err = nil, want an error for the setting name")
		}
	})
}
