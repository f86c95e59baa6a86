package main

import (
	"fmt"
	"strings"
)

// shape is one question asked by one caller: the DSL graphwire compiles, the SQL DuckDB runs
// for the same rules, and the columns both answers are compared on.
type shape struct {
	name   string   // question/caller
	dsl    string   // graphwire's query
	duck   string   // DuckDB's statement
	fields []string // the comparable projection: these columns of both answers
}

// floor is the access floor of each table in the ontology (users are global: 0).
var floor = map[string]int{
	"gl_group": 10, "gl_project": 10, "gl_label": 10, "gl_milestone": 10, "gl_edge": 10,
	"gl_merge_request": 20, "gl_pipeline": 20, "gl_note": 20, "gl_work_item": 20, "gl_commit": 20,
	"gl_deployment": 20, "gl_environment": 20, "gl_merge_request_diff": 20,
	"gl_vulnerability": 25,
	"gl_user":          0,
}

// sqlgen writes DuckDB SQL for one caller over one data layout.
type sqlgen struct {
	c         callerSpec
	versioned bool // tables hold every version and tombstone (else: live rows only, live_ prefix)
}

// scope is the caller's prefix predicate for table t, "true" for an admin or a global table.
func (g sqlgen) scope(t string) string {
	f := floor[t]
	if g.c.Admin || f == 0 {
		return "true"
	}
	var or []string
	for _, p := range g.c.prefixes(f) {
		or = append(or, "starts_with(traversal_path, '"+strings.ReplaceAll(p, "'", "''")+"')")
	}
	return "(" + strings.Join(or, " OR ") + ")"
}

// key is the deduplication key of t: the sorting key of its ReplacingMergeTree table, in the
// same order (DuckDB's copy is sorted by it).
func key(t string) string {
	switch t {
	case "gl_edge":
		return "relationship_kind, source_kind, source_id, target_kind, target_id, traversal_path"
	case "gl_user":
		return "id"
	}
	return "traversal_path, id"
}

// live is a sub-query of the rows of t the caller may read that are the latest version of
// their key and not deleted, restricted by keyPred (a predicate on key columns only, which is
// why it may run before the deduplication). On the live-only layout it is a plain filter.
func (g sqlgen) live(t, keyPred string) string {
	pred := g.scope(t)
	if keyPred != "" {
		pred += " AND " + keyPred
	}
	if !g.versioned {
		return fmt.Sprintf("(SELECT * FROM live_%s WHERE %s)", t, pred)
	}
	return fmt.Sprintf("(SELECT * FROM (SELECT * FROM %s WHERE %s QUALIFY row_number() OVER (PARTITION BY %s ORDER BY _version DESC) = 1) WHERE NOT _deleted)",
		t, pred, key(t))
}

