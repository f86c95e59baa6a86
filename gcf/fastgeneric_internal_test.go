package gcf

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/conformance"
)

// slowResponse decodes src with the strict decoder and the §3.2.5 mapping.
func slowResponse(src string) (*graphresponse.Response, error) {
	d := NewDecoder(strings.NewReader(src), Options{})
	doc, err := d.decodeBytes(src)
	if err != nil {
		return nil, err
	}
	if doc.Value == nil {
		return nil, ErrSyntax
	}
	root, ok := doc.Value.(*Object)
	if !ok {
		return nil, ErrSyntax
	}
	return responseOf(root)
}

func checkFastGeneric(t *testing.T, src string) bool {
	t.Helper()
	fr, ok := fastGenericResponse(src, Limits{}.withDefaults())
	if !ok {
		return false
	}
	sr, err := slowResponse(src)
	if err != nil {
		t.Fatalf("fast path accepted what the strict path rejects (%v):\n%q", err, src)
	}
	if !fr.Equal(sr) {
		t.Fatalf("fast and strict paths differ on\n%s\n%s\n%s", src, graphresponse.Marshal(fr), graphresponse.Marshal(sr))
	}
	return true
}

// TestFastGenericGOON runs the fast gcf decoder on the Marshal output of
// every GOON input: it must take the fast path where the layout allows and
// agree with the strict path.
func TestFastGenericGOON(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(conformance.Dir(t, "goon"), "*.input.json"))
	fast := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r, err := graphresponse.Unmarshal(data)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := NewEncoder(&b, Options{}).Encode(r); err != nil {
			continue
		}
		if checkFastGeneric(t, b.String()) {
			fast++
		}
	}
	if fast < len(files)/2 {
		t.Errorf("fast path taken for %d of %d inputs", fast, len(files))
	}
}

func FuzzFastGeneric(f *testing.F) {
	f.Add("GCF profile=generic\nquery_type=traversal\nmapping_version=1.0.0\n## pagination\n  has_more=false\n  truncated=true\n  next_cursor=\"\"\n## User [2]{id,name,\"a b\"}\n1|x|~\n2|-|\"3\"\n## edges [1]{from,from_id,to,to_id,type,depth}\nUser|1|User|2|\"\"|~\n## paths [1]{path_id,step,from,from_id,to,to_id,type}\n0|0|User|1|User|2|R\n")
	f.Add("GCF profile=generic tool=t\nquery_type=neighbors\nmapping_version=1.2.0\n## A [1]{id}\n5\n")
	f.Fuzz(func(t *testing.T, src string) {
		checkFastGeneric(t, src)
	})
}
