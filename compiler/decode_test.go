package compiler

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

var decodeSeeds = []string{
	`{}`,
	`{"a":1,"b":[true,false,null,"x"],"c":{"d":-1.5e3}}`,
	`{"s":"tab\there \u00e9 \ud83c\udf89 \ud800 \/ \\ \" \b\f\n\r"}`,
	`{"n":[0,-0,12.50,1E+2,9223372036854775808]}`,
	` {"a" : [ ] , "b" : { } } `,
}

// FuzzDecode: the strict reader agrees with encoding/json on every document both accept,
// and fails only with *Error.
func FuzzDecode(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"a":1,"a":2}`))
	f.Add([]byte(`{"a":01}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decode(data)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %T: %v", err, err)
			}
			return
		}
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		var want map[string]any
		if err := d.Decode(&want); err != nil {
			t.Fatalf("decode accepted %q that encoding/json rejects: %v", data, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decode(%q) = %#v, encoding/json = %#v", data, got, want)
		}
	})
}

func TestDecodeRejects(t *testing.T) {
	for _, s := range []string{`{"a":01}`, `{"a":1,}`, `{"a":"\x01"}`, `{"a":tru}`, `{"a":1} x`, `{"a":"\q"}`, `{"a":.5}`, `{"a":1.}`, `{'a':1}`} {
		if _, err := decode([]byte(s)); !errors.Is(err, ErrParse) {
			t.Errorf("decode(%q) = %v, want PARSE_ERROR", s, err)
		}
	}
}