func shapes(g sqlgen) []shape {
	c := g.c.Name
	E := func(pred string) string { return g.live("gl_edge", pred) }
	N := func(t, pred string) string { return g.live(t, pred) }
	return []shape{
		{
			name:   "search/" + c,
			dsl:    `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"state":"merged","title":{"contains":"fix"}},"columns":["iid","title","merged_at"]}],"order_by":"-mr.merged_at","limit":50}`,
			fields: []string{"n0_id"},
			duck: `SELECT id AS n0_id FROM ` + N("gl_merge_request", "") + ` AS mr
WHERE state = 'merged' AND title ILIKE '%fix%'
ORDER BY merged_at DESC NULLS LAST, id ASC LIMIT 51`,
		},
		{
			name:   "traversal_1hop/" + c,
			dsl:    `{"query_type":"traversal","nodes":[{"id":"p","entity":"Project","node_ids":[` + oneHopProjects + `],"columns":["full_path"]},{"id":"mr","entity":"MergeRequest","filters":{"state":"opened"},"columns":["iid","title"]}],"relationships":[{"type":"IN_PROJECT","from":"mr","to":"p"}],"limit":100}`,
			fields: []string{"n0_id", "n1_id"},
			duck: `WITH e AS ` + E("relationship_kind = 'IN_PROJECT' AND target_kind = 'Project' AND target_id IN ("+oneHopProjects+") AND source_kind = 'MergeRequest'") + `,
p AS ` + N("gl_project", "id IN ("+oneHopProjects+")") + `,
mr AS (SELECT * FROM ` + N("gl_merge_request", "id IN (SELECT source_id FROM e)") + ` WHERE state = 'opened')
SELECT p.id AS n0_id, mr.id AS n1_id, p.full_path, mr.iid, mr.title
FROM e JOIN p ON p.id = e.target_id JOIN mr ON mr.id = e.source_id
ORDER BY n0_id, n1_id LIMIT 101`,
		},
		{
			name:   "traversal_2hop/" + c,
			dsl:    `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[` + twoHopUsers + `],"columns":["username"]},{"id":"mr","entity":"MergeRequest","columns":["iid","title"]},{"id":"p","entity":"Project","columns":["full_path"]}],"relationships":[{"type":"AUTHORED","from":"u","to":"mr"},{"type":"IN_PROJECT","from":"mr","to":"p"}],"limit":100}`,
			fields: []string{"n0_id", "n1_id", "n2_id"},
			duck: `WITH u AS ` + N("gl_user", "id IN ("+twoHopUsers+")") + `,
e0 AS ` + E("relationship_kind = 'AUTHORED' AND source_kind = 'User' AND source_id IN ("+twoHopUsers+") AND target_kind = 'MergeRequest'") + `,
mr AS ` + N("gl_merge_request", "id IN (SELECT target_id FROM e0)") + `,
e1 AS ` + E("relationship_kind = 'IN_PROJECT' AND source_kind = 'MergeRequest' AND source_id IN (SELECT id FROM mr) AND target_kind = 'Project'") + `,
p AS ` + N("gl_project", "id IN (SELECT target_id FROM e1)") + `
SELECT u.id AS n0_id, mr.id AS n1_id, p.id AS n2_id, u.username, mr.iid, mr.title, p.full_path
FROM u JOIN e0 ON e0.source_id = u.id JOIN mr ON mr.id = e0.target_id
JOIN e1 ON e1.source_id = mr.id JOIN p ON p.id = e1.target_id
ORDER BY n0_id, n1_id, n2_id LIMIT 101`,
		},
		{
			name:   "variable_length/" + c,
			dsl:    `{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[` + walkGroups + `],"columns":["full_path"]},{"id":"p","entity":"Project","columns":["full_path"]}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,3]}],"limit":100}`,
			fields: []string{"n0_id", "n1_id", "e0_depth"},
			duck: `WITH s1 AS ` + E("relationship_kind = 'CONTAINS' AND source_kind = 'Group' AND source_id IN ("+walkGroups+") AND NOT (target_kind = 'Group' AND target_id = source_id)") + `,
m1 AS ` + N("gl_group", "id IN (SELECT target_id FROM s1 WHERE target_kind = 'Group')") + `,
s2 AS ` + E("relationship_kind = 'CONTAINS' AND source_kind = 'Group' AND source_id IN (SELECT id FROM m1) AND NOT (target_kind = 'Group' AND target_id = source_id)") + `,
m2 AS ` + N("gl_group", "id IN (SELECT target_id FROM s2 WHERE target_kind = 'Group')") + `,
s3 AS ` + E("relationship_kind = 'CONTAINS' AND source_kind = 'Group' AND source_id IN (SELECT id FROM m2) AND target_kind = 'Project'") + `,
walks AS (
  SELECT DISTINCT source_id AS a, target_id AS b, 1 AS depth FROM s1 WHERE target_kind = 'Project'
  UNION ALL
  SELECT DISTINCT s1.source_id, s2.target_id, 2 FROM s1 JOIN s2 ON s2.source_id = s1.target_id
  WHERE s1.target_kind = 'Group' AND s2.target_kind = 'Project'
  UNION ALL
  SELECT DISTINCT s1.source_id, s3.target_id, 3 FROM s1 JOIN s2 ON s2.source_id = s1.target_id JOIN s3 ON s3.source_id = s2.target_id
  WHERE s1.target_kind = 'Group' AND s2.target_kind = 'Group' AND s2.target_id != s1.source_id
),
g AS ` + N("gl_group", "id IN ("+walkGroups+")") + `,
p AS ` + N("gl_project", "id IN (SELECT b FROM walks)") + `
SELECT g.id AS n0_id, p.id AS n1_id, w.depth AS e0_depth, g.full_path, p.full_path
FROM walks AS w JOIN g ON g.id = w.a JOIN p ON p.id = w.b
ORDER BY n0_id, n1_id, e0_depth LIMIT 101`,
		},
		{
			name:   "aggregation/" + c,
			dsl:    `{"query_type":"aggregation","nodes":[{"id":"pl","entity":"Pipeline","filters":{"status":"failed"}},{"id":"p","entity":"Project","columns":["name"]}],"relationships":[{"type":"IN_PROJECT","from":"pl","to":"p"}],"group_by":["p",{"key":"pl.created_at","truncate":"month"}],"aggregations":[{"count":"pl"},{"avg":"pl.duration"}],"aggregation_sort":"-count_pl","limit":50}`,
			fields: []string{"n1_id", "g1", "m0"},
			duck: `WITH pl AS (SELECT id, created_at, duration FROM ` + N("gl_pipeline", "") + ` WHERE status = 'failed'),
e AS ` + E("relationship_kind = 'IN_PROJECT' AND source_kind = 'Pipeline' AND target_kind = 'Project'") + `,
p AS ` + N("gl_project", "") + `
SELECT p.id AS n1_id, any_value(p.name) AS n1_name, CAST(date_trunc('month', pl.created_at) AS DATE) AS g1, count(*) AS m0, avg(pl.duration) AS m1
FROM pl JOIN e ON e.source_id = pl.id JOIN p ON p.id = e.target_id
GROUP BY p.id, g1
ORDER BY m0 DESC, n1_id ASC, g1 ASC NULLS LAST LIMIT 51`,
		},
		{
			name:   "path_finding/" + c,
			dsl:    `{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[` + pathUsers + `]},{"id":"p","entity":"Project","id_range":{"start":1,"end":500}}],"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]},"limit":500}`,
			fields: []string{"depth", "path_nodes", "path_kinds"},
			duck: `WITH dst AS ` + N("gl_project", "id BETWEEN 1 AND 500") + `,
u AS ` + N("gl_user", "id IN ("+pathUsers+")") + `,
f AS (SELECT * FROM ` + E("relationship_kind IN ('CONTAINS', 'MEMBER_OF') AND source_kind = 'User' AND source_id IN ("+pathUsers+")") + ` WHERE source_id IN (SELECT id FROM u)),
b AS ` + E("relationship_kind IN ('CONTAINS', 'MEMBER_OF') AND target_kind = 'Project' AND target_id IN (SELECT id FROM dst) AND source_kind = 'Group'") + `,
m AS ` + E("relationship_kind IN ('CONTAINS', 'MEMBER_OF') AND source_kind = 'Group' AND target_kind = 'Group' AND source_id IN (SELECT target_id FROM f WHERE target_kind = 'Group') AND target_id IN (SELECT source_id FROM b) AND source_id != target_id") + `,
ok AS ` + N("gl_group", "id IN (SELECT target_id FROM f WHERE target_kind = 'Group' UNION ALL SELECT target_id FROM m)") + `,
paths AS (
  SELECT 1 AS depth, [{'a': f.source_id, 'b': 'User'}, {'a': f.target_id, 'b': f.target_kind}] AS path_nodes, [f.relationship_kind] AS path_kinds
  FROM f WHERE f.target_kind = 'Project' AND f.target_id IN (SELECT id FROM dst)
  UNION ALL
  SELECT 2, [{'a': f.source_id, 'b': 'User'}, {'a': f.target_id, 'b': 'Group'}, {'a': b.target_id, 'b': 'Project'}], [f.relationship_kind, b.relationship_kind]
  FROM f JOIN b ON b.source_id = f.target_id
  WHERE f.target_kind = 'Group' AND f.target_id IN (SELECT id FROM ok)
  UNION ALL
  SELECT 3, [{'a': f.source_id, 'b': 'User'}, {'a': f.target_id, 'b': 'Group'}, {'a': m.target_id, 'b': 'Group'}, {'a': b.target_id, 'b': 'Project'}], [f.relationship_kind, m.relationship_kind, b.relationship_kind]
  FROM f JOIN m ON m.source_id = f.target_id JOIN b ON b.source_id = m.target_id
  WHERE f.target_kind = 'Group' AND f.target_id IN (SELECT id FROM ok) AND m.target_id IN (SELECT id FROM ok)
)
SELECT depth, path_nodes, path_kinds FROM paths
ORDER BY depth, CAST(path_nodes AS VARCHAR), CAST(path_kinds AS VARCHAR) LIMIT 501`,
		},
		{
			name:   "neighbors/" + c,
			dsl:    `{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[` + neighborsMRs + `]}],"neighbors":{"direction":"both"},"limit":50}`,
			fields: []string{"center_id", "nbr_id", "nbr_kind", "rel_kind", "outgoing"},
			duck:   neighborsSQL(g),
		},
	}
}

