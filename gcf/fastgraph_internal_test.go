package gcf

import (
	"strings"
	"testing"
)

// FuzzFastGraph checks that the fast gcf-graph decoder accepts only input
// the strict decoder accepts, with an equal result.
func FuzzFastGraph(f *testing.F) {
	seeds := []string{
		"GCF profile=graph symbols=3 edges=2 pack_root=sha256:473c894022b98f4f37879348d6fe049633c408055ae29a697c1ca3a5ba1cc16d query_type=traversal\n## targets\n@0 User User:5252563 1.00 traversal.07656549\n## related\n@1 MergeRequest MergeRequest:482927048 1.00 traversal.d2763235\n## extended\n@2 Project Project:80212187 1.00 traversal.f8cedb8f\n## edges [2]\n@1<@0 AUTHORED\n@2<@1 IN_PROJECT\n",
		"GCF profile=graph symbols=1 has_more=true next_cursor=abc\n## targets\n@0 MR MR:1 1.00 traversal.a013cec5\n",
		"GCF profile=graph\n## targets\n@0 fn a:1 0.50 p\n@1 fn a:01 0.50 p\n## edges\n@0<@1 _\n",
		"GCF profile=graph\n## distance_3\n@0 X X:1 1.00 q\n## edges [1]\n@0<@0 calls added\n",
		"GCF profile=graph session=false\n## targets\n@0 pkg P:1 1.00 q\n@1 package P:1 1.00 q\n",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	lim := Limits{}.withDefaults()
	f.Fuzz(func(t *testing.T, src string) {
		fr, ok := fastGraphResponse(src, lim)
		if !ok {
			return
		}
		d := NewDecoder(strings.NewReader(src), Options{})
		doc, err := d.decodeBytes(src)
		if err != nil {
			t.Fatalf("fast path accepted what the strict decoder rejects (%v):\n%q", err, src)
		}
		if doc.Graph == nil || doc.Graph.Unchanged {
			t.Fatalf("fast path accepted a non-graph payload:\n%q", src)
		}
		sr, err := FromGraph(doc.Graph)
		if err != nil {
			t.Fatalf("fast path accepted what the mapping rejects (%v):\n%q", err, src)
		}
		if !fr.Equal(sr) {
			t.Fatalf("fast and strict decoders differ on\n%q", src)
		}
	})
}
