package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/internal/tokens"
)

func TestConvertRoundTrip(t *testing.T) {
	doc := `{"users":[{"id":1,"name":"Ann \"A\"","tags":["a","b"]},{"id":2,"name":"Bob","tags":[]}],"big":9007199254740993,"nested":{"x":null,"y":[1,[2,3]]}}`
	for name, c := range converters("value") {
		if c.response {
			continue // carries GraphResponses only: TestConvertGCB1
		}
		t.Run(name, func(t *testing.T) {
			var enc, dec, stderr bytes.Buffer
			if code := run([]string{"convert", "--to", name}, strings.NewReader(doc), &enc, &stderr); code != 0 {
				t.Fatalf("to %s: exit %d: %s", name, code, stderr.String())
			}
			if code := run([]string{"convert", "--from", name, "--to", "json"}, bytes.NewReader(enc.Bytes()), &dec, &stderr); code != 0 {
				t.Fatalf("from %s: exit %d: %s", name, code, stderr.String())
			}
			if !c.lossless {
				// GCX reads back as its section model: check the tool and that
				// every value is there as text.
				for _, want := range []string{`"tool":"value"`, "Ann", "Bob", "9007199254740993"} {
					if !strings.Contains(dec.String(), want) {
						t.Errorf("%s → json lacks %s:\n%s", name, want, dec.String())
					}
				}
				return
			}
			if got := strings.TrimSuffix(dec.String(), "\n"); got != doc {
				t.Errorf("round trip through %s:\n got %s\nwant %s\nencoded:\n%s", name, got, doc, enc.String())
			}
		})
	}
}

func TestConvertErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		in   string
		code int
	}{
		{"bad json", []string{"convert", "--to", "toon"}, `{"a":}`, 1},
		{"bad toon", []string{"convert", "--from", "toon", "--to", "json"}, "a:\n   b: 1\n  c: 2\n", 1},
		{"unknown format", []string{"convert", "--to", "yaml"}, `{}`, 2},
		{"missing --to", []string{"convert"}, `{}`, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tt.args, strings.NewReader(tt.in), &stdout, &stderr); code != tt.code {
				t.Fatalf("exit %d, want %d (%s)", code, tt.code, stderr.String())
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout not empty: %q", stdout.String())
			}
			if tt.code == 1 && strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("want one line on stderr, got %q", stderr.String())
			}
		})
	}
}

// TestConvertAuto: --to auto writes the lossless format with the fewest o200k tokens (the
// first of gcf, toon, json on a tie), names it and the counts on stderr, and reads back with
// --from set to the name it gave.
func TestConvertAuto(t *testing.T) {
	docs := []string{
		`{"users":[{"id":1,"name":"Ann"},{"id":2,"name":"Bob"},{"id":3,"name":"Cy"}]}`, // gcf (ties toon)
		`{"name":"Ann","age":30,"city":"Oslo"}`,                                        // toon
		`[1,2,3]`,                                                                      // json
		`{"a":{"b":{"c":[{"d":"x y z","e":[1,{"f":null}]}]}}}`,
	}
	counter := tokens.New()
	for _, doc := range docs {
		t.Run(doc, func(t *testing.T) {
			outs := map[string]string{}
			bestName, bestN := "", 0
			var counts []string
			for _, name := range []string{"gcf", "toon", "json"} {
				r := runCLIStdin(doc, "convert", "--to", name)
				if r.code != exitOK {
					t.Fatalf("--to %s: %+v", name, r)
				}
				outs[name] = r.stdout
				n, err := counter.Count(tokens.O200k, r.stdout)
				if err != nil {
					t.Fatal(err)
				}
				counts = append(counts, fmt.Sprintf("%s %d", name, n))
				if bestName == "" || n < bestN {
					bestName, bestN = name, n
				}
			}
			got := runCLIStdin(doc, "convert", "--to", "auto")
			want := result{exitOK, outs[bestName], "graphwire convert: auto chose " + bestName + " (o200k tokens: " + strings.Join(counts, ", ") + ")\n"}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(result{})); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
			back := runCLIStdin(got.stdout, "convert", "--from", bestName, "--to", "json")
			if back.code != exitOK || strings.TrimSuffix(back.stdout, "\n") != doc {
				t.Errorf("read back from %s: %+v, want %s", bestName, back, doc)
			}
		})
	}
}

// runCLIStdin runs the CLI with stdin.
func runCLIStdin(stdin string, args ...string) result {
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(stdin), &stdout, &stderr)
	return result{code, stdout.String(), stderr.String()}
}

// TestConvertGCB1: convert writes a GraphResponse as GCB1 bytes (no final
// newline, which would be a trailing byte) and reads it back; a document
// that is not a GraphResponse is an error.
func TestConvertGCB1(t *testing.T) {
	doc := `{"format_version":"5.0.1","query_type":"traversal","nodes":[{"type":"User","id":"1","username":"ann"},{"type":"Group","id":"2"}],"edges":[{"from":"User","from_id":"1","to":"Group","to_id":"2","type":"MEMBER_OF"}]}`
	var enc, dec, stderr bytes.Buffer
	if code := run([]string{"convert", "--to", "gcb1"}, strings.NewReader(doc), &enc, &stderr); code != 0 {
		t.Fatalf("to gcb1: exit %d: %s", code, stderr.String())
	}
	if !bytes.HasPrefix(enc.Bytes(), []byte("GCB1\x01")) || enc.Bytes()[enc.Len()-1] == '\n' {
		t.Fatalf("output % x", enc.Bytes())
	}
	if code := run([]string{"convert", "--from", "gcb1", "--to", "json"}, bytes.NewReader(enc.Bytes()), &dec, &stderr); code != 0 {
		t.Fatalf("from gcb1: exit %d: %s", code, stderr.String())
	}
	if got := strings.TrimSuffix(dec.String(), "\n"); got != doc {
		t.Errorf("round trip:\n got %s\nwant %s", got, doc)
	}
	stderr.Reset()
	if code := run([]string{"convert", "--to", "gcb1"}, strings.NewReader(`{"a":1}`), &enc, &stderr); code != 1 || !strings.Contains(stderr.String(), "gcb1 carries a GraphResponse") {
		t.Errorf("non-response: exit %d: %s", code, stderr.String())
	}
}
