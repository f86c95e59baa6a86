package scorecard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/graphwire/graphwire/config"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/graphgen"
)

// Case groups, in report order.
const (
	GroupGOON      = "goon-conformance"
	GroupGCX       = "gcx-tools"
	GroupSynthetic = "synthetic"
	GroupSeeded    = "seeded"
)

// Case is one corpus entry: a GraphResponse, or a generic JSON document
// (Response nil) that only the value-capable formats can carry.
type Case struct {
	Group string
	Name  string
	// Note says where the case came from and what a conversion dropped.
	Note     string
	Response *graphresponse.Response
	// Tool and JSON describe a generic case: the tool name (the GCX section
	// name) and the document as received, key order and number spelling
	// kept.
	Tool string
	JSON []byte
	// Realistic marks a seeded query result sized like the answers agents
	// meet: [RealisticMin]–[RealisticMax] compact-JSON o200k_base tokens.
	// The report lists these cases with their sizes and says whether each
	// landed in the range.
	Realistic bool
}

// The compact-JSON o200k_base token range of a [Case.Realistic] case.
const (
	RealisticMin = 12000
	RealisticMax = 15000
)

// Generic reports whether c is a generic JSON case.
func (c *Case) Generic() bool { return c.Response == nil }

// SyntheticSize is one synthetic graph of [CorpusOptions.Synthetic].
type SyntheticSize struct{ Nodes, Edges int }

// DefaultSynthetic returns the synthetic graph sizes of the scorecard:
// 10/8, 30/25, 500/200 and 5,000/2,000 nodes/edges.
func DefaultSynthetic() []SyntheticSize {
	return []SyntheticSize{{10, 8}, {30, 25}, {500, 200}, {5000, 2000}}
}

// SyntheticSeed seeds graphgen.Graph for every synthetic case.
const SyntheticSeed = 42

// CorpusOptions selects the corpus. The zero value is the full scorecard
// corpus.
type CorpusOptions struct {
	// Synthetic lists the synthetic graph sizes; nil means
	// [DefaultSynthetic]().
	Synthetic []SyntheticSize
	// Reduced keeps every fourth GOON case, five GCX cases and only the
	// synthetic graphs up to 30 nodes: for fast tests.
	Reduced bool
}

// Corpus builds the fixed corpus from the conformance root conf (the
// directory holding goon/ and gcx/): GOON inputs, then GCX tool responses,
// then synthetic graphs, each group in name order.
func Corpus(conf fs.FS, opts CorpusOptions) ([]Case, error) {
	goonCases, err := GOONCases(conf)
	if err != nil {
		return nil, err
	}
	gcxCases, err := GCXCases(conf)
	if err != nil {
		return nil, err
	}
	sizes := opts.Synthetic
	if sizes == nil {
		sizes = DefaultSynthetic()
	}
	if opts.Reduced {
		goonCases = everyNth(goonCases, 4)
		gcxCases = everyNth(gcxCases, 4)
		sizes = slices.DeleteFunc(slices.Clone(sizes), func(s SyntheticSize) bool { return s.Nodes > 30 })
	}
	out := append(goonCases, gcxCases...)
	return append(out, SyntheticCases(sizes)...), nil
}

func everyNth(cs []Case, n int) []Case {
	var out []Case
	for i := 0; i < len(cs); i += n {
		out = append(out, cs[i])
	}
	return out
}

