package compiler_test

import (
	"errors"
	"testing"

	"github.com/graphwire/graphwire/compiler"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/ontology"
)

// TestRedactedAggregation: with answers redacted (Options.Redacted), an aggregation may not
// group by, or take the min or max of, a free-text property: its values belong to nodes the
// redaction authority is never asked about. Enums, numbers, dates and node keys stay allowed,
// and without redaction everything compiles as before.
func TestRedactedAggregation(t *testing.T) {
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		t.Fatal(err)
	}
	redacted, err := compiler.New(ont, compiler.Options{Redacted: true})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := compiler.New(ont, compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	caller := &compiler.Caller{Admin: true}
	const mr = `{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"state":"opened"}}],`
	cases := []struct {
		name, dsl, pointer string // pointer "": allowed under redaction
	}{
		{"group by free text", mr + `"aggregations":[{"count":"mr"}],"group_by":["mr.title"]}`, "/group_by/0"},
		{"max of free text", mr + `"aggregations":[{"max":"mr.title"}]}`, "/aggregations/0/max"},
		{"min of free text", mr + `"aggregations":[{"count":"mr"},{"min":"mr.source_branch"}]}`, "/aggregations/1/min"},
		{"group by enum", mr + `"aggregations":[{"count":"mr"}],"group_by":["mr.state"]}`, ""},
		{"group by node", mr + `"aggregations":[{"count":"mr"}],"group_by":["mr"]}`, ""},
		{"max of a number", mr + `"aggregations":[{"max":"mr.iid"}]}`, ""},
		{"count of free text", mr + `"aggregations":[{"count":"mr.title"}]}`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := plain.Compile([]byte(tc.dsl), caller); err != nil {
				t.Fatalf("without redaction: %v", err)
			}
			_, err := redacted.Compile([]byte(tc.dsl), caller)
			if tc.pointer == "" {
				if err != nil {
					t.Fatalf("with redaction: %v, want it allowed", err)
				}
				return
			}
			var ce *compiler.Error
			if !errors.As(err, &ce) || !errors.Is(err, compiler.ErrRedactedAggregation) || ce.Path != tc.pointer {
				t.Fatalf("with redaction: %v, want REDACTED_AGGREGATION at %s", err, tc.pointer)
			}
		})
	}
}
