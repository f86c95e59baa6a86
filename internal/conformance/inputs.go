package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/graphresponse"
)

// GoonInputs returns the GraphResponses of the repository's goon/testdata/*.input.json by
// name (the file name without .input.json): the inputs that codec suites without
// conformance data of their own (gcb1, xml) encode.
func GoonInputs(t testing.TB) map[string]*graphresponse.Response {
	t.Helper()
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(root, "goon", "testdata", "*.input.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no inputs under goon/testdata: %v", err)
	}
	out := map[string]*graphresponse.Response{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r, err := graphresponse.Unmarshal(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".input.json")] = r
	}
	return out
}
