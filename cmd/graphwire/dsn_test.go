package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestClickHouseDSNExitCodes: a --clickhouse DSN with a typo is a usage error (exit 2) saying
// what is wrong, on every command that takes one; a DSN naming a server that is not
// ClickHouse is unavailable (exit 7) and says so.
func TestClickHouseDSNExitCodes(t *testing.T) {
	plain := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(plain.Close)
	q := `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1]}]}`
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sql", "--clickhouse", "postgres://127.0.0.1:9000/graphwire", "SELECT 1"}, exitUsage, `unknown scheme "postgres"`},
		{[]string{"query", "--clickhouse", "clickhouse://127.0.0.1:123456/graphwire", "--admin", q}, exitUsage, `port "123456"`},
		{[]string{"seed", "--clickhouse", "clickhouse:///graphwire", "--scale", "0.01"}, exitUsage, "no host"},
		{[]string{"export", "--clickhouse", "127.0.0.1:9000", t.TempDir()}, exitUsage, "no scheme"},
		{[]string{"sql", "--clickhouse", "http://" + plain.Listener.Addr().String() + "/graphwire", "SELECT 1"}, exitUnavailable, "does not answer as ClickHouse's HTTP interface"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[:3], " "), func(t *testing.T) {
			r := runCLI(tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, want %d and a message saying %s\n%s", r.code, tt.code, tt.want, r.stderr)
			}
		})
	}
}
