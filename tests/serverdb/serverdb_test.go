package serverdb

import (
	"strings"
	"testing"
)

func TestWithDatabase(t *testing.T) {
	tests := []struct{ dsn, db, want string }{
		{"clickhouse://127.0.0.1:9000/default", "gw_x", "clickhouse://127.0.0.1:9000/gw_x"},
		{"http://u:p@127.0.0.1:8123/default?dial_timeout=2s", "gw_x", "http://u:p@127.0.0.1:8123/gw_x?dial_timeout=2s"},
		{"tcp://127.0.0.1:9000", "gw_x", "tcp://127.0.0.1:9000/gw_x"},
	}
	for _, tt := range tests {
		got, err := WithDatabase(tt.dsn, tt.db)
		if err != nil || got != tt.want {
			t.Errorf("WithDatabase(%q, %q) = %q, %v; want %q", tt.dsn, tt.db, got, err, tt.want)
		}
	}
	if _, err := WithDatabase("clickhouse://127.0.0.1:x/default", "gw_x"); err == nil {
		t.Error("WithDatabase accepted a DSN that does not parse")
	}
}

func TestDBName(t *testing.T) {
	a, err := dbName("gw_test")
	if err != nil || !strings.HasPrefix(a, "gw_test_") {
		t.Fatalf("dbName(gw_test) = %q, %v", a, err)
	}
	for _, bad := range []string{"", "Gw", "gw-test", "1gw", "gw test; DROP"} {
		if _, err := dbName(bad); err == nil {
			t.Errorf("dbName(%q) accepted", bad)
		}
	}
}
