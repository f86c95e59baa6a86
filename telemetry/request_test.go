package telemetry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/graphwire/graphwire/telemetry"
)

var newID = regexp.MustCompile(`^[0-9a-f]{32}$`)

func TestRequestID(t *testing.T) {
	tests := []struct {
		name, incoming string
		keep           bool
	}{
		{"sane", "abc-DEF_1.2:3/4+5=", true},
		{"longest", strings.Repeat("a", telemetry.MaxRequestIDBytes), true},
		{"empty", "", false},
		{"too long", strings.Repeat("a", telemetry.MaxRequestIDBytes+1), false},
		{"space", "a b", false},
		{"newline", "a\nlevel=ERROR", false},
		{"quote", `a"b`, false},
		{"non-ASCII", "abc\u00e9", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := telemetry.RequestID(tt.incoming)
			if tt.keep && got != tt.incoming {
				t.Errorf("RequestID(%q) = %q, want it kept", tt.incoming, got)
			}
			if !tt.keep && !newID.MatchString(got) {
				t.Errorf("RequestID(%q) = %q, want a new 32-hex id", tt.incoming, got)
			}
		})
	}
	if a, b := telemetry.RequestID(""), telemetry.RequestID(""); a == b {
		t.Errorf("two new ids are equal: %s", a)
	}
}

func TestLogHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(telemetry.NewLogHandler(slog.NewJSONHandler(&buf, nil))).With("face", "grpc").WithGroup("g")
	ctx := telemetry.WithCall(context.Background(), &telemetry.Call{ID: "req-1"})
	log.InfoContext(ctx, "with", "k", 1)
	log.InfoContext(context.Background(), "without", "k", 2)
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	if len(lines) != 2 {
		t.Fatalf("%d lines: %s", len(lines), buf.String())
	}
	var with, without map[string]any
	if err := json.Unmarshal(lines[0], &with); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(lines[1], &without); err != nil {
		t.Fatal(err)
	}
	// The id is the request's, whatever group the logger is in.
	if g, _ := with["g"].(map[string]any); g["request_id"] != "req-1" || with["face"] != "grpc" {
		t.Errorf("line with a call: %s", lines[0])
	}
	if g, _ := without["g"].(map[string]any); g["request_id"] != nil {
		t.Errorf("line without a call has a request id: %s", lines[1])
	}
}

// TestNilMetrics: a nil *Metrics records nothing and does not panic, so a
// library records unconditionally.
func TestNilMetrics(t *testing.T) {
	var m *telemetry.Metrics
	m.Request("grpc", "/m", "OK", "", time.Millisecond)
	m.Engine("traversal", time.Millisecond)
	m.Answer("goon", time.Millisecond, 1, 2, 3)
	m.Rejected("caller")
	m.GraphAnswer("full")
	m.SnapshotLookup(true)
}
