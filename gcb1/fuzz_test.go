package gcb1_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/graphwire/graphwire/gcb1"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/conformance"
)

// FuzzDecode checks that the decoder never panics, that every error is a
// *SyntaxError inside the input, that every payload it accepts encodes to
// exactly its input, and that an accepted response encodes to a payload
// that reads back equal.
func FuzzDecode(f *testing.F) {
	for _, r := range conformance.GoonInputs(f) {
		if b, err := gcb1.Marshal(r, gcb1.Options{}); err == nil {
			f.Add(b)
		}
	}
	b, err := gcb1.MarshalPayload(knowingSmall())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(valid())
	for _, tt := range decodeErrors {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := gcb1.UnmarshalPayload(data)
		if err != nil {
			var se *gcb1.SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(data) {
				t.Fatalf("error %v (%T) is not a *SyntaxError inside the input", err, err)
			}
			return
		}
		again, err := gcb1.MarshalPayload(p)
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("re-encode differs (%v):\n%x\n%x", err, again, data)
		}
		r, err := gcb1.Unmarshal(data, gcb1.Options{})
		if err != nil {
			var se *gcb1.SyntaxError
			if !errors.As(err, &se) || !errors.Is(err, gcb1.ErrMapping) {
				t.Fatalf("mapping error %v is not ErrMapping", err)
			}
			return
		}
		out, err := gcb1.Marshal(r, gcb1.Options{})
		if err != nil {
			t.Fatal(err)
		}
		back, err := gcb1.Unmarshal(out, gcb1.Options{})
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if !back.Equal(r) {
			t.Fatalf("re-decode differs:\n%s\n%s", graphresponse.Marshal(r), graphresponse.Marshal(back))
		}
	})
}
