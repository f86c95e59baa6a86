package mcp_test

import (
	"encoding/json"
	"testing"

	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/graphresponse"
)

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// parse reads a lossless answer back with the format's parser.
func parse(t *testing.T, format, text string) *graphresponse.Response {
	t.Helper()
	f, err := formatter.Default().Lookup(format)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := f.(formatter.Parser)
	if !ok {
		t.Fatalf("%s cannot parse", format)
	}
	r, err := p.Parse([]byte(text))
	if err != nil {
		t.Fatalf("parse %s: %v\n%s", format, err, text)
	}
	return r
}
