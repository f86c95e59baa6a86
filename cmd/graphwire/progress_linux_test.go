package main

import "testing"

// TestDrawProgressOnATerminal: on a terminal, bars are drawn unless GRAPHWIRE_PROGRESS=0.
func TestDrawProgressOnATerminal(t *testing.T) {
	master, slave := openPTY(t)
	defer master.Close()
	defer slave.Close()
	for _, tt := range []struct {
		setting string
		want    bool
	}{
		{"", true},
		{"1", true},
		{"0", false},
	} {
		got, err := drawProgress(slave, tt.setting)
		if err != nil || got != tt.want {
			t.Errorf("drawProgress(terminal, %q) = %v, %v; want %v, nil", tt.setting, got, err, tt.want)
		}
	}
}
