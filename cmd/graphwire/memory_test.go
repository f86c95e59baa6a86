package main

import "testing"

func TestParseByteSize(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{"0", 0, false},
		{"4096", 4096, false},
		{"2GiB", 2 << 30, false},
		{"512MiB", 512 << 20, false},
		{"512m", 512 << 20, false},
		{"1.5GB", 1_500_000_000, false},
		{"8 GiB", 8 << 30, false},
		{"100B", 100, false},
		{"", 0, true},
		{"GiB", 0, true},
		{"-1GiB", 0, true},
		{"lots", 0, true},
		{"1e30", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseByteSize(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseByteSize(%q) err = %v, wantErr %v", tt.in, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("parseByteSize(%q) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}

func TestDefaultMemoryBudget(t *testing.T) {
	total := physicalMemory()
	if total == 0 {
		t.Skip("no /proc/meminfo on this system")
	}
	if got := defaultMemoryBudget(); got <= 0 || got > total/2 {
		t.Errorf("defaultMemoryBudget() = %d, want 1..%d (half of MemTotal at most)", got, total/2)
	}
}
