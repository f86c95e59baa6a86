package load

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/ontology"
)

// TestResolveNames: a file names its entity as the ontology does (MergeRequest), by its table
// (gl_merge_request) or by the table without the prefix (merge_request), in any case; the
// snake-case form is the ontology's own, so every entity resolves by it.
func TestResolveNames(t *testing.T) {
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, e := range ont.Entities {
		short := e.Table[len(ont.TablePrefix):]
		for _, name := range []string{e.Name, e.Table, short, strings.ToUpper(short)} {
			p := filepath.Join(dir, name+".jsonl")
			if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := resolve(ont, Source{Path: p})
			if err != nil || got.entity != e {
				t.Errorf("%s.jsonl: %v, want entity %s", name, err, e.Name)
			}
		}
	}
}
