package orbit_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/graphresponse"
)

var admin = &compiler.Caller{Subject: "1", Admin: true}

const live = "FINAL WHERE _deleted = false"

// liveIDs is the SQL set of the live ids of an entity table.
func liveIDs(table string) string { return "(SELECT id FROM " + table + " " + live + ")" }

// edgeSQL is an oracle query for edges of one type between live nodes, formatted as the
// extractor edges formats them; extra narrows the edge rows.
func edgeSQL(rel, from, fromTable, to, toTable, extra string) string {
	return "SELECT concat(source_kind, ':', toString(source_id), '-', relationship_kind, '->', target_kind, ':', toString(target_id)) FROM gl_edge " + live +
		" AND relationship_kind = '" + rel + "' AND source_kind = '" + from + "' AND target_kind = '" + to + "'" +
		" AND source_id IN " + liveIDs(fromTable) + " AND target_id IN " + liveIDs(toTable) + " " + extra
}

type extractor func(*graphresponse.Response) []string

func nodes(typ string) extractor {
	return func(r *graphresponse.Response) []string {
		var out []string
		for _, n := range r.Nodes {
			if n.Type == typ {
				out = append(out, typ+":"+strconv.FormatInt(n.ID, 10))
			}
		}
		return out
	}
}

func edgeString(e graphresponse.Edge) string {
	return fmt.Sprintf("%s:%d-%s->%s:%d", e.From, e.FromID, e.Type, e.To, e.ToID)
}

func edges(r *graphresponse.Response) []string {
	var out []string
	for _, e := range r.Edges {
		out = append(out, edgeString(e))
	}
	return out
}

// paths renders each path of a path_finding response as its edges in step order.
func paths(r *graphresponse.Response) []string {
	byPath := map[int64][]graphresponse.Edge{}
	for _, e := range r.Edges {
		byPath[e.PathID.Value] = append(byPath[e.PathID.Value], e)
	}
	var out []string
	for _, es := range byPath {
		slices.SortFunc(es, func(a, b graphresponse.Edge) int { return int(a.Step.Value - b.Step.Value) })
		var parts []string
		for _, e := range es {
			parts = append(parts, edgeString(e))
		}
		out = append(out, strings.Join(parts, " "))
	}
	return out
}

func cellString(v graphresponse.Value) string {
	switch v.Kind() {
	case graphresponse.KindInt:
		return strconv.FormatInt(v.Int(), 10)
	case graphresponse.KindString:
		return v.Str()
	case graphresponse.KindNull:
		return "NULL"
	}
	return fmt.Sprintf("%#v", v)
}

// rows renders aggregation rows as their cells named keys, joined by "|".
func rows(keys ...string) extractor {
	return func(r *graphresponse.Response) []string {
		var out []string
		for _, row := range r.Rows {
			var cells []string
			for _, k := range keys {
				v, _ := row.Get(k)
				cells = append(cells, cellString(v))
			}
			out = append(out, strings.Join(cells, "|"))
		}
		return out
	}
}

type example struct {
	name    string
	query   string    // Orbit-style DSL
	oracle  string    // plain SQL returning one String column per expected item
	extract extractor // the same items from the response
}

// runExamples checks each example's response against its oracle. Every oracle must return
// at least one item, so no example passes by matching nothing.
func runExamples(t *testing.T, examples []example) {
	engine(t)
	for _, ex := range examples {
		t.Run(ex.name, func(t *testing.T) {
			var want []string
			for _, r := range plain(t, ex.oracle) {
				want = append(want, r[0].(string))
			}
			if len(want) == 0 {
				t.Fatal("the oracle finds nothing on the seeded graph; the example proves nothing")
			}
			got := ex.extract(run(t, ex.query, admin))
			slices.Sort(want)
			slices.Sort(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("-want +got:\n%s", diff)
			}
		})
	}
}

