package main

import (
	"os"
	"testing"

	"github.com/graphwire/graphwire/executor/chdb"
)

// requireCHDB skips when libchdb.so is missing, or fails under CI=true.
func requireCHDB(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(chdb.DefaultLibrary()); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and libchdb.so is missing at %s (run bash scripts/install-chdb.sh)", chdb.DefaultLibrary())
		}
		t.Skipf("libchdb.so is missing at %s (run bash scripts/install-chdb.sh)", chdb.DefaultLibrary())
	}
}
