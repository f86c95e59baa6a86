package toon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// addFixtureSeeds adds every decode fixture input and every encode fixture
// output as a seed.
func addFixtureSeeds(f *testing.F, add func(data []byte)) {
	for _, fx := range loadFixtures(f) {
		raw := fx.test.Input
		if fx.category == "encode" {
			raw = fx.test.Expected
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			add([]byte(s))
		}
	}
}

// FuzzDecode decodes arbitrary bytes in strict and lenient mode. It never
// panics, every error is a *SyntaxError, and a decoded value re-encodes to a
// document that decodes (in the same mode) to an EqualUnordered value and
// encodes to the same bytes again.
func FuzzDecode(f *testing.F) {
	addFixtureSeeds(f, func(data []byte) {
		f.Add(data, false)
		f.Add(data, true)
	})
	f.Fuzz(func(t *testing.T, data []byte, lenient bool) {
		opts := Options{Lenient: lenient}
		v, err := UnmarshalOptions(data, opts)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v (%T) is not a *SyntaxError", err, err)
			}
			if se.Line < 1 || se.Column < 1 || se.Err == nil {
				t.Fatalf("bad error position %+v", se)
			}
			return
		}
		enc, err := Marshal(v)
		if err != nil {
			t.Fatalf("Marshal of a decoded value: %v (%s)", err, describe(v))
		}
		back, err := UnmarshalOptions(enc, opts)
		if err != nil {
			t.Fatalf("decode of the re-encoding: %v\n%s", err, enc)
		}
		if !EqualUnordered(back, v) {
			t.Fatalf("re-encoding changed the value\n got: %s\nwant: %s\n%s", describe(back), describe(v), enc)
		}
		again, err := Marshal(back)
		if err != nil || !bytes.Equal(again, enc) {
			t.Fatalf("second encoding differs\n%s\n---\n%s", enc, again)
		}
	})
}

// FuzzMarshal encodes every JSON document ParseJSON accepts; the output must
// decode in strict mode to an EqualUnordered value.
func FuzzMarshal(f *testing.F) {
	for _, fx := range loadFixtures(f) {
		if fx.category == "encode" {
			f.Add([]byte(fx.test.Input))
		} else if !fx.test.ShouldError {
			f.Add([]byte(fx.test.Expected))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseJSON(data)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("ParseJSON error %v is not a *SyntaxError", err)
			}
			return
		}
		for _, opts := range []Options{{}, {Delimiter: Tab}, {Delimiter: Pipe, IndentSize: 3}} {
			enc, err := MarshalOptions(v, opts)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			back, err := UnmarshalOptions(enc, Options{IndentSize: opts.IndentSize})
			if err != nil {
				t.Fatalf("strict decode of the encoding: %v\n%s", err, enc)
			}
			if !EqualUnordered(back, v) {
				t.Fatalf("round trip differs\n got: %s\nwant: %s\n%s", describe(back), describe(v), enc)
			}
		}
	})
}

// describe renders a model value as compact JSON for messages.
func describe(v any) string {
	b, err := AppendJSON(nil, v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}
