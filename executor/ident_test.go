package executor_test

import (
	"testing"

	"github.com/graphwire/graphwire/executor"
)

func TestValidIdent(t *testing.T) {
	for s, want := range map[string]bool{
		"gl_edge": true, "_x": true, "T9": true,
		"": false, "9t": false, "gl-edge": false, "a b": false, "a;DROP": false, "`a`": false, "é": false,
	} {
		if got := executor.ValidIdent(s); got != want {
			t.Errorf("ValidIdent(%q) = %v, want %v", s, got, want)
		}
	}
}
