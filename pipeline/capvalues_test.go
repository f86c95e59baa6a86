package pipeline

import (
	"bytes"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/formatter"
)

// TestHugeValue: a stored 10 MiB string is answered in every format and auto, on Run and
// on Stream: json carries it exactly; gcf, gcf-graph, gcx, toon, markdown, xml and auto cut it to
// DefaultMaxValueBytes with the marker naming what was left out, and count it in Altered and
// Capped; goon truncates it itself. gcx, whose rows are single lines of at most 4 MiB, used
// to fail with INTERNAL.
func TestHugeValue(t *testing.T) {
	p := seededPipeline(t)
	const size = 10 << 20
	value := strings.Repeat("lorem ipsum ", size/12+1)[:size]
	ins := "INSERT INTO gl_note (id, traversal_path, note) VALUES (900001, '1/', '" + value + "')"
	if err := p.exec.(*chdb.Executor).Exec(t.Context(), ins); err != nil {
		t.Fatal(err)
	}
	q := []byte(`{"query_type":"traversal","nodes":[{"id":"n","entity":"Note","node_ids":[900001],"columns":["note"]}]}`)
	admin := &auth.Claims{UserID: 1, Admin: true}
	marker := capMarker(size-DefaultMaxValueBytes, size)
	for _, f := range []string{"json", "goon", "gcf", "gcf-graph", "gcx", "toon", "markdown", "xml", Auto} {
		for _, stream := range []bool{false, true} {
			req := Request{Query: q, Claims: admin, Format: f}
			var text []byte
			var a *Answer
			var err error
			if stream {
				var out bytes.Buffer
				a, err = p.Stream(t.Context(), req, &out)
				text = out.Bytes()
			} else {
				a, err = p.Run(t.Context(), req)
				if a != nil {
					text = a.Text
				}
			}
			if err != nil {
				t.Errorf("%s (stream %v): %v", f, stream, err)
				continue
			}
			switch f {
			case formatter.JSON:
				if !bytes.Contains(text, []byte(value)) || a.Capped != 0 {
					t.Errorf("json (stream %v): the value is not there whole (capped %d)", stream, a.Capped)
				}
			case formatter.GOON:
				if len(text) > 64<<10 || a.Capped != 0 || !bytes.Contains(text, []byte("note_len=10485760")) {
					t.Errorf("goon (stream %v): %d bytes, capped %d; want its own truncation", stream, len(text), a.Capped)
				}
			case formatter.GCFGraph:
				if len(text) > 64<<10 {
					t.Errorf("gcf-graph (stream %v): %d bytes", stream, len(text))
				}
			default:
				marker := marker
				if f == formatter.Markdown { // which escapes the brackets
					marker = strings.NewReplacer("[", `\[`, "]", `\]`).Replace(marker)
				}
				if !bytes.Contains(text, []byte(marker)) || len(text) > 2*DefaultMaxValueBytes {
					t.Errorf("%s (stream %v): %d bytes, marker %q missing or value not cut", f, stream, len(text), marker)
				}
				if a.Capped != 1 || a.Altered < 1 {
					t.Errorf("%s (stream %v): capped %d, altered %d; want 1, at least 1", f, stream, a.Capped, a.Altered)
				}
			}
		}
	}
}
