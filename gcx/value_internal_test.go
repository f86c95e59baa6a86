package gcx

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// roundTrip is the normalisation of spec §9.1 spelled out: marshal with
// encoding/json, decode again with UseNumber.
func roundTrip(t *testing.T, v any) any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		t.Fatal(err)
	}
	return x
}

// randomPlain builds a value of the types plainValue accepts.
func randomPlain(r *rand.Rand, depth int) any {
	floats := []float64{0, math.Copysign(0, -1), 1, -1.5, 1e-6, 9.99e-7, 1e-7, 1.5e-300, 1e20, 1e21, 1.23e21, -4e22, 75, 0.1, 1 << 53, math.MaxFloat64, math.SmallestNonzeroFloat64}
	strs := []string{"", "a", "<b>&</b>", "line\u2028sep", "tab\there", "cr\r\n", "\x00\x1f", "é", "\"q\"", "\\", "#7", "GCX1 tool=x"}
	n := 12
	if depth > 2 {
		n = 9
	}
	switch r.IntN(n) {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return strs[r.IntN(len(strs))]
	case 3:
		return floats[r.IntN(len(floats))] * float64(1-2*r.IntN(2))
	case 4:
		if f := float32(floats[r.IntN(len(floats))]); !math.IsInf(float64(f), 0) {
			return f
		}
		return float32(2.5)
	case 5:
		return r.Int64() - math.MaxInt64/2
	case 6:
		return int(r.Int32())
	case 7:
		return r.Uint64()
	case 8:
		return strconv.Itoa(r.IntN(1000))
	case 9, 10:
		m := map[string]any{}
		for range r.IntN(4) {
			k := []string{"a", "b", "id", "", "a b", "x,y", "é"}[r.IntN(7)]
			m[k] = randomPlain(r, depth+1)
		}
		return m
	default:
		switch r.IntN(4) {
		case 0:
			s := make([]string, r.IntN(4))
			for i := range s {
				s[i] = strs[r.IntN(len(strs))]
			}
			return s
		case 1:
			ms := make([]map[string]any, r.IntN(4))
			for i := range ms {
				ms[i] = map[string]any{"id": i, "v": randomPlain(r, depth+1)}
			}
			return ms
		case 2:
			return map[string]string{"k": strs[r.IntN(len(strs))], "z": ""}
		}
		a := make([]any, r.IntN(5))
		for i := range a {
			a[i] = randomPlain(r, depth+1)
		}
		return a
	}
}

// TestPlainValueSkipsRoundTrip checks that the sections built from plain
// values directly equal those built from their §9.1 round trip, with and
// without HTML escaping.
func TestPlainValueSkipsRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	plain := 0
	for i := range 3000 {
		v := randomPlain(r, 0)
		if plainValue(v, 0) {
			plain++
		}
		for _, html := range []bool{false, true} {
			got, gotErr := valueSection("x", v, html)
			want, wantErr := valueSection("x", roundTrip(t, v), html)
			if (gotErr == nil) != (wantErr == nil) {
				t.Fatalf("case %d %#v: error %v, round trip %v", i, v, gotErr, wantErr)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("case %d %#v (html=%v): section (-round trip +direct):\n%s", i, v, html, diff)
			}
		}
	}
	if plain < 2000 {
		t.Errorf("only %d of 3000 generated values were plain", plain)
	}
}

func TestAppendJSONFloat(t *testing.T) {
	for _, f := range []float64{0, math.Copysign(0, -1), 1e-7, 1e-6, 1e21, 1e20, 123.456, -2.5e-10, 1e30} {
		b, _ := json.Marshal(f)
		if got := string(appendJSONFloat(nil, f, 64)); got != string(b) {
			t.Errorf("appendJSONFloat(%v, 64) = %s, encoding/json %s", f, got, b)
		}
		b, _ = json.Marshal(float32(f))
		if got := string(appendJSONFloat(nil, float64(float32(f)), 32)); got != string(b) {
			t.Errorf("appendJSONFloat(%v, 32) = %s, encoding/json %s", f, got, b)
		}
	}
}
