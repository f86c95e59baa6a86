package diagram_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/internal/diagram"
)

// requireDot returns the path of Graphviz's dot; it skips without it, and fails under CI=true
// (.ci/run installs Debian's graphviz).
func requireDot(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("dot")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and Graphviz dot is missing (apt-get install graphviz)")
		}
		t.Skip("Graphviz dot is missing (apt-get install graphviz)")
	}
	return p
}

// TestDOTReadByGraphviz has the real dot parse the drawing of a response full of text that
// tries to break out of DOT's quoting, and checks from dot's JSON output that every node has
// the intended name and label and every edge joins the intended nodes.
func TestDOTReadByGraphviz(t *testing.T) {
	dot := requireDot(t)
	src := diagram.AppendDOT(nil, tricky())
	cmd := exec.Command(dot, "-Tjson")
	cmd.Stdin = bytes.NewReader(src)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("dot rejected the drawing: %v\n%s\ninput:\n%s", err, stderr.String(), src)
	}
	var got struct {
		Objects []struct {
			Name  string `json:"name"`
			Label string `json:"label"`
		} `json:"objects"`
		Edges []struct {
			Tail  int    `json:"tail"`
			Head  int    `json:"head"`
			Label string `json:"label"`
		} `json:"edges"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("dot -Tjson: %v\n%s", err, out)
	}
	if len(got.Objects) != len(wantNodes) {
		t.Fatalf("dot read %d nodes, want %d:\n%s", len(got.Objects), len(wantNodes), src)
	}
	for i, w := range wantNodes {
		o := got.Objects[i]
		if o.Name != w.id {
			t.Errorf("node %d: name %q, want %q", i, o.Name, w.id)
		}
		if diff := cmp.Diff(w.lines, labelLines(t, o.Label)); diff != "" {
			t.Errorf("node %s label (-want +got):\n%s", w.id, diff)
		}
	}
	if len(got.Edges) != len(wantEdges) {
		t.Fatalf("dot read %d edges, want %d", len(got.Edges), len(wantEdges))
	}
	for i, w := range wantEdges {
		e := got.Edges[i]
		if e.Tail != w.from || e.Head != w.to {
			t.Errorf("edge %d: %d -> %d, want %d -> %d", i, e.Tail, e.Head, w.from, w.to)
		}
		if l := labelLines(t, e.Label); len(l) != 1 || l[0] != w.label {
			t.Errorf("edge %d label %q, want %q", i, l, w.label)
		}
	}
}

// labelLines reads a label as Graphviz draws it: \n breaks a line, \\ is a backslash, and an
// escape dot would not draw literally fails the test.
func labelLines(t *testing.T, label string) []string {
	t.Helper()
	var lines []string
	var cur strings.Builder
	for i := 0; i < len(label); i++ {
		c := label[i]
		if c != '\\' {
			cur.WriteByte(c)
			continue
		}
		if i+1 == len(label) {
			t.Fatalf("label %q ends in a backslash", label)
		}
		i++
		switch label[i] {
		case 'n':
			lines = append(lines, cur.String())
			cur.Reset()
		case '\\', '"':
			cur.WriteByte(label[i])
		default:
			t.Fatalf("label %q has the escape \\%c, which Graphviz would not draw as written", label, label[i])
		}
	}
	return append(lines, cur.String())
}

// TestDOTBytes pins the output of a small response, so a change to the drawing shows as a diff.
func TestDOTBytes(t *testing.T) {
	r := tricky()
	r.Nodes, r.Edges = r.Nodes[2:], r.Edges[2:]
	want := "// graphwire traversal result: 2 nodes, 1 edges\n" +
		"digraph graphwire {\n\trankdir=LR;\n\tnode [shape=box];\n" +
		"\t\"graph:-3\" [label=\"graph -3\"];\n" +
		"\t\"User:1\" [label=\"User 1\"];\n" +
		"\t\"graph:-3\" -> \"User:1\" [label=\"REL (path 0, step 1)\"];\n" +
		"}\n"
	if diff := cmp.Diff(want, string(diagram.AppendDOT(nil, r))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
