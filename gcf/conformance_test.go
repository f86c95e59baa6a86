package gcf_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/gcf"
	"github.com/graphwire/graphwire/internal/conformance"
)

// minFixtures is the size of the vendored GCF v3.5.3 suite.
const minFixtures = 281

// skip lists fixtures not run, each with its reason. An entry that matches
// no fixture fails the run.
var skip = map[string]string{}

func TestConformance(t *testing.T) {
	dir := conformance.Dir(t, "gcf")
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".json") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < minFixtures {
		t.Fatalf("found %d fixtures in %s, want at least %d", len(files), dir, minFixtures)
	}
	used := map[string]bool{}
	ran, skipped := 0, 0
	for _, p := range files {
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if reason, ok := skip[rel]; ok {
			used[rel] = true
			skipped++
			t.Run(rel, func(t *testing.T) { t.Skip(reason) })
			continue
		}
		ran++
		t.Run(rel, func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var raw map[string]json.RawMessage
			if err := json.Unmarshal(data, &raw); err != nil {
				t.Fatalf("parse fixture: %v", err)
			}
			if string(raw["operation"]) == `"encode-error"` {
				runEncodeError(t, raw)
				return
			}
			v, err := gcf.ParseJSON(data)
			if err != nil {
				t.Fatalf("parse fixture: %v", err)
			}
			runFixture(t, v.(*gcf.Object))
		})
	}
	for k := range skip {
		if !used[k] {
			t.Errorf("skip entry %q matches no fixture", k)
		}
	}
	t.Logf("ran=%d skipped=%d", ran, skipped)
}

// TestLocalCases runs our own fixtures under testdata/cases, written in the
// shared conformance format: regressions the shared corpus does not pin.
func TestLocalCases(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "cases", "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no local cases under testdata/cases")
	}
	for _, p := range files {
		rel, _ := filepath.Rel(filepath.Join("testdata", "cases"), p)
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			v, err := gcf.ParseJSON(data)
			if err != nil {
				t.Fatalf("parse fixture: %v", err)
			}
			runFixture(t, v.(*gcf.Object))
		})
	}
}

func get(o *gcf.Object, k string) any {
	v, _ := o.Get(k)
	return v
}

func getStr(o *gcf.Object, k string) string {
	s, _ := get(o, k).(string)
	return s
}

func getObj(o *gcf.Object, k string) *gcf.Object {
	x, _ := get(o, k).(*gcf.Object)
	return x
}

func getInt(o *gcf.Object, k string) int {
	switch x := get(o, k).(type) {
	case int64:
		return int(x)
	case float64:
		return int(x)
	}
	return 0
}

