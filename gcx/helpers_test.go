package gcx_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/graphwire/graphwire/gcx"
	"github.com/graphwire/graphwire/graphresponse"
)

// jsonSection is a section as the conformance files spell it.
type jsonSection struct {
	Tool   string            `json:"tool"`
	Fields []string          `json:"fields"`
	Meta   map[string]string `json:"meta"`
	Rows   [][]string        `json:"rows"`
}

func toSections(js []jsonSection) []gcx.Section {
	out := make([]gcx.Section, len(js))
	for i, s := range js {
		out[i] = gcx.Section{Tool: s.Tool, Fields: s.Fields, Meta: s.Meta, Rows: s.Rows}
	}
	return out
}

// sectionOpts compares sections treating nil and empty maps and slices
// alike.
var sectionOpts = cmp.Options{cmpopts.EquateEmpty()}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	if err := json.Unmarshal(readFile(t, path), v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func glob(t testing.TB, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// responseDiff explains why two responses differ, by their raw JSON.
func responseDiff(got, want *graphresponse.Response) string {
	if got.Equal(want) {
		return ""
	}
	return cmp.Diff(string(graphresponse.AppendJSON(nil, want)), string(graphresponse.AppendJSON(nil, got)))
}
