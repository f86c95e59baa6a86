package load

import (
	"errors"
	"math"
	"testing"
)

// TestNextVersion checks the version arithmetic at its limits: a load's version is one above
// the graph's highest and never wraps.
func TestNextVersion(t *testing.T) {
	tests := []struct {
		name    string
		highest uint64
		want    uint64
		wantErr error
	}{
		{name: "empty graph", highest: 0, want: 1},
		{name: "one", highest: 1, want: 2},
		{name: "explicit ceiling", highest: MaxVersion, want: MaxVersion + 1},
		{name: "below the ceiling", highest: MaxVersion - 1, want: MaxVersion},
		{name: "last version left", highest: maxLoadVersion - 1, want: maxLoadVersion},
		{name: "no version left", highest: maxLoadVersion, wantErr: ErrVersionSpace},
		{name: "above int64", highest: maxLoadVersion + 1, wantErr: ErrVersionSpace},
		{name: "uint64 max - 1", highest: math.MaxUint64 - 1, wantErr: ErrVersionSpace},
		{name: "uint64 max", highest: math.MaxUint64, wantErr: ErrVersionSpace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := nextVersion(tt.highest)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("nextVersion(%d) error = %v, want %v", tt.highest, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("nextVersion(%d) = %d, want %d", tt.highest, got, tt.want)
			}
			if err == nil && got <= tt.highest {
				t.Errorf("nextVersion(%d) = %d, not above it", tt.highest, got)
			}
		})
	}
	if MaxVersion >= maxLoadVersion || maxLoadVersion > math.MaxInt64 {
		t.Errorf("MaxVersion %d must leave headroom below maxLoadVersion %d <= MaxInt64", MaxVersion, maxLoadVersion)
	}
}
