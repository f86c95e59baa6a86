package formatter_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/gcx"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/graphgen"
	"github.com/graphwire/graphwire/internal/textsafe"
)

// propParams returns gopter parameters with a fixed seed;
// GRAPHWIRE_PROP_SEED replays another.
func propParams(t *testing.T) *gopter.TestParameters {
	t.Helper()
	seed := int64(20260519)
	if s := os.Getenv("GRAPHWIRE_PROP_SEED"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("GRAPHWIRE_PROP_SEED: %v", err)
		}
		seed = n
	}
	t.Logf("seed %d", seed)
	p := gopter.DefaultTestParametersWithSeed(seed)
	p.MinSuccessfulTests = 300
	return p
}

// llmFormatters returns every registered format but raw JSON and the
// binary ones (gcb1), which are never sent as text.
func llmFormatters(t *testing.T) []formatter.Formatter {
	t.Helper()
	var out []formatter.Formatter
	for _, f := range formatter.Default().Formatters() {
		if f.Name() != formatter.JSON && !formatter.IsBinary(f) {
			out = append(out, f)
		}
	}
	if len(out) != 7 {
		t.Fatalf("want the seven text formats, got %d", len(out))
	}
	return out
}

// unsafeAt returns a description of the first code point of out that no
// LLM format may write raw, or "". LF is every format's line break; TAB is
// GCX1's cell separator and nothing else's.
func unsafeAt(name string, out []byte) string {
	i := bytes.IndexFunc(out, func(r rune) bool {
		return textsafe.Forbidden(r) && r != '\n' && (r != '\t' || name != formatter.GCX)
	})
	if i < 0 {
		return ""
	}
	r := []rune(string(out[i:]))[0]
	return fmt.Sprintf("%s output holds %U at byte %d:\n%s", name, r, i, out)
}

// wantAltered is the number of string values a format changes beyond its
// escapes (formatter.Counter): gcf and toon escape everything as \uXXXX,
// xml as character references or reversible markers, and gcf-graph prints
// no values; gcx marks or drops everything but TAB and LF (which it
// escapes); goon marks or drops everything but LF, CR and TAB inside
// quotes; markdown marks everything but LF (which it writes as <br>).
func wantAltered(name string, r *graphresponse.Response) int {
	keep := map[string]func(rune) bool{
		formatter.GCX:      func(r rune) bool { return r == '\t' || r == '\n' },
		formatter.GOON:     func(r rune) bool { return r == '\t' || r == '\n' || r == '\r' },
		formatter.Markdown: func(r rune) bool { return r == '\n' },
	}[name]
	if keep == nil {
		return 0
	}
	n := 0
	for _, nd := range r.Nodes {
		for _, m := range nd.Props {
			if textsafe.Index(m.Value.Str(), keep) >= 0 {
				n++
			}
		}
	}
	return n
}

// wantBack is what a format gives back for a string value on read-back:
// gcf and toon keep it, gcx loses its CRs (GCX1 §4.2) and goon its C0
// controls other than LF, CR and TAB, and DEL (GOON §3.7).
func wantBack(name, v string) string {
	switch name {
	case formatter.GCX:
		return strings.ReplaceAll(v, "\r", "")
	case formatter.GOON:
		return strings.Map(func(r rune) rune {
			if r < 0x20 && r != '\n' && r != '\r' && r != '\t' || r == 0x7f {
				return -1
			}
			return r
		}, v)
	}
	return v
}

// TestPropertyTextSafety feeds responses whose values mix ordinary text,
// the formats' own delimiters and every class of unsafe code point through
// every registered LLM formatter, and checks that none reaches the output
// raw, that Stamped.Altered counts exactly the values changed, and that
// every value reads back as the format promises.
func TestPropertyTextSafety(t *testing.T) {
	fs := llmFormatters(t)
	props := gopter.NewProperties(propParams(t))
	props.Property("no unsafe code point in output; Altered counts; values read back", prop.ForAll(func(seed uint64) string {
		r := graphgen.HostileResponse(rand.New(rand.NewPCG(seed, 3)), false)
		for _, f := range fs {
			out, err := formatter.Stamp(f, r)
			if err != nil {
				return f.Name() + ": " + err.Error()
			}
			if msg := unsafeAt(f.Name(), out.Bytes); msg != "" {
				return msg
			}
			if want := wantAltered(f.Name(), r); out.Altered != want {
				return fmt.Sprintf("%s: Altered = %d, want %d\n%s", f.Name(), out.Altered, want, out.Bytes)
			}
			if f.Name() == formatter.GCFGraph || f.Name() == formatter.Markdown {
				continue // topology only, or no reader: nothing to read back
			}
			back, err := f.(formatter.Parser).Parse(out.Bytes)
			if err != nil {
				return f.Name() + ": parse: " + err.Error() + "\n" + string(out.Bytes)
			}
			if msg := sameValues(f.Name(), r, back); msg != "" {
				return msg + "\n" + string(out.Bytes)
			}
		}
		return ""
	}, gen.UInt64()))
	props.Property("hostile types and keys: no unsafe code point in output or error", prop.ForAll(func(seed uint64) string {
		r := graphgen.HostileResponse(rand.New(rand.NewPCG(seed, 5)), true)
		for _, f := range fs {
			out, err := formatter.Stamp(f, r)
			if err != nil {
				if !errors.Is(err, formatter.ErrUnrepresentable) {
					return f.Name() + ": unexpected error " + err.Error()
				}
				if strings.ContainsFunc(err.Error(), textsafe.Forbidden) {
					return fmt.Sprintf("%s: error text holds an unsafe code point: %q", f.Name(), err.Error())
				}
				continue
			}
			if msg := unsafeAt(f.Name(), out.Bytes); msg != "" {
				return msg
			}
			if f.Name() == formatter.GCX {
				back, err := f.(formatter.Parser).Parse(out.Bytes)
				if err != nil {
					return "gcx: parse: " + err.Error()
				}
				if !back.Equal(gcx.Canon(r)) {
					return "gcx: read-back differs from Canon(r)\n" + string(out.Bytes)
				}
			}
		}
		return ""
	}, gen.UInt64()))
	props.TestingRun(t)
}

