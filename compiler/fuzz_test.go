package compiler_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/graphwire/graphwire/compiler"
)

// seedQueries returns the query of every golden file and every error case.
func seedQueries(tb testing.TB) []string {
	tb.Helper()
	files, _ := filepath.Glob("testdata/golden/*.txtar")
	var out []string
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		for _, s := range ar.Files {
			if s.Name == "query.json" {
				out = append(out, string(s.Data))
			}
		}
	}
	for _, tt := range errorCases {
		out = append(out, tt.query)
	}
	return append(out, wordSearchSeeds...)
}

// wordSearchSeeds use the word-search operators on every kind of node selector (search,
// traversal, relationship endpoints, neighbors and path centers), so the fuzzer and the
// injection markers reach the values of token_match, all_tokens and any_tokens.
var wordSearchSeeds = []string{
	`{"query_type":"traversal","nodes":[{"id":"n","entity":"Note","filters":{"note":{"token_match":"deadlock"}}}]}`,
	`{"query_type":"traversal","nodes":[{"id":"p","entity":"Project","filters":{"description":{"all_tokens":"graph query engine"},"name":{"any_tokens":"core api"}}}]}`,
	`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","filters":{"username":{"token_match":"alice"}}},{"id":"mr","entity":"MergeRequest"}],"relationships":[{"type":"AUTHORED","from":"u","to":"mr"}]}`,
	`{"query_type":"aggregation","nodes":[{"id":"g","entity":"Group","filters":{"name":{"any_tokens":"platform, infra"}}},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p"}],"group_by":["g"],"aggregations":[{"count":"p"}]}`,
	`{"query_type":"neighbors","nodes":[{"id":"d","entity":"Directory","filters":{"name":{"all_tokens":"internal auth"}}}],"neighbors":{"direction":"both"}}`,
	`{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","filters":{"name":{"all_tokens":"Ada Lovelace"}}},{"id":"p","entity":"Project","filters":{"name":{"token_match":"graphwire"}}}],"path":{"type":"shortest","from":"u","to":"p","max_depth":2,"rel_types":["AUTHORED","IN_PROJECT"]}}`,
	`{"query_type":"traversal","nodes":[{"id":"f","entity":"MergeRequestDiffFile","filters":{"new_path":{"any_tokens":"compiler/check.go"},"old_path":{"all_tokens":"ünïcode 名前 path"}}}]}`,
}

var fuzzCallers = []*compiler.Caller{
	specCaller,
	{Admin: true},
	{},
	{Scopes: []compiler.Scope{{Path: "1/4/", Level: 10}, {Path: "2/", Level: 50}}},
}

// stringValues collects every string in a JSON document (keys and values).
func stringValues(v any, out *[]string) {
	switch x := v.(type) {
	case string:
		*out = append(*out, x)
	case []any:
		for _, e := range x {
			stringValues(e, out)
		}
	case map[string]any:
		for k, e := range x {
			*out = append(*out, k)
			stringValues(e, out)
		}
	}
}