func getFloat(o *gcf.Object, k string) float64 {
	switch x := get(o, k).(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

func getList(o *gcf.Object, k string) []*gcf.Object {
	a, _ := get(o, k).([]any)
	out := make([]*gcf.Object, 0, len(a))
	for _, e := range a {
		out = append(out, e.(*gcf.Object))
	}
	return out
}

func symbolOf(o *gcf.Object) gcf.Symbol {
	return gcf.Symbol{Kind: getStr(o, "kind"), Name: getStr(o, "qualifiedName"), Score: getFloat(o, "score"), Provenance: getStr(o, "provenance"), Distance: getInt(o, "distance")}
}

func edgeOf(o *gcf.Object) gcf.Edge {
	return gcf.Edge{Source: getStr(o, "source"), Target: getStr(o, "target"), Type: getStr(o, "edgeType"), Status: getStr(o, "status")}
}

func graphOf(o *gcf.Object) *gcf.Graph {
	g := &gcf.Graph{Tool: getStr(o, "tool"), Budget: getInt(o, "tokenBudget"), Tokens: getInt(o, "tokensUsed"), PackRoot: getStr(o, "packRoot")}
	for _, s := range getList(o, "symbols") {
		g.Symbols = append(g.Symbols, symbolOf(s))
	}
	for _, e := range getList(o, "edges") {
		g.Edges = append(g.Edges, edgeOf(e))
	}
	return g
}

func setOf(o *gcf.Object) *gcf.Set {
	s := &gcf.Set{Name: getStr(o, "name"), Key: getStr(o, "key")}
	for _, f := range get(o, "fields").([]any) {
		s.Fields = append(s.Fields, f.(string))
	}
	s.Rows = getList(o, "rows")
	return s
}

func setDeltaOf(o *gcf.Object) *gcf.SetDelta {
	d := &gcf.SetDelta{Tool: getStr(o, "tool"), Key: getStr(o, "key"), BaseRoot: getStr(o, "baseRoot"), NewRoot: getStr(o, "newRoot"),
		DeltaTokens: getInt(o, "deltaTokens"), FullTokens: getInt(o, "fullTokens")}
	if fs, ok := get(o, "fields").([]any); ok {
		for _, f := range fs {
			d.Fields = append(d.Fields, f.(string))
		}
	}
	d.Added = getList(o, "added")
	d.Changed = getList(o, "changed")
	if r, ok := get(o, "removed").([]any); ok {
		d.Removed = r
	}
	return d
}

// graphModel renders a decoded graph in the fixture model.
func graphModel(g *gcf.Graph) *gcf.Object {
	o := gcf.NewObject(6)
	o.Set("tool", g.Tool)
	o.Set("tokenBudget", int64(g.Budget))
	o.Set("tokensUsed", int64(g.Tokens))
	o.Set("packRoot", g.PackRoot)
	syms := []any{}
	for _, s := range g.Symbols {
		so := gcf.NewObject(5)
		so.Set("qualifiedName", s.Name)
		so.Set("kind", gcf.KindExpand(s.Kind))
		so.Set("score", s.Score)
		so.Set("provenance", s.Provenance)
		so.Set("distance", int64(s.Distance))
		syms = append(syms, so)
	}
	o.Set("symbols", syms)
	edges := []any{}
	for _, e := range g.Edges {
		eo := gcf.NewObject(4)
		eo.Set("source", e.Source)
		eo.Set("target", e.Target)
		eo.Set("edgeType", e.Type)
		eo.Set("status", e.Status)
		edges = append(edges, eo)
	}
	o.Set("edges", edges)
	return o
}

// subset reports whether every key of want is in got with an equal value;
// arrays must match in length and order.
func subset(want, got any) bool {
	switch w := want.(type) {
	case *gcf.Object:
		g, ok := got.(*gcf.Object)
		if !ok {
			return false
		}
		for _, k := range w.Keys() {
			gv, ok := g.Get(k)
			wv, _ := w.Get(k)
			if !ok || !subset(wv, gv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !subset(w[i], g[i]) {
				return false
			}
		}
		return true
	}
	return valueEqual(want, got)
}

// valueEqual is the structural equality of §2.7.1: objects by membership,
// arrays by order, numbers by exact value.
func valueEqual(a, b any) bool {
	switch x := a.(type) {
	case *gcf.Object:
		y, ok := b.(*gcf.Object)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for _, k := range x.Keys() {
			yv, ok := y.Get(k)
			xv, _ := x.Get(k)
			if !ok || !valueEqual(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !valueEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case int64, float64:
		return numEqual(a, b)
	}
	return a == b
}

func numEqual(a, b any) bool {
	ai, aInt := a.(int64)
	bi, bInt := b.(int64)
	af, aFl := a.(float64)
	bf, bFl := b.(float64)
	switch {
	case aInt && bInt:
		return ai == bi
	case aFl && bFl:
		return af == bf
	case aInt && bFl:
		return floatIsInt(bf, ai)
	case aFl && bInt:
		return floatIsInt(af, bi)
	}
	return false
}

func floatIsInt(f float64, i int64) bool {
	if f != math.Trunc(f) || math.Abs(f) >= 1<<63 {
		return false
	}
	return int64(f) == i
}

// sentinelFor maps an expectedError to its sentinel.
func sentinelFor(code string) error {
	switch code {
	case "duplicate member key":
		return gcf.ErrDuplicateKey
	case "at least two fields":
		return gcf.ErrTooFewFields
	case "zero count":
		return gcf.ErrInvalidCount
	case "already exists":
		return gcf.ErrDeltaConflict
	}
	for _, s := range gcf.Sentinels() {
		if s.Error() == code {
			return s
		}
	}
	return nil
}

func checkErr(t *testing.T, err error, code string) {
	t.Helper()
	s := sentinelFor(code)
	if s == nil {
		t.Fatalf("expectedError %q maps to no sentinel", code)
	}
	if err == nil {
		t.Fatalf("got no error, want %s", code)
	}
	if !errors.Is(err, s) || !strings.Contains(err.Error(), code) {
		t.Fatalf("got error %v, want %s", err, code)
	}
}

func decodeDoc(data []byte) (*gcf.Document, error) {
	return gcf.NewDecoder(bytes.NewReader(data), gcf.Options{}).DecodeDocument()
}

func checkGenericEncode(t *testing.T, input any, expected string) {
	t.Helper()
	got, err := gcf.MarshalValue(input, gcf.Options{})
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	if string(got) != expected {
		t.Fatalf("encode mismatch\ngot:\n%s\nwant:\n%s", got, expected)
	}
	dec, err := gcf.UnmarshalValue(got, gcf.Options{})
	if err != nil {
		t.Fatalf("decode own output: %v", err)
	}
	if !valueEqual(input, dec) {
		t.Fatalf("decode(encode(v)) differs from v")
	}
	again, err := gcf.MarshalValue(dec, gcf.Options{})
	if err != nil || string(again) != string(got) {
		t.Fatalf("re-encode differs (%v):\n%s", err, again)
	}
}

func runFixture(t *testing.T, fx *gcf.Object) {
	op := getStr(fx, "operation")
	input := get(fx, "input")
	expected := get(fx, "expected")
	switch op {
	case "encode":
		exp := expected.(string)
		if strings.HasPrefix(exp, "GCF profile=graph") {
			var b bytes.Buffer
			if err := gcf.NewEncoder(&b, gcf.Options{}).EncodeGraph(graphOf(input.(*gcf.Object))); err != nil {
				t.Fatal(err)
			}
			if b.String() != exp {
				t.Fatalf("got:\n%s\nwant:\n%s", b.String(), exp)
			}
			return
		}
		checkGenericEncode(t, input, exp)
	case "decode":
		doc, err := decodeDoc([]byte(input.(string)))
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		if doc.Graph != nil {
			if !subset(expected, graphModel(doc.Graph)) {
				got, _ := gcf.AppendJSON(nil, graphModel(doc.Graph))
				t.Fatalf("graph mismatch: got %s", got)
			}
			return
		}
		if !valueEqual(expected, doc.Value) {
			got, _ := gcf.AppendJSON(nil, doc.Value)
			want, _ := gcf.AppendJSON(nil, expected)
			t.Fatalf("got %s\nwant %s", got, want)
		}
	case "error":
		var data []byte
		if b64 := getStr(fx, "inputBase64"); b64 != "" {
			var err error
			if data, err = base64.StdEncoding.DecodeString(b64); err != nil {
				t.Fatal(err)
			}
		} else {
			data = []byte(input.(string))
		}
		_, err := decodeDoc(data)
		checkErr(t, err, getStr(fx, "expectedError"))
	case "roundtrip":
		exp := expected.(string)
		checkGenericEncode(t, input, exp)
		dec, err := gcf.UnmarshalValue([]byte(exp), gcf.Options{})
		if err != nil || !valueEqual(input, dec) {
			t.Fatalf("decode expected: %v", err)
		}
	case "roundtrip-wire":
		dec, err := gcf.UnmarshalValue([]byte(input.(string)), gcf.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := gcf.MarshalValue(dec, gcf.Options{})
		if err != nil || string(got) != expected.(string) {
			t.Fatalf("got %q (%v), want %q", got, err, expected)
		}
	case "session":
		s := gcf.NewSession(gcf.Options{})
		for i, c := range getList(fx, "calls") {
			var b bytes.Buffer
			if err := gcf.NewEncoder(&b, gcf.Options{}).EncodeGraphSession(graphOf(getObj(c, "input")), s); err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
			if b.String() != getStr(c, "expected") {
				t.Fatalf("call %d:\ngot:\n%s\nwant:\n%s", i, b.String(), getStr(c, "expected"))
			}
		}
	case "delta":
		if wire, ok := input.(string); ok {
			doc, err := decodeDoc([]byte(wire))
			if err != nil {
				t.Fatal(err)
			}
			base := graphOf(getObj(fx, "base_snapshot"))
			res, err := gcf.ApplyDelta(base, doc.Delta)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := gcf.PackRoot(res)
			want, _ := gcf.PackRoot(graphOf(getObj(fx, "expected_snapshot")))
			if got != getStr(fx, "new_root") || got != want {
				t.Fatalf("root %s, want %s and %s", got, getStr(fx, "new_root"), want)
			}
			return
		}
		o := input.(*gcf.Object)
		d := &gcf.GraphDelta{Tool: getStr(o, "tool"), BaseRoot: getStr(o, "baseRoot"), NewRoot: getStr(o, "newRoot"),
			DeltaTokens: getInt(o, "deltaTokens"), FullTokens: getInt(o, "fullTokens")}
		for _, r := range getList(o, "removed") {
			d.Removed = append(d.Removed, gcf.SymbolKey{Kind: getStr(r, "kind"), Name: getStr(r, "qualifiedName")})
		}
		for _, s := range getList(o, "added") {
			d.Added = append(d.Added, symbolOf(s))
		}
		for _, e := range getList(o, "removedEdges") {
			d.RemovedEdges = append(d.RemovedEdges, edgeOf(e))
		}
		for _, e := range getList(o, "addedEdges") {
			d.AddedEdges = append(d.AddedEdges, edgeOf(e))
		}
		var b bytes.Buffer
		if err := gcf.NewEncoder(&b, gcf.Options{}).EncodeDelta(d); err != nil {
			t.Fatal(err)
		}
		if b.String() != expected.(string) {
			t.Fatalf("got:\n%s\nwant:\n%s", b.String(), expected)
		}
	case "delta-verify":
		doc, err := decodeDoc([]byte(input.(string)))
		if err != nil {
			t.Fatal(err)
		}
		base := graphOf(getObj(fx, "base_snapshot"))
		before, _ := gcf.CanonicalRecords(base)
		_, err = gcf.ApplyDelta(base, doc.Delta)
		checkErr(t, err, getStr(fx, "expectedError"))
		after, _ := gcf.CanonicalRecords(base)
		if !bytes.Equal(before, after) || len(base.Symbols) != len(getList(getObj(fx, "base_snapshot"), "symbols")) {
			t.Fatal("base snapshot modified")
		}
	case "pack-root":
		g := graphOf(input.(*gcf.Object))
		root, err := gcf.PackRoot(g)
		if err != nil {
			t.Fatal(err)
		}
		recs, _ := gcf.CanonicalRecords(g)
		if root != expected.(string) || string(recs) != getStr(fx, "canonicalBytes") {
			t.Fatalf("root %s bytes %q", root, recs)
		}
	case "graph-stream-encode":
		o := input.(*gcf.Object)
		opts := gcf.Options{}
		if oo := getObj(fx, "options"); oo != nil {
			opts.LabeledTrailerCounts, _ = get(oo, "labeledTrailerCounts").(bool)
		}
		var b bytes.Buffer
		se := gcf.NewStreamEncoder(&b, gcf.StreamHeader{Tool: getStr(o, "tool"), Budget: getInt(o, "tokenBudget"), Tokens: getInt(o, "tokensUsed")}, opts)
		for _, s := range getList(o, "symbols") {
			if err := se.WriteNode(symbolOf(s)); err != nil {
				t.Fatal(err)
			}
		}
		for _, e := range getList(o, "edges") {
			if err := se.WriteEdge(edgeOf(e)); err != nil {
				t.Fatal(err)
			}
		}
		if err := se.Close(); err != nil {
			t.Fatal(err)
		}
		if b.String() != expected.(string) {
			t.Fatalf("got:\n%s\nwant:\n%s", b.String(), expected)
		}
	case "generic-pack-root":
		root, err := gcf.SetPackRoot(setOf(input.(*gcf.Object)))
		if err != nil || root != expected.(string) {
			t.Fatalf("root %s (%v), want %s", root, err, expected)
		}
	case "generic-delta":
		var b bytes.Buffer
		if err := gcf.NewEncoder(&b, gcf.Options{}).EncodeSetDelta(setDeltaOf(input.(*gcf.Object))); err != nil {
			t.Fatal(err)
		}
		if b.String() != expected.(string) {
			t.Fatalf("got:\n%s\nwant:\n%s", b.String(), expected)
		}
	case "generic-delta-verify":
		o := input.(*gcf.Object)
		_, root, err := gcf.ApplySetDelta(setOf(getObj(o, "base")), setDeltaOf(getObj(o, "delta")), getStr(o, "expectedNewRoot"))
		checkRootOrErr(t, fx, root, err)
	case "generic-delta-decode":
		o := input.(*gcf.Object)
		d, err := gcf.NewDecoder(strings.NewReader(getStr(o, "wire")), gcf.Options{}).DecodeSetDelta()
		var root string
		if err == nil {
			_, root, err = gcf.ApplySetDelta(setOf(getObj(o, "base")), d, d.NewRoot)
		}
		checkRootOrErr(t, fx, root, err)
	case "generic-delta-session":
		o := input.(*gcf.Object)
		pol := getObj(o, "policy")
		p := gcf.ReanchorPolicy{}
		if getStr(pol, "mode") == "sizeGuard" {
			p.SizeGuard = true
		} else {
			p.FixedN = getInt(pol, "n")
		}
		exp := expected.(*gcf.Object)
		s, full, err := gcf.NewSetSession(setOf(getObj(o, "base")), getStr(o, "tool"), p)
		if err != nil {
			t.Fatal(err)
		}
		if string(full) != getStr(exp, "initialFull") {
			t.Fatalf("initial:\n%s\nwant:\n%s", full, getStr(exp, "initialFull"))
		}
		ems := getList(exp, "emissions")
		ups := getList(o, "updates")
		if len(ems) != len(ups) {
			t.Fatalf("%d emissions for %d updates", len(ems), len(ups))
		}
		for i, u := range ups {
			isFull, wire, err := s.Next(setOf(u))
			if err != nil {
				t.Fatalf("update %d: %v", i, err)
			}
			wantFull, _ := get(ems[i], "isFull").(bool)
			if isFull != wantFull || string(wire) != getStr(ems[i], "wire") {
				t.Fatalf("update %d: full=%v\n%s\nwant full=%v\n%s", i, isFull, wire, wantFull, getStr(ems[i], "wire"))
			}
		}
	default:
		t.Fatalf("unknown operation %q", op)
	}
}

// runEncodeError ingests the raw input with ParseJSON and encodes it; one of
// the two must fail with the expected code.
func runEncodeError(t *testing.T, raw map[string]json.RawMessage) {
	var code string
	if err := json.Unmarshal(raw["expectedError"], &code); err != nil {
		t.Fatal(err)
	}
	v, err := gcf.ParseJSON(raw["input"])
	if err == nil {
		_, err = gcf.MarshalValue(v, gcf.Options{})
	}
	checkErr(t, err, code)
}

func checkRootOrErr(t *testing.T, fx *gcf.Object, root string, err error) {
	t.Helper()
	if code := getStr(fx, "expectedError"); code != "" {
		checkErr(t, err, code)
		return
	}
	if err != nil || root != getStr(fx, "expected") {
		t.Fatalf("root %s (%v), want %s", root, err, getStr(fx, "expected"))
	}
}
