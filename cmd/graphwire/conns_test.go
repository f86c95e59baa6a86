package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/graphwire/graphwire/netlimit"
	"github.com/graphwire/graphwire/serveconfig"
)

// TestSizeConnections: the connection bounds leave the engine its reserve of the
// descriptor limit, however the limit and the flags are set.
func TestSizeConnections(t *testing.T) {
	tests := []struct {
		name        string
		limit       uint64
		open        int
		flags       func(*serveconfig.Config)
		want        netlimit.Options
		wantReserve int
		clamped     bool
		low         bool
	}{
		{"default limit", 20000, 40, nil, netlimit.Options{MaxConns: 18936, MaxPerIP: 4734, MaxUnauthenticated: 4734, MaxPerUser: 4734}, 1024, false, false},
		{"low limit: half reserved", 400, 40, nil, netlimit.Options{MaxConns: 160, MaxPerIP: 40, MaxUnauthenticated: 40, MaxPerUser: 40}, 200, false, false},
		{"limit below the engine's needs", 64, 50, nil, netlimit.Options{MaxConns: 16, MaxPerIP: 4, MaxUnauthenticated: 4, MaxPerUser: 4}, 32, false, true},
		{"unknown limit", 0, 40, nil, netlimit.Options{MaxConns: 4096, MaxPerIP: 1024, MaxUnauthenticated: 1024, MaxPerUser: 1024}, 0, false, false},
		{"infinite limit", ^uint64(0), 40, nil, netlimit.Options{MaxConns: 1<<20 - 40 - 1024, MaxPerIP: (1<<20 - 40 - 1024) / 4, MaxUnauthenticated: (1<<20 - 40 - 1024) / 4, MaxPerUser: (1<<20 - 40 - 1024) / 4}, 1024, false, false},
		{"flags within the budget", 20000, 40, func(c *serveconfig.Config) {
			c.MaxConnections, c.MaxConnectionsPerIP, c.MaxUnauthenticatedConnections, c.EngineFDReserve = 1000, 50, 100, 2000
		}, netlimit.Options{MaxConns: 1000, MaxPerIP: 50, MaxUnauthenticated: 100, MaxPerUser: 250}, 2000, false, false},
		{"total above the budget", 1000, 40, func(c *serveconfig.Config) { c.MaxConnections = 5000 },
			netlimit.Options{MaxConns: 460, MaxPerIP: 115, MaxUnauthenticated: 115, MaxPerUser: 115}, 500, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := serveconfig.Config{EngineFDReserve: 1024}
			if tt.flags != nil {
				tt.flags(&c)
			}
			b := sizeConnections(c, tt.limit, tt.open)
			if diff := cmp.Diff(tt.want, b.opts, cmpopts.IgnoreFields(netlimit.Options{}, "Logger")); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
			if b.reserve != tt.wantReserve || b.clamped != tt.clamped || b.low != tt.low {
				t.Errorf("reserve %d clamped %v low %v, want %d %v %v", b.reserve, b.clamped, b.low, tt.wantReserve, tt.clamped, tt.low)
			}
		})
	}
}