// neighborKinds are the tables a merge request's neighbours can live in.
var neighborKinds = []struct{ kind, table string }{
	{"Label", "gl_label"}, {"Milestone", "gl_milestone"}, {"Note", "gl_note"}, {"Pipeline", "gl_pipeline"},
	{"Project", "gl_project"}, {"Vulnerability", "gl_vulnerability"}, {"WorkItem", "gl_work_item"},
	{"Commit", "gl_commit"}, {"Deployment", "gl_deployment"}, {"Environment", "gl_environment"},
	{"MergeRequestDiff", "gl_merge_request_diff"}, {"User", "gl_user"},
}

func neighborsSQL(g sqlgen) string {
	ids := "(" + neighborsMRs + ")"
	out := g.live("gl_edge", "source_kind = 'MergeRequest' AND source_id IN "+ids+` AND (relationship_kind, target_kind) IN (('CLOSES', 'WorkItem'), ('DEPLOYED_TO', 'Deployment'), ('FIXES', 'Vulnerability'),
  ('HAS_DIFF', 'MergeRequestDiff'), ('HAS_HEAD_PIPELINE', 'Pipeline'), ('HAS_LABEL', 'Label'),
  ('HAS_LATEST_DIFF', 'MergeRequestDiff'), ('HAS_NOTE', 'Note'), ('IN_MILESTONE', 'Milestone'),
  ('IN_PROJECT', 'Project'), ('MERGED_AT_COMMIT', 'Commit'), ('SOURCE_PROJECT', 'Project'),
  ('TRIGGERED', 'Pipeline'))`)
	in := g.live("gl_edge", "target_kind = 'MergeRequest' AND target_id IN "+ids+` AND (relationship_kind, source_kind) IN (('APPROVED', 'User'), ('ASSIGNED', 'User'), ('AUTHORED', 'User'),
  ('CLOSED', 'User'), ('CREATED_FOR_MR', 'Environment'), ('LAST_EDITED_BY', 'User'), ('MERGED', 'User'),
  ('REVIEWER', 'User'), ('UPDATED_BY', 'User'))`)
	var arms []string
	for _, k := range neighborKinds {
		arms = append(arms, fmt.Sprintf("SELECT id, '%s' AS kind FROM %s", k.kind,
			g.live(k.table, fmt.Sprintf("id IN (SELECT nbr_id FROM nb WHERE nbr_kind = '%s')", k.kind))))
	}
	// nb is read thirteen times (once per neighbour table, then the answer): DuckDB would
	// otherwise inline it at each use. Materializing it made this statement about three times
	// faster at scale 10; materializing the other shapes' expressions made them slower, so only
	// this one is.
	return `WITH nb AS MATERIALIZED (
  SELECT source_id AS center_id, target_id AS nbr_id, target_kind AS nbr_kind, relationship_kind AS rel_kind, true AS outgoing FROM ` + out + `
  UNION ALL
  SELECT target_id, source_id, source_kind, relationship_kind, false FROM ` + in + `
),
live AS (
  ` + strings.Join(arms, "\n  UNION ALL\n  ") + `
)
SELECT center_id, nbr_id, nbr_kind, rel_kind, outgoing FROM nb
WHERE center_id IN (SELECT id FROM ` + g.live("gl_merge_request", "id IN "+ids) + `)
  AND (nbr_id, nbr_kind) IN (SELECT id, kind FROM live)
ORDER BY center_id, rel_kind, nbr_kind, nbr_id, outgoing LIMIT 51`
}