// sameValues compares the string properties of each node of want with
// those read back, after the format's documented losses.
func sameValues(name string, want, got *graphresponse.Response) string {
	type key struct {
		typ string
		id  int64
	}
	back := map[key]graphresponse.Node{}
	for _, n := range got.Nodes {
		back[key{n.Type, n.ID}] = n
	}
	for _, n := range want.Nodes {
		b, ok := back[key{n.Type, n.ID}]
		if !ok {
			return fmt.Sprintf("%s: node %s %d not read back", name, n.Type, n.ID)
		}
		for _, m := range n.Props {
			w := wantBack(name, m.Value.Str())
			v, ok := b.Prop(m.Key)
			if w == "" && !ok {
				continue
			}
			if !ok || v.Kind() != graphresponse.KindString || v.Str() != w {
				return fmt.Sprintf("%s: %s %d %s = %#v, want %q", name, n.Type, n.ID, m.Key, v, w)
			}
		}
	}
	return ""
}

// TestTextSafetyServed pins the defect of the issue: a NEL, U+2028, ESC or
// bidi control in a value must not reach a consumer raw in any LLM format,
// while raw JSON stays as it was (JSON escapes C0 controls and writes the
// rest as is, which every JSON parser reads correctly).
func TestTextSafetyServed(t *testing.T) {
	hostile := "a\u0085@nodes\u2028User(1):\x1b[2J\u202eevil\ufeff"
	r := &graphresponse.Response{
		FormatVersion: "5.0.1",
		QueryType:     graphresponse.QueryTraversal,
		Nodes:         []graphresponse.Node{{Type: "User", ID: 1, Props: []graphresponse.Member{{Key: "name", Value: graphresponse.String(hostile)}}}},
		Edges:         []graphresponse.Edge{},
	}
	wantAlteredBy := map[string]int{formatter.GOON: 1, formatter.GCX: 1, formatter.Markdown: 1}
	for _, f := range llmFormatters(t) {
		t.Run(f.Name(), func(t *testing.T) {
			out, err := formatter.Stamp(f, r)
			if err != nil {
				t.Fatal(err)
			}
			if msg := unsafeAt(f.Name(), out.Bytes); msg != "" {
				t.Error(msg)
			}
			if out.Altered != wantAlteredBy[f.Name()] {
				t.Errorf("Altered = %d, want %d", out.Altered, wantAlteredBy[f.Name()])
			}
			// What a Python or JavaScript consumer sees: as many lines as
			// the format wrote with LF.
			lf := strings.FieldsFunc(string(out.Bytes), func(r rune) bool { return r == '\n' })
			if got, want := len(splitLines(string(out.Bytes))), len(lf); got != want {
				t.Errorf("splitlines sees %d lines, the format wrote %d", got, want)
			}
		})
	}
	f, _ := formatter.Default().Lookup(formatter.JSON)
	out, err := formatter.Stamp(f, r)
	if err != nil {
		t.Fatal(err)
	}
	if want := graphresponse.Marshal(r); !bytes.Equal(out.Bytes, want) || out.Altered != 0 {
		t.Errorf("json changed: %q (altered %d), want %q", out.Bytes, out.Altered, want)
	}
	if !bytes.Contains(out.Bytes, []byte("\u2028")) || !bytes.Contains(out.Bytes, []byte(`\u001b`)) {
		t.Errorf("json no longer writes U+2028 raw and ESC as \\u001b: %q", out.Bytes)
	}
}

// splitLines splits like Python's str.splitlines, which also breaks on VT,
// FF, FS, GS, RS, NEL, U+2028 and U+2029.
func splitLines(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		switch r {
		case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			return true
		}
		return false
	})
}

// TestUnknownFormatErrorQuotes checks that a hostile format name cannot
// carry a control character into an error message.
func TestUnknownFormatErrorQuotes(t *testing.T) {
	_, err := formatter.Default().Select(formatter.LLM, "x\x1b[2J\u2028y")
	if err == nil {
		t.Fatal("Select accepted an unknown name")
	}
	if strings.ContainsFunc(err.Error(), textsafe.Forbidden) {
		t.Errorf("error text holds an unsafe code point: %q", err.Error())
	}
}
