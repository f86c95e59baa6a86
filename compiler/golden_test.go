package compiler_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/graphwire/graphwire/compiler"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/ontology"
)

var (
	compilerOnce sync.Once
	theCompiler  *compiler.Compiler
	compilerErr  error
)

// newCompiler returns a compiler over the embedded v1 ontology, shared by the tests.
func newCompiler(tb testing.TB) *compiler.Compiler {
	tb.Helper()
	compilerOnce.Do(func() {
		ont, err := ontology.Load(ontologyfiles.Files())
		if err != nil {
			compilerErr = err
			return
		}
		keys, err := compiler.NewCursorKeys(testCursorKey)
		if err != nil {
			compilerErr = err
			return
		}
		theCompiler, compilerErr = compiler.New(ont, compiler.Options{CursorKeys: keys})
	})
	if compilerErr != nil {
		tb.Fatalf("new compiler: %v", compilerErr)
	}
	return theCompiler
}

// specCaller is the caller of the golden cases that have no caller.json, the six worked
// examples among them (docs/compiler.md, "Tests"): user 1, Developer (30) on "100/".
// testCursorKey signs the cursors of the package's tests, so that the golden cursors verify.
var testCursorKey = []byte("graphwire compiler tests: the cursor key")

// signed returns payload as a cursor signed with testCursorKey for caller.
func signed(caller *compiler.Caller, payload string) string {
	keys, err := compiler.NewCursorKeys(testCursorKey)
	if err != nil {
		panic(err) // a fixed key of the right length
	}
	return keys.Sign(caller, []byte(payload))
}

var specCaller = &compiler.Caller{Subject: "1", Scopes: []compiler.Scope{{Path: "100/", Level: 30}}}

// callerFile is the optional caller.json of a golden case.
type callerFile struct {
	Admin  bool `json:"admin"`
	Scopes []struct {
		Path  string `json:"path"`
		Level int    `json:"access_level"`
	} `json:"scopes"`
}

func parseCaller(t testing.TB, data []byte) *compiler.Caller {
	if data == nil {
		return specCaller
	}
	var cf callerFile
	if err := json.Unmarshal(data, &cf); err != nil {
		t.Fatalf("caller.json: %v", err)
	}
	c := &compiler.Caller{Subject: "1", Admin: cf.Admin}
	for _, s := range cf.Scopes {
		c.Scopes = append(c.Scopes, compiler.Scope{Path: s.Path, Level: s.Level})
	}
	return c
}

// formatParams renders parameters one per line with their canonical text.
func formatParams(t *testing.T, ps []compiler.Param) string {
	var b strings.Builder
	for _, p := range ps {
		text, err := executor.ParamText(p)
		if err != nil {
			t.Fatalf("param %s: %v", p.Name, err)
		}
		fmt.Fprintf(&b, "%s %s %s\n", p.Name, p.Type, text)
	}
	return b.String()
}

// TestGolden compiles testdata/golden/*.txtar (query.json, optional caller.json) and compares
// the SQL with want.sql and the parameters with want.params. UPDATE_GOLDEN=true rewrites them.
func TestGolden(t *testing.T) {
	c := newCompiler(t)
	files, err := filepath.Glob("testdata/golden/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	update := os.Getenv("UPDATE_GOLDEN") == "true"
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sections := map[string][]byte{}
			for _, f := range ar.Files {
				sections[f.Name] = f.Data
			}
			q, err := c.Compile(sections["query.json"], parseCaller(t, sections["caller.json"]))
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			gotSQL, gotParams := q.SQL+"\n", formatParams(t, q.Params)
			if update {
				var out []txtar.File
				for _, f := range ar.Files {
					if f.Name != "want.sql" && f.Name != "want.params" {
						out = append(out, f)
					}
				}
				ar.Files = append(out, txtar.File{Name: "want.sql", Data: []byte(gotSQL)}, txtar.File{Name: "want.params", Data: []byte(gotParams)})
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if diff := cmp.Diff(string(sections["want.sql"]), gotSQL); diff != "" {
				t.Errorf("SQL mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(string(sections["want.params"]), gotParams); diff != "" {
				t.Errorf("params mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestConcurrentCompile shares one Compiler between goroutines (run with -race) and checks
// that every goroutine gets byte-identical output.
func TestConcurrentCompile(t *testing.T) {
	c := newCompiler(t)
	queries := seedQueries(t)
	want := make([]string, len(queries))
	for i, q := range queries {
		if cq, err := c.Compile([]byte(q), specCaller); err == nil {
			want[i] = cq.SQL
		}
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i, q := range queries {
				cq, err := c.Compile([]byte(q), specCaller)
				got := ""
				if err == nil {
					got = cq.SQL
				}
				if got != want[i] {
					t.Errorf("query %d: output differs between runs", i)
				}
			}
		})
	}
	wg.Wait()
}
