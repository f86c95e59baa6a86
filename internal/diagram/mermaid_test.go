package diagram_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/internal/diagram"
)

var (
	mermaidNodeRE = regexp.MustCompile(`^  (n[0-9]+)\["([^"]*)"\]$`)
	mermaidEdgeRE = regexp.MustCompile(`^  (n[0-9]+) -->\|"([^"]*)"\| (n[0-9]+)$`)
	// mermaidTextRE is what may stand inside a quoted label: no quote, no markup but the <br/>
	// line breaks, '#' only in a numeric entity, '&' and '|' and '`' and ';' only inside one.
	mermaidTextRE = regexp.MustCompile("^(?:[^\"<>#&|`;]|#[0-9]+;)*$")
	entityRE      = regexp.MustCompile(`#([0-9]+);`)
)

// TestMermaidParses reads the flowchart of a response full of text that tries to break out of
// Mermaid's quoting, line by line, as Mermaid's grammar does: a header, node statements with one
// quoted label each and edge statements between declared nodes. Every label keeps to the
// characters a quoted label may hold, and decoding its entities gives back the text.
func TestMermaidParses(t *testing.T) {
	src := string(diagram.AppendMermaid(nil, tricky()))
	lines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "%% ") || strings.ContainsAny(lines[0][3:], "\"<>#") || lines[1] != "flowchart LR" {
		t.Fatalf("header:\n%s", src)
	}
	declared := map[string]int{}
	var edges int
	for _, l := range lines[2:] {
		if m := mermaidNodeRE.FindStringSubmatch(l); m != nil {
			i := len(declared)
			if m[1] != "n"+strconv.Itoa(i) {
				t.Fatalf("node %s declared as number %d", m[1], i)
			}
			declared[m[1]] = i
			if diff := cmp.Diff(wantNodes[i].lines, mermaidLines(t, m[2])); diff != "" {
				t.Errorf("node %s label (-want +got):\n%s", wantNodes[i].id, diff)
			}
			continue
		}
		m := mermaidEdgeRE.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("line is neither a node nor an edge: %q", l)
		}
		from, ok1 := declared[m[1]]
		to, ok2 := declared[m[3]]
		if !ok1 || !ok2 {
			t.Fatalf("edge between undeclared nodes: %q", l)
		}
		w := wantEdges[edges]
		if from != w.from || to != w.to {
			t.Errorf("edge %d: %d -> %d, want %d -> %d", edges, from, to, w.from, w.to)
		}
		if got := mermaidLines(t, m[2]); len(got) != 1 || got[0] != w.label {
			t.Errorf("edge %d label %q, want %q", edges, got, w.label)
		}
		edges++
	}
	if len(declared) != len(wantNodes) || edges != len(wantEdges) {
		t.Errorf("%d nodes and %d edges, want %d and %d", len(declared), edges, len(wantNodes), len(wantEdges))
	}
}

// mermaidLines splits a label at its <br/> breaks, checks each part holds only what a quoted
// label may, and decodes the numeric entities.
func mermaidLines(t *testing.T, label string) []string {
	t.Helper()
	var out []string
	for _, part := range strings.Split(label, "<br/>") {
		if !mermaidTextRE.MatchString(part) {
			t.Fatalf("label part %q holds a character Mermaid would read as syntax", part)
		}
		out = append(out, entityRE.ReplaceAllStringFunc(part, func(e string) string {
			n, _ := strconv.Atoi(entityRE.FindStringSubmatch(e)[1])
			return string(rune(n))
		}))
	}
	return out
}

func TestMermaidBytes(t *testing.T) {
	r := tricky()
	r.Nodes, r.Edges = r.Nodes[2:], r.Edges[2:]
	want := "%% graphwire traversal result: 2 nodes, 1 edges\n" +
		"flowchart LR\n" +
		"  n0[\"graph -3\"]\n" +
		"  n1[\"User 1\"]\n" +
		"  n0 -->|\"REL (path 0, step 1)\"| n1\n"
	if diff := cmp.Diff(want, string(diagram.AppendMermaid(nil, r))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
