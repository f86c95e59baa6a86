package docs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/config"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/ontology"
)

// example is one ```json block of docs/dsl.md.
type example struct {
	line  int    // of the opening fence
	query string // the block
	fails string // the reason code of a preceding <!-- fails: CODE --> comment, else ""
}

var failsRE = regexp.MustCompile(`^<!-- fails: ([A-Z_]+) -->$`)

// dslExamples reads the ```json blocks of a Markdown document.
func dslExamples(doc []byte) ([]example, error) {
	var (
		out   []example
		cur   *example
		body  strings.Builder
		prev  string // the last non-blank line outside a block
		lines = bufio.NewScanner(bytes.NewReader(doc))
		n     int
	)
	for lines.Scan() {
		n++
		line := lines.Text()
		switch {
		case cur == nil && line == "```json":
			cur = &example{line: n}
			if m := failsRE.FindStringSubmatch(prev); m != nil {
				cur.fails = m[1]
			}
			body.Reset()
		case cur != nil && line == "```":
			cur.query = body.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			body.WriteString(line + "\n")
		case strings.TrimSpace(line) != "":
			prev = line
		}
	}
	if cur != nil {
		return nil, errors.New("unterminated ```json block")
	}
	return out, lines.Err()
}

// TestDSLDocExamples compiles every ```json block of docs/dsl.md for an administrator: a
// block must compile, or, after a <!-- fails: CODE --> comment, fail with that reason.
func TestDSLDocExamples(t *testing.T) {
	o, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		t.Fatal(err)
	}
	c, err := compiler.New(o, compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "dsl.md"))
	if err != nil {
		t.Fatal(err)
	}
	examples, err := dslExamples(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(examples) < 10 {
		t.Fatalf("docs/dsl.md has %d ```json examples; the extraction is broken", len(examples))
	}
	admin := &compiler.Caller{Subject: "1", Admin: true}
	for _, ex := range examples {
		_, err := c.Compile([]byte(ex.query), admin)
		var ce *compiler.Error
		switch {
		case ex.fails == "" && err != nil:
			t.Errorf("docs/dsl.md:%d: %v\n%s", ex.line, err, ex.query)
		case ex.fails != "" && err == nil:
			t.Errorf("docs/dsl.md:%d: compiles, want %s\n%s", ex.line, ex.fails, ex.query)
		case ex.fails != "" && (!errors.As(err, &ce) || ce.Reason() != ex.fails):
			t.Errorf("docs/dsl.md:%d: %v, want reason %s\n%s", ex.line, err, ex.fails, ex.query)
		}
	}
}

// TestDSLExamplesExtraction: the reader finds blocks, their lines and fails markers, and skips
// other fences.
func TestDSLExamplesExtraction(t *testing.T) {
	doc := "text\n```json\n{\"a\": 1}\n```\n\n<!-- fails: NOT_SELECTIVE -->\n\n```json\n{}\n```\n```jsonc\n{\"b\": 2}\n```\n"
	got, err := dslExamples([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []example{{line: 2, query: "{\"a\": 1}\n"}, {line: 8, query: "{}\n", fails: "NOT_SELECTIVE"}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("dslExamples = %+v, want %+v", got, want)
	}
	if _, err := dslExamples([]byte("```json\n{}\n")); err == nil {
		t.Error("an unterminated block gave no error")
	}
}

// TestDSLDocOperators: docs/dsl.md's operator table lists every filter operator of the DSL
// schema, and its "Not supported yet" section names none of them (it once listed token_match,
// all_tokens and any_tokens, which the compiler supports).
func TestDSLDocOperators(t *testing.T) {
	var schema struct {
		Defs struct {
			FilterOperator struct {
				Enum []string `json:"enum"`
			}
		} `json:"$defs"`
	}
	if err := json.Unmarshal(config.GraphQuerySchema(), &schema); err != nil {
		t.Fatal(err)
	}
	ops := schema.Defs.FilterOperator.Enum
	if len(ops) < 10 {
		t.Fatalf("the schema's FilterOperator lists %d operators; the lookup is broken", len(ops))
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "dsl.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	_, unsupported, ok := strings.Cut(text, "\n## Not supported yet\n")
	if !ok {
		t.Fatal(`docs/dsl.md has no "## Not supported yet" section`)
	}
	unsupported, _, _ = strings.Cut(unsupported, "\n## ")
	tableRow := regexp.MustCompile("(?m)^\\| `[a-z_]+[`:].*\\|$")
	var rows strings.Builder
	for _, r := range tableRow.FindAllString(text, -1) {
		first, _, _ := strings.Cut(strings.TrimPrefix(r, "| "), " | ")
		rows.WriteString(first + "\n")
	}
	for _, op := range ops {
		if !strings.Contains(rows.String(), "`"+op+"`") && !strings.Contains(rows.String(), "`"+op+":") {
			t.Errorf("docs/dsl.md's operator table has no row for %s", op)
		}
		if strings.Contains(unsupported, "`"+op+"`") {
			t.Errorf("docs/dsl.md lists %s as not supported; the compiler supports it", op)
		}
	}
}