func TestTraversalExamples(t *testing.T) {
	runExamples(t, []example{
		{
			name:    "merge requests whose title has the word api",
			query:   `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"title":{"token_match":"api"}},"columns":["iid","title","state"]}],"limit":1000}`,
			oracle:  "SELECT concat('MergeRequest:', toString(id)) FROM gl_merge_request " + live + " AND hasToken(title, 'api')",
			extract: nodes("MergeRequest"),
		},
		{
			name:    "merge requests by exact title, ordered by title",
			query:   `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"title":["Harden api search","Improve webhook cache"]}}],"order_by":"-mr.title","limit":1000}`,
			oracle:  "SELECT concat('MergeRequest:', toString(id)) FROM gl_merge_request " + live + " AND title IN ('Harden api search', 'Improve webhook cache')",
			extract: nodes("MergeRequest"),
		},
		{
			name:    "vulnerabilities whose title has any of the words XSS or traversal",
			query:   `{"query_type":"traversal","nodes":[{"id":"v","entity":"Vulnerability","filters":{"title":{"any_tokens":"XSS traversal"}},"columns":["title","severity","state"]}],"limit":1000}`,
			oracle:  "SELECT concat('Vulnerability:', toString(id)) FROM gl_vulnerability " + live + " AND hasAnyTokens(title, 'XSS traversal')",
			extract: nodes("Vulnerability"),
		},
		{
			name:    "definitions in files whose path has both words cache and search",
			query:   `{"query_type":"traversal","nodes":[{"id":"d","entity":"Definition","filters":{"file_path":{"all_tokens":"cache search"}},"columns":["name","fqn","file_path","content"]}],"limit":1000}`,
			oracle:  "SELECT concat('Definition:', toString(id)) FROM gl_definition " + live + " AND hasAllTokens(file_path, 'cache search')",
			extract: nodes("Definition"),
		},
		{
			name: "code graph: files under cache or docs and the definitions they define",
			query: `{"query_type":"traversal","nodes":[{"id":"f","entity":"File","filters":{"path":{"any_tokens":"cache docs"}},"columns":["path","language","content"]},{"id":"d","entity":"Definition","columns":["name","fqn"]}],
				"relationships":[{"type":"DEFINES","from":"f","to":"d"}],"limit":1000}`,
			oracle:  edgeSQL("DEFINES", "File", "gl_file", "Definition", "gl_definition", "AND source_id IN (SELECT id FROM gl_file "+live+" AND hasAnyTokens(path, 'cache docs'))"),
			extract: edges,
		},
		{
			name: "CI: failed jobs of failed pipelines",
			query: `{"query_type":"traversal","nodes":[{"id":"p","entity":"Pipeline","filters":{"status":"failed"},"columns":["status","ref","source"]},{"id":"j","entity":"Job","filters":{"status":"failed"},"columns":["name","status","failure_reason"]}],
				"relationships":[{"type":"HAS_JOB","from":"p","to":"j"}],"limit":1000}`,
			oracle: edgeSQL("HAS_JOB", "Pipeline", "gl_pipeline", "Job", "gl_job",
				"AND source_id IN (SELECT id FROM gl_pipeline "+live+" AND status = 'failed') AND target_id IN (SELECT id FROM gl_job "+live+" AND status = 'failed')"),
			extract: edges,
		},
		{
			name: "diffs: per-file diffs of the first merge requests' diff versions",
			query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":60},"columns":["iid","title"]},{"id":"snap","entity":"MergeRequestDiff","columns":["state"]},{"id":"file","entity":"MergeRequestDiffFile","columns":["new_path","old_path","too_large","diff"]}],
				"relationships":[{"type":"HAS_DIFF","from":"mr","to":"snap"},{"type":"HAS_FILE","from":"snap","to":"file"}],"limit":1000}`,
			oracle: "SELECT DISTINCT concat('MergeRequestDiffFile:', toString(f.target_id)) FROM (" +
				"SELECT source_id, target_id FROM gl_edge " + live + " AND relationship_kind = 'HAS_DIFF' AND source_kind = 'MergeRequest' AND source_id BETWEEN 1 AND 60 AND source_id IN " + liveIDs("gl_merge_request") + " AND target_id IN " + liveIDs("gl_merge_request_diff") + ") AS d " +
				"JOIN (SELECT source_id, target_id FROM gl_edge " + live + " AND relationship_kind = 'HAS_FILE' AND source_kind = 'MergeRequestDiff' AND target_id IN " + liveIDs("gl_merge_request_diff_file") + ") AS f ON f.source_id = d.target_id",
			extract: nodes("MergeRequestDiffFile"),
		},
	})
}

func TestAggregationExamples(t *testing.T) {
	runExamples(t, []example{
		{
			name: "security: vulnerabilities per severity",
			query: `{"query_type":"aggregation","nodes":[{"id":"v","entity":"Vulnerability","filters":{"state":["detected","confirmed","dismissed","resolved"]}},{"id":"p","entity":"Project"}],
				"relationships":[{"type":"IN_PROJECT","from":"v","to":"p"}],"group_by":["v.severity"],"aggregations":[{"count":"v","as":"n"}]}`,
			oracle: "SELECT concat(severity, '|', toString(count())) FROM gl_vulnerability " + live +
				" AND id IN (SELECT source_id FROM gl_edge " + live + " AND relationship_kind = 'IN_PROJECT' AND source_kind = 'Vulnerability' AND target_kind = 'Project' AND target_id IN " + liveIDs("gl_project") + ") GROUP BY severity",
			extract: rows("v_severity", "n"),
		},
		{
			name: "CI: failed jobs per pipeline status, grouped by the pipeline's ref words",
			query: `{"query_type":"aggregation","nodes":[{"id":"p","entity":"Pipeline","filters":{"ref":{"token_match":"main"}}},{"id":"j","entity":"Job","filters":{"status":"failed"}}],
				"relationships":[{"type":"HAS_JOB","from":"p","to":"j"}],"group_by":["p.status"],"aggregations":[{"count":"j","as":"failed_jobs"}]}`,
			oracle: "SELECT concat(p.status, '|', toString(count())) FROM (SELECT id, status FROM gl_pipeline " + live + " AND hasToken(ref, 'main')) AS p " +
				"JOIN (SELECT source_id, target_id FROM gl_edge " + live + " AND relationship_kind = 'HAS_JOB' AND source_kind = 'Pipeline' AND target_kind = 'Job' AND target_id IN (SELECT id FROM gl_job " + live + " AND status = 'failed')) AS e ON e.source_id = p.id GROUP BY p.status",
			extract: rows("p_status", "failed_jobs"),
		},
	})
}

func TestNeighborsExamples(t *testing.T) {
	defs := plain(t, "SELECT toString(id) FROM gl_definition "+live+" ORDER BY id LIMIT 8")
	var ids []string
	for _, r := range defs {
		ids = append(ids, r[0].(string))
	}
	idList := strings.Join(ids, ",")
	var withStages []string
	for _, r := range plain(t, "SELECT DISTINCT toString(source_id) FROM gl_edge "+live+" AND relationship_kind = 'HAS_STAGE' AND source_kind = 'Pipeline' ORDER BY 1 LIMIT 5") {
		withStages = append(withStages, r[0].(string))
	}
	staged := strings.Join(withStages, ",")
	runExamples(t, []example{
		{
			name:  "code graph: everything linked to the first definitions",
			query: `{"query_type":"neighbors","nodes":[{"id":"d","entity":"Definition","node_ids":[` + idList + `]}],"neighbors":{"direction":"both"},"options":{"dynamic_columns":"*"},"limit":1000}`,
			oracle: "SELECT concat(source_kind, ':', toString(source_id), '-', relationship_kind, '->', target_kind, ':', toString(target_id)) FROM gl_edge " + live +
				" AND ((source_kind = 'Definition' AND source_id IN (" + idList + ")) OR (target_kind = 'Definition' AND target_id IN (" + idList + ")))",
			extract: edges,
		},
		{
			name:  "CI: stages and jobs of pipelines that have stages",
			query: `{"query_type":"neighbors","nodes":[{"id":"p","entity":"Pipeline","node_ids":[` + staged + `]}],"neighbors":{"direction":"outgoing","rel_types":["HAS_STAGE","HAS_JOB"]},"limit":1000}`,
			oracle: "SELECT concat(source_kind, ':', toString(source_id), '-', relationship_kind, '->', target_kind, ':', toString(target_id)) FROM gl_edge " + live +
				" AND relationship_kind IN ('HAS_STAGE', 'HAS_JOB') AND source_kind = 'Pipeline' AND source_id IN (" + staged + ")" +
				" AND ((target_kind = 'Stage' AND target_id IN " + liveIDs("gl_stage") + ") OR (target_kind = 'Job' AND target_id IN " + liveIDs("gl_job") + "))",
			extract: edges,
		},
	})
}

func TestPathFindingExamples(t *testing.T) {
	first := plain(t, "SELECT toString(source_id) FROM gl_edge "+live+" AND relationship_kind = 'HAS_DIFF' AND source_kind = 'MergeRequest' ORDER BY source_id LIMIT 1")
	if len(first) == 0 {
		t.Fatal("no merge request has a diff")
	}
	mr := first[0][0].(string)
	runExamples(t, []example{
		{
			name: "diffs: from a merge request to its per-file diffs",
			query: `{"query_type":"path_finding","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[` + mr + `]},{"id":"f","entity":"MergeRequestDiffFile","id_range":{"start":1,"end":500}}],
				"path":{"type":"shortest","from":"mr","to":"f","max_depth":2,"rel_types":["HAS_DIFF","HAS_FILE"]},"limit":1000}`,
			oracle: "SELECT concat('MergeRequest:', toString(d.source_id), '-HAS_DIFF->MergeRequestDiff:', toString(d.target_id), ' MergeRequestDiff:', toString(f.source_id), '-HAS_FILE->MergeRequestDiffFile:', toString(f.target_id)) FROM (" +
				"SELECT source_id, target_id FROM gl_edge " + live + " AND relationship_kind = 'HAS_DIFF' AND source_kind = 'MergeRequest' AND source_id = " + mr + " AND target_id IN " + liveIDs("gl_merge_request_diff") + ") AS d " +
				"JOIN (SELECT source_id, target_id FROM gl_edge " + live + " AND relationship_kind = 'HAS_FILE' AND source_kind = 'MergeRequestDiff' AND target_id BETWEEN 1 AND 500 AND target_id IN " + liveIDs("gl_merge_request_diff_file") + ") AS f ON f.source_id = d.target_id",
			extract: paths,
		},
	})
}
