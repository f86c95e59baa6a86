package gcb1_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math"
	"testing"

	"github.com/gkampitakis/go-snaps/snaps"
	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/gcb1"
)

// knowingSmall is knowing's 10-symbol, 8-edge payload (its wire-format
// benchmark case 01_context_for_task_small, the one its docs size at JSON
// 4,153 / GCF 1,079 / GCB1 448 bytes), rebuilt from the case's values.
func knowingSmall() *gcb1.Payload {
	const mcp, cmd = "github.com/blackwell-systems/knowing/internal/mcp.", "github.com/blackwell-systems/knowing/cmd/knowing."
	type sym struct {
		q, kind, prov, sig string
		score              float32
		dist               uint8
		c                  [4]float32
	}
	syms := []sym{
		{mcp + "requireHash", "function", "lsp_resolved", "func requireHash(args map[string]any, key string) (types.Hash, error)", 0.78, 0, [4]float32{0.40, 0.25, 0.06, 0.15}},
		{mcp + "Server.registerTools", "method", "lsp_resolved", "func (s *Server) registerTools()", 0.74, 0, [4]float32{0.35, 0.22, 0.08, 0.15}},
		{mcp + "requireStringArg", "function", "lsp_resolved", "func requireStringArg(args map[string]any, key string) (string, error)", 0.67, 0, [4]float32{0.30, 0.20, 0.05, 0.15}},
		{mcp + "getIntArg", "function", "lsp_resolved", "func getIntArg(args map[string]any, key string, defaultVal int) int", 0.66, 0, [4]float32{0.28, 0.20, 0.05, 0.15}},
		{mcp + "NewServer", "function", "lsp_resolved", "func NewServer(store types.GraphStore) *Server", 0.54, 1, [4]float32{0.22, 0.15, 0.04, 0.10}},
		{cmd + "cmdServe", "function", "ast_inferred", "func cmdServe(db *store.SQLiteStore, repoDir string)", 0.51, 1, [4]float32{0.18, 0.12, 0.10, 0.10}},
		{cmd + "cmdMCP", "function", "ast_inferred", "func cmdMCP(db *store.SQLiteStore)", 0.46, 1, [4]float32{0.15, 0.12, 0.08, 0.10}},
		{mcp + "Server", "type", "lsp_resolved", "type Server struct", 0.42, 2, [4]float32{0.20, 0.15, 0.03, 0.05}},
		{"github.com/blackwell-systems/knowing/internal/types.GraphStore", "interface", "lsp_resolved", "type GraphStore interface", 0.38, 2, [4]float32{0.18, 0.12, 0.02, 0.05}},
		{"github.com/blackwell-systems/knowing/internal/store.SQLiteStore", "type", "lsp_resolved", "type SQLiteStore struct", 0.35, 2, [4]float32{0.16, 0.10, 0.04, 0.05}},
	}
	prov := map[string]gcb1.Provenance{"ast_inferred": 1, "lsp_resolved": 3}
	p := &gcb1.Payload{Tool: "context_for_task", TokensUsed: 1847, TokenBudget: 5000}
	for _, s := range syms {
		k, ok := gcb1.ParseKind(s.kind)
		if !ok {
			panic(s.kind)
		}
		p.Symbols = append(p.Symbols, gcb1.Symbol{
			QualifiedName: s.q, Kind: k, Score: s.score, Provenance: prov[s.prov], Distance: s.dist, Signature: s.sig,
			BlastRadius: s.c[0], Confidence: s.c[1], Recency: s.c[2], DistanceC: s.c[3],
		})
	}
	// Edges as source → target symbol indexes.
	edges := []struct {
		s, t int
		typ  string
	}{{4, 0, "calls"}, {5, 0, "calls"}, {6, 0, "calls"}, {4, 1, "calls"}, {5, 2, "calls"}, {6, 2, "calls"}, {9, 8, "implements"}, {4, 8, "references"}}
	for _, e := range edges {
		t, ok := gcb1.ParseEdgeType(e.typ)
		if !ok {
			panic(e.typ)
		}
		p.Edges = append(p.Edges, gcb1.Edge{Source: e.s, Target: e.t, Type: t})
	}
	return p
}

// TestKnowingPayload checks the bytes of knowing's 10/8 payload field by
// field against the documented layout, written here independently of the
// encoder, and keeps the hex dump as a snapshot.
func TestKnowingPayload(t *testing.T) {
	p := knowingSmall()
	got, err := gcb1.MarshalPayload(p)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	str := func(s string) { want.Write(binary.AppendUvarint(nil, uint64(len(s)))); want.WriteString(s) }
	f32 := func(f float32) { want.Write(binary.LittleEndian.AppendUint32(nil, math.Float32bits(f))) }
	want.WriteString("GCB1\x01")
	str("context_for_task")
	want.Write([]byte{0xb7, 0x0e, 0x88, 0x27, 10, 8}) // 1847, 5000, 10 symbols, 8 edges
	for _, s := range p.Symbols {
		str(s.QualifiedName)
		want.WriteByte(byte(s.Kind))
		f32(s.Score)
		want.WriteByte(byte(s.Provenance))
		want.WriteByte(s.Distance)
		str(s.Signature)
		for _, c := range []float32{s.BlastRadius, s.Confidence, s.Recency, s.DistanceC} {
			f32(c)
		}
	}
	// calls=1, implements=3, references=4; status 0.
	want.Write([]byte{4, 0, 1, 0, 5, 0, 1, 0, 6, 0, 1, 0, 4, 1, 1, 0, 5, 2, 1, 0, 6, 2, 1, 0, 9, 8, 3, 0, 4, 8, 4, 0})
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("bytes differ:\n got %x\nwant %x", got, want.Bytes())
	}
	// Spot checks of the enum values knowing assigns.
	for _, c := range []struct {
		at   int
		want byte
	}{
		{4, 1},  // version
		{5, 16}, // tool length
		{22 + 6 + 1 + len(p.Symbols[0].QualifiedName), 1},     // kind function
		{22 + 6 + 1 + len(p.Symbols[0].QualifiedName) + 5, 3}, // provenance lsp_resolved
	} {
		if got[c.at] != c.want {
			t.Errorf("byte %d = %d, want %d", c.at, got[c.at], c.want)
		}
	}
	const knowingDoc, knowingFindings = 448, 1354
	t.Logf("knowing 10/8 payload: GCB1 %d bytes here; knowing's docs say %d, its FINDINGS.md %d", len(got), knowingDoc, knowingFindings)
	back, err := gcb1.UnmarshalPayload(got)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(p, back); diff != "" {
		t.Errorf("decode differs (-want +got):\n%s", diff)
	}
	snaps.MatchSnapshot(t, len(got), hex.Dump(got))
}
