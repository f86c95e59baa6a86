package gcf_test

import (
	"path/filepath"
	"testing"

	"github.com/graphwire/graphwire/internal/conformance"
)

// goonInput returns the path of a GOON conformance input read in place.
func goonInput(t testing.TB, name string) string {
	return filepath.Join(conformance.Dir(t, "goon"), name+".input.json")
}
