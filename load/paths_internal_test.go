package load

import (
	"os"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/chdb"
)

// TestValidPathSQL: the engine's check of a row's traversal_path accepts exactly the paths
// compiler.ValidPath (the rule tokens' scopes follow) accepts.
func TestValidPathSQL(t *testing.T) {
	lib := os.Getenv("GRAPHWIRE_CHDB_LIB")
	if lib == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and GRAPHWIRE_CHDB_LIB is not set")
		}
		t.Skip("GRAPHWIRE_CHDB_LIB is not set (source <(bash scripts/install-chdb.sh --env))")
	}
	e, err := chdb.Open(chdb.Options{Library: lib, Path: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	paths := []string{
		"1/", "1/22/", "100/101/", "9223372036854775807/", strings.Repeat("7/", 20),
		"", "/", "1", "/1/", "1//", "0/", "01/22/", "1/022/", "99999999999999999999/", "9223372036854775808/",
		"-1/", "+1/", "a/", "1/ ", " 1/", "1/\n", strings.Repeat("7/", 21), "1/:50", "1.0/",
	}
	for _, p := range paths {
		rows, err := e.Run(t.Context(), &compiler.Query{SQL: "SELECT " + validPathSQL("{p:String}"), Params: []compiler.Param{{Name: "p", Type: "String", Value: p}}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := executor.Collect(rows)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := res.Rows[0][0].(bool)
		if n, ok := res.Rows[0][0].(int64); ok {
			got = n != 0
		}
		if n, ok := res.Rows[0][0].(uint64); ok {
			got = n != 0
		}
		if want := compiler.ValidPath(p); got != want {
			t.Errorf("%q: engine says valid = %v, compiler.ValidPath = %v", p, got, want)
		}
	}
}
