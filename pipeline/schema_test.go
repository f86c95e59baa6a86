package pipeline_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/compiler"
)

// TestSchemaListsTraversalPath: get_graph_schema lists traversal_path as a column of every
// namespaced entity, in the expanded text and in the JSON, and of no global one.
func TestSchemaListsTraversalPath(t *testing.T) {
	p := newPipeline(t)
	var doc struct {
		Entities []struct {
			Name       string `json:"name"`
			Scope      string `json:"scope"`
			Properties []struct {
				Name string `json:"name"`
			} `json:"properties"`
		} `json:"entities"`
	}
	if err := json.Unmarshal([]byte(p.SchemaJSON()), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Entities) == 0 {
		t.Fatal("the JSON schema lists no entity")
	}
	for _, e := range doc.Entities {
		var has bool
		for _, pr := range e.Properties {
			has = has || pr.Name == "traversal_path"
		}
		if has != (e.Scope == "namespaced") {
			t.Errorf("JSON: %s (%s) lists traversal_path = %v", e.Name, e.Scope, has)
		}
		text, err := p.Schema([]string{e.Name})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(text, "\ntraversal_path String"); got != (e.Scope == "namespaced") {
			t.Errorf("text: %s (%s) lists traversal_path = %v", e.Name, e.Scope, got)
		}
	}
}

// TestSchemaMarksUnsupportedProperties: exactly the properties the compiler
// refuses to select for an administrator with UNSUPPORTED_FEATURE (virtual
// ones graphwire neither holds nor derives; none in the committed ontology,
// where MergeRequest.diff is derived from the diff files) are marked
// "unsupported" in the JSON schema and flagged in the expanded text, so an
// agent reading either does not ask for them.
func TestSchemaMarksUnsupportedProperties(t *testing.T) {
	p := newPipeline(t)
	c, err := compiler.New(p.Ontology(), compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Entities []struct {
			Name       string `json:"name"`
			Properties []struct {
				Name        string `json:"name"`
				Unsupported bool   `json:"unsupported"`
			} `json:"properties"`
		} `json:"entities"`
	}
	if err := json.Unmarshal([]byte(p.SchemaJSON()), &doc); err != nil {
		t.Fatal(err)
	}
	admin := &compiler.Caller{Subject: "1", Admin: true}
	refused := 0
	for _, e := range doc.Entities {
		text, err := p.Schema([]string{e.Name})
		if err != nil {
			t.Fatal(err)
		}
		for _, pr := range e.Properties {
			q := fmt.Sprintf(`{"query_type":"traversal","nodes":[{"id":"n","entity":%q,"columns":[%q],"node_ids":[1]}]}`, e.Name, pr.Name)
			_, err := c.Compile([]byte(q), admin)
			isRefused := errors.Is(err, compiler.ErrUnsupportedFeature)
			if err != nil && !isRefused {
				t.Errorf("%s.%s: %v", e.Name, pr.Name, err)
				continue
			}
			if isRefused {
				refused++
			}
			if pr.Unsupported != isRefused {
				t.Errorf("%s.%s: JSON unsupported = %v, compiler refuses it = %v", e.Name, pr.Name, pr.Unsupported, isRefused)
			}
			line := lineOf(text, pr.Name)
			if flagged := strings.Contains(strings.SplitN(line, " — ", 2)[0], " unsupported"); flagged != isRefused {
				t.Errorf("%s.%s: text line %q flags unsupported = %v, compiler refuses it = %v", e.Name, pr.Name, line, flagged, isRefused)
			}
		}
	}
	// Every virtual property of the committed ontology is now served (stored, or derived
	// from the diff files); the agreement above is what keeps a future unserved one marked.
	if refused != 0 {
		t.Errorf("the compiler refuses %d properties; the committed ontology has none it cannot serve", refused)
	}
	checked := 0
	for _, e := range doc.Entities {
		for _, pr := range e.Properties {
			if (e.Name == "MergeRequest" && pr.Name == "diff") || (e.Name == "MergeRequestDiff" && pr.Name == "patch") {
				checked++
			}
		}
	}
	if checked != 2 {
		t.Errorf("found %d of MergeRequest.diff and MergeRequestDiff.patch in the schema, want both", checked)
	}
}

// TestSchemaMarksNodeIDFilters: exactly the properties the compiler lets a query filter only
// on a node named by node_ids (virtual content: NOT_SELECTIVE without them) are flagged
// "filter-with-node_ids" in the expanded text and filterable_with_node_ids in the JSON, so an
// agent reading either knows the filter exists and what it needs.
func TestSchemaMarksNodeIDFilters(t *testing.T) {
	p := newPipeline(t)
	c, err := compiler.New(p.Ontology(), compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Entities []struct {
			Name       string `json:"name"`
			Properties []struct {
				Name       string `json:"name"`
				NodeIDs    bool   `json:"filterable_with_node_ids"`
				Filterable bool   `json:"filterable"`
			} `json:"properties"`
		} `json:"entities"`
	}
	if err := json.Unmarshal([]byte(p.SchemaJSON()), &doc); err != nil {
		t.Fatal(err)
	}
	admin := &compiler.Caller{Subject: "t", Admin: true}
	marked := 0
	for _, e := range doc.Entities {
		text, err := p.Schema([]string{e.Name})
		if err != nil {
			t.Fatal(err)
		}
		for _, pr := range e.Properties {
			if pr.Filterable || pr.Name == "traversal_path" {
				continue
			}
			q := func(ids string) string {
				return fmt.Sprintf(`{"query_type":"traversal","nodes":[{"id":"n","entity":%q%s,"filters":{%q:{"contains":"xyz"}}}],"limit":5}`, e.Name, ids, pr.Name)
			}
			_, withIDs := c.Compile([]byte(q(`,"node_ids":[1]`)), admin)
			_, without := c.Compile([]byte(q("")), admin)
			want := withIDs == nil && errors.Is(without, compiler.ErrNotSelective)
			if pr.NodeIDs != want {
				t.Errorf("JSON %s.%s: filterable_with_node_ids %v; the compiler with node_ids: %v, without: %v", e.Name, pr.Name, pr.NodeIDs, withIDs, without)
			}
			flagged := strings.Contains(strings.SplitN(lineOf(text, pr.Name), " — ", 2)[0], " filter-with-node_ids")
			if flagged != want {
				t.Errorf("text %s.%s: flagged %v, want %v:\n%s", e.Name, pr.Name, flagged, want, lineOf(text, pr.Name))
			}
			if want {
				marked++
			}
		}
	}
	if marked == 0 {
		t.Error("no property is filterable only with node_ids; the committed ontology has File.content")
	}
}

// lineOf is the line of an expanded schema text that describes property name.
func lineOf(text, name string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, name+" ") {
			return l
		}
	}
	return ""
}
