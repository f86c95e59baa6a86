package compiler_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/config"
)

// TestSchemaVersion: the schema $id major equals the major of config/QUERY_DSL_VERSION, and
// the caps in the schema match the limits the compiler re-checks.
func TestSchemaVersion(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(config.GraphQuerySchema(), &doc); err != nil {
		t.Fatal(err)
	}
	id, _ := doc["$id"].(string)
	major, _, _ := strings.Cut(config.QueryDSLVersion(), ".")
	if !strings.HasSuffix(id, ":v"+major) {
		t.Errorf("$id = %q, want suffix :v%s (config/QUERY_DSL_VERSION %s)", id, major, config.QueryDSLVersion())
	}
	get := func(path ...string) float64 {
		var v any = doc
		for _, p := range path {
			v = v.(map[string]any)[p]
		}
		return v.(float64)
	}
	caps := []struct {
		path []string
		want float64
	}{
		{[]string{"properties", "nodes", "maxItems"}, 5},
		{[]string{"properties", "relationships", "maxItems"}, 5},
		{[]string{"properties", "aggregations", "maxItems"}, 10},
		{[]string{"properties", "group_by", "maxItems"}, 4},
		{[]string{"properties", "limit", "maximum"}, 1000},
		{[]string{"properties", "cursor", "properties", "page_size", "maximum"}, 1000},
		{[]string{"properties", "cursor", "properties", "after", "maxLength"}, 8192},
		{[]string{"$defs", "NodeSelector", "properties", "node_ids", "maxItems"}, 500},
		{[]string{"$defs", "Filters", "maxProperties"}, 10},
		{[]string{"$defs", "RelationshipSelector", "properties", "filters", "maxProperties"}, 5},
		{[]string{"$defs", "PathConfig", "properties", "max_depth", "maximum"}, 3},
	}
	for _, c := range caps {
		if got := get(c.path...); got != c.want {
			t.Errorf("%s = %v, want %v", strings.Join(c.path, "."), got, c.want)
		}
	}
}