// GOONCases reads goon/*.input.json of conf, in name order.
func GOONCases(conf fs.FS) ([]Case, error) {
	names, err := fs.Glob(conf, "goon/*.input.json")
	if err != nil {
		return nil, fmt.Errorf("list goon inputs: %w", err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("list goon inputs: no goon/*.input.json in the conformance root")
	}
	slices.Sort(names)
	out := make([]Case, 0, len(names))
	for _, n := range names {
		data, err := fs.ReadFile(conf, n)
		if err != nil {
			return nil, fmt.Errorf("read goon input: %w", err)
		}
		r, err := graphresponse.Unmarshal(data)
		if err != nil {
			return nil, fmt.Errorf("decode %s: %w", n, err)
		}
		out = append(out, Case{
			Group: GroupGOON, Name: strings.TrimSuffix(path.Base(n), ".input.json"),
			Note: "GOON conformance input", Response: r,
		})
	}
	return out, nil
}

// gcxCaseFile is the YAML shape of gcx/cases/*.yaml.
type gcxCaseFile struct {
	Tool        string `yaml:"tool"`
	Description string `yaml:"description"`
	Input       string `yaml:"input"`
}

// GCXCases reads the 20 GCX tool responses of gcx/cases, in name order.
// A `{nodes, edges}` wrapper becomes a GraphResponse (see [ToolGraph]);
// everything else stays generic JSON.
func GCXCases(conf fs.FS) ([]Case, error) {
	names, err := fs.Glob(conf, "gcx/cases/*.yaml")
	if err != nil {
		return nil, fmt.Errorf("list gcx cases: %w", err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("list gcx cases: no gcx/cases/*.yaml in the conformance root")
	}
	slices.Sort(names)
	out := make([]Case, 0, len(names))
	for _, n := range names {
		data, err := fs.ReadFile(conf, n)
		if err != nil {
			return nil, fmt.Errorf("read gcx case: %w", err)
		}
		var f gcxCaseFile
		if err := yaml.Unmarshal(data, &f); err != nil {
			return nil, fmt.Errorf("decode %s: %w", n, err)
		}
		in := []byte(strings.TrimSpace(f.Input))
		if !json.Valid(in) {
			return nil, fmt.Errorf("decode %s: input is not JSON", n)
		}
		c := Case{Group: GroupGCX, Name: strings.TrimSuffix(path.Base(n), ".yaml"), Tool: f.Tool}
		if r, dropped, ok := ToolGraph(in); ok {
			c.Response = r
			c.Note = "tool response as GraphResponse"
			if len(dropped) > 0 {
				c.Note += "; not carried: " + strings.Join(dropped, ", ")
			}
		} else {
			c.JSON = in
			c.Note = "tool response as generic JSON"
		}
		out = append(out, c)
	}
	return out, nil
}

// ToolGraph converts a `{nodes, edges}` tool response into a traversal
// GraphResponse, if it fits: every node an object with string "id" and
// "kind", every edge an object with string "from", "to" and "kind".
// Node type is the kind in PascalCase (gcf-graph rejects its own kind
// words such as "function"); ids are numbered 1, 2, … in order of first
// appearance (nodes first, then edge endpoints), with the tool's string id
// kept as property "key". An edge endpoint that is not among the nodes
// becomes a node of type Symbol carrying only its key, so no edge dangles.
// The wrapper's "truncated" becomes pagination.truncated. What cannot be
// carried (edge attributes, other wrapper keys) is listed in dropped, in
// sorted order.
func ToolGraph(doc []byte) (r *graphresponse.Response, dropped []string, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var root map[string]any
	if err := dec.Decode(&root); err != nil {
		return nil, nil, false
	}
	nodes, ok1 := root["nodes"].([]any)
	edges, ok2 := root["edges"].([]any)
	if !ok1 || !ok2 {
		return nil, nil, false
	}
	r = &graphresponse.Response{
		FormatVersion: config.RawVersion(), QueryType: graphresponse.QueryTraversal,
		Nodes: []graphresponse.Node{}, Edges: []graphresponse.Edge{},
		Pagination: &graphresponse.Pagination{},
	}
	type ref struct {
		typ string
		id  int64
	}
	ids := map[string]ref{}
	drop := map[string]bool{}
	for _, x := range nodes {
		n, ok := x.(map[string]any)
		if !ok {
			return nil, nil, false
		}
		key, ok1 := n["id"].(string)
		kind, ok2 := n["kind"].(string)
		if !ok1 || !ok2 || pascal(kind) == "" {
			return nil, nil, false
		}
		if _, dup := ids[key]; dup {
			return nil, nil, false
		}
		node := graphresponse.Node{Type: pascal(kind), ID: int64(len(r.Nodes) + 1)}
		node.Props = append(node.Props, graphresponse.Member{Key: "key", Value: graphresponse.String(key)})
		for _, k := range sortedKeys(n) {
			if k == "id" || k == "kind" {
				continue
			}
			if k == "key" {
				return nil, nil, false
			}
			v, ok := jsonValue(n[k])
			if !ok {
				return nil, nil, false
			}
			node.Props = append(node.Props, graphresponse.Member{Key: k, Value: v})
		}
		ids[key] = ref{node.Type, node.ID}
		r.Nodes = append(r.Nodes, node)
	}
	endpoint := func(key string) ref {
		if x, ok := ids[key]; ok {
			return x
		}
		x := ref{"Symbol", int64(len(r.Nodes) + 1)}
		ids[key] = x
		r.Nodes = append(r.Nodes, graphresponse.Node{Type: x.typ, ID: x.id,
			Props: []graphresponse.Member{{Key: "key", Value: graphresponse.String(key)}}})
		return x
	}
	for _, x := range edges {
		e, ok := x.(map[string]any)
		if !ok {
			return nil, nil, false
		}
		from, ok1 := e["from"].(string)
		to, ok2 := e["to"].(string)
		kind, ok3 := e["kind"].(string)
		if !ok1 || !ok2 || !ok3 {
			return nil, nil, false
		}
		for k := range e {
			if k != "from" && k != "to" && k != "kind" {
				drop["edges[]."+k] = true
			}
		}
		f, t := endpoint(from), endpoint(to)
		r.Edges = append(r.Edges, graphresponse.Edge{From: f.typ, FromID: f.id, To: t.typ, ToID: t.id, Type: strings.ToUpper(kind)})
	}
	for k, v := range root {
		switch k {
		case "nodes", "edges":
		case "truncated":
			b, ok := v.(bool)
			if !ok {
				return nil, nil, false
			}
			r.Pagination.Truncated = b
		default:
			drop[k] = true
		}
	}
	return r, sortedKeys(drop), true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// pascal turns "method" or "some_kind" into "Method" or "SomeKind"; it
// returns "" for anything that is not a simple identifier.
func pascal(s string) string {
	var b strings.Builder
	up := true
	for _, c := range s {
		switch {
		case c == '_' || c == '-':
			up = true
		case c < utf8.RuneSelf && (unicode.IsLetter(c) || unicode.IsDigit(c)):
			if up {
				c = unicode.ToUpper(c)
				up = false
			}
			b.WriteRune(c)
		default:
			return ""
		}
	}
	if b.Len() == 0 || !unicode.IsLetter(rune(b.String()[0])) {
		return ""
	}
	return b.String()
}

// jsonValue converts a UseNumber-decoded value to a response value.
func jsonValue(x any) (graphresponse.Value, bool) {
	switch v := x.(type) {
	case nil:
		return graphresponse.Null(), true
	case bool:
		return graphresponse.Bool(v), true
	case string:
		return graphresponse.String(v), true
	case json.Number:
		if i, err := v.Int64(); err == nil && !strings.ContainsAny(v.String(), ".eE") {
			return graphresponse.Int(i), true
		}
		f, err := v.Float64()
		if err != nil {
			return graphresponse.Value{}, false
		}
		return graphresponse.Float(f), true
	case []any:
		out := make([]graphresponse.Value, len(v))
		for i, e := range v {
			x, ok := jsonValue(e)
			if !ok {
				return graphresponse.Value{}, false
			}
			out[i] = x
		}
		return graphresponse.Array(out...), true
	case map[string]any:
		ms := make([]graphresponse.Member, 0, len(v))
		for _, k := range sortedKeys(v) {
			x, ok := jsonValue(v[k])
			if !ok {
				return graphresponse.Value{}, false
			}
			ms = append(ms, graphresponse.Member{Key: k, Value: x})
		}
		return graphresponse.Object(ms...), true
	}
	return graphresponse.Value{}, false
}

// SyntheticCases returns one graphgen.Graph traversal per size, seeded
// with [SyntheticSeed].
func SyntheticCases(sizes []SyntheticSize) []Case {
	out := make([]Case, 0, len(sizes))
	for _, s := range sizes {
		out = append(out, Case{
			Group: GroupSynthetic, Name: fmt.Sprintf("graph_%d_%d", s.Nodes, s.Edges),
			Note:     fmt.Sprintf("graphgen.Graph(%d, %d, %d)", SyntheticSeed, s.Nodes, s.Edges),
			Response: graphgen.Graph(SyntheticSeed, s.Nodes, s.Edges),
		})
	}
	return out
}