// plainWord reports strings made only of identifier characters and dots: they can name
// columns or aliases the compiler itself prints, but cannot break out of any SQL context.
func plainWord(s string) bool {
	for _, c := range s {
		if !(c == '_' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}

// checkInvariants is the property every compile result must have: errors are
// *compiler.Error, and the SQL carries no request string and one placeholder per parameter.
func checkInvariants(t *testing.T, query []byte, q *compiler.Query, err error) {
	t.Helper()
	if err != nil {
		var ce *compiler.Error
		if !errors.As(err, &ce) {
			t.Fatalf("error %T is not a *compiler.Error: %v", err, err)
		}
		if errors.Is(err, compiler.ErrCompilerBug) || errors.Is(err, compiler.ErrSecurityCheckFailed) {
			t.Fatalf("internal error for %s: %v", query, err)
		}
		return
	}
	var doc any
	d := json.NewDecoder(bytes.NewReader(query))
	d.UseNumber()
	if d.Decode(&doc) == nil {
		var ss []string
		stringValues(doc, &ss)
		for _, s := range ss {
			if len(s) >= 12 && !plainWord(s) && strings.Contains(q.SQL, s) {
				t.Fatalf("request string %q appears in the SQL:\n%s", s, q.SQL)
			}
		}
	}
	for _, p := range q.Params {
		if n := strings.Count(q.SQL, "{"+p.Name+":"+p.Type+"}"); n == 0 {
			t.Fatalf("parameter %s is not used in the SQL", p.Name)
		}
	}
	if strings.Count(q.SQL, "{") != strings.Count(q.SQL, "}") {
		t.Fatalf("unbalanced braces in SQL:\n%s", q.SQL)
	}
}

// FuzzCompile: Compile never panics, fails only with *compiler.Error, and never pastes a
// request string into the SQL text.
func FuzzCompile(f *testing.F) {
	c := newCompiler(f)
	for _, q := range seedQueries(f) {
		for i := range fuzzCallers {
			f.Add([]byte(q), uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, query []byte, who uint8) {
		caller := fuzzCallers[int(who)%len(fuzzCallers)]
		q, err := c.Compile(query, caller)
		checkInvariants(t, query, q, err)
	})
}

// hostile are values that would break naive quoting; each carries a marker.
var hostile = []string{
	`MARKER'); DROP TABLE gl_note; --`,
	`MARKER {p0:String}`,
	`MARKER \N`,
	"MARKER\ttab\nline",
	`MARKER" OR 1=1 --`,
	`MARKER%_`,
}

// TestInjectionMarkers replaces every string value of the seed queries that is not a name
// with hostile marker strings; whatever compiles must not contain the marker.
func TestInjectionMarkers(t *testing.T) {
	c := newCompiler(t)
	compiled := 0
	for qi, seed := range seedQueries(t) {
		var doc any
		d := json.NewDecoder(strings.NewReader(seed))
		d.UseNumber()
		if d.Decode(&doc) != nil {
			continue
		}
		for hi, h := range hostile {
			n := 0
			doc2 := replaceValues(doc, h, &n)
			if n == 0 {
				continue
			}
			b, err := json.Marshal(doc2)
			if err != nil {
				t.Fatal(err)
			}
			for _, caller := range fuzzCallers {
				q, err := c.Compile(b, caller)
				checkInvariants(t, b, q, err)
				if err == nil {
					compiled++
					if strings.Contains(q.SQL, "MARKER") {
						t.Fatalf("seed %d hostile %d: marker in SQL:\n%s", qi, hi, q.SQL)
					}
				}
			}
		}
	}
	if compiled == 0 {
		t.Fatal("no hostile query compiled; the test proves nothing")
	}
	t.Logf("%d hostile queries compiled", compiled)
}

// structural keys hold names, not values.
var structural = map[string]bool{"query_type": true, "id": true, "entity": true, "type": true, "from": true, "to": true,
	"direction": true, "order_by": true, "aggregation_sort": true, "dynamic_columns": true, "truncate": true, "key": true,
	"as": true, "count": true, "sum": true, "avg": true, "min": true, "max": true, "columns": true, "rel_types": true,
	"after": true, "state": true, "status": true, "traversal_path": true}

func replaceValues(v any, marker string, n *int) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if structural[k] {
				out[k] = e
				continue
			}
			out[k] = replaceValues(e, marker, n)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = replaceValues(e, marker, n)
		}
		return out
	case string:
		*n++
		return marker + strconv.Itoa(*n)
	}
	return v
}

// TestWordSearchSeedsCompile keeps wordSearchSeeds useful: each compiles for a scoped caller
// and an administrator, so the fuzzer starts from valid word searches.
func TestWordSearchSeedsCompile(t *testing.T) {
	c := newCompiler(t)
	for i, q := range wordSearchSeeds {
		for _, caller := range []*compiler.Caller{specCaller, {Admin: true}} {
			if _, err := c.Compile([]byte(q), caller); err != nil {
				t.Errorf("seed %d, admin %v: %v", i, caller.Admin, err)
			}
		}
	}
}
