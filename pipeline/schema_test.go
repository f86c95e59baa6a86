package pipeline_test

import (
	"encoding/json"
	"strings"
	"testing"
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
