package sqlbench_test

import (
	"fmt"
	"strconv"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/seed"
)

// question is one query type: the DSL the compiler gets and the values the reference
// statements bind for it. The reference files are testdata/<name>_<caller>.sql.
type question struct {
	name   string
	dsl    string
	params map[string]any
	// steps: compare the compiled two-step plan with a two-step reference (steps_test.go);
	// the reference's second statement is testdata/<name>_<caller>.lookup.sql.
	steps bool
}

// questions are shaped for the seeded graph of any scale: the anchors are small ids, which exist
// in every graph, some picked for what they reach at scale 1 (the test's graph) and 10 (the
// benchmark's): users 21 (scale 1) and 23 (scale 10) belong to a group the churn tombstones,
// and merge request 14 FIXES vulnerabilities, which a member who reads the merge request may
// not read (floor 25).
// Each question has a total order and a limit that both sides apply, so the page is fully
// determined; the path anchors' id range holds at most 500 ids, so the compiler's cap of 500
// anchor nodes never cuts it.
var questions = []question{
	{
		name: "search",
		dsl:  `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"state":"merged","title":{"contains":"fix"}},"columns":["iid","title","merged_at"]}],"order_by":"-mr.merged_at","limit":50}`,
		params: map[string]any{
			"state": "merged", "title": "fix", "limit": uint64(51),
		},
	},
	{
		name: "traversal_1hop",
		dsl:  `{"query_type":"traversal","nodes":[{"id":"p","entity":"Project","node_ids":[1,2,3,4,5],"columns":["full_path"]},{"id":"mr","entity":"MergeRequest","filters":{"state":"opened"},"columns":["iid","title"]}],"relationships":[{"type":"IN_PROJECT","from":"mr","to":"p"}],"limit":100}`,
		params: map[string]any{
			"project_ids": []int64{1, 2, 3, 4, 5}, "state": "opened", "limit": uint64(101),
		},
	},
	{
		name: "traversal_2hop",
		dsl:  `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1,2,3,4,5,6,7,8],"columns":["username"]},{"id":"mr","entity":"MergeRequest","columns":["iid","title"]},{"id":"p","entity":"Project","columns":["full_path"]}],"relationships":[{"type":"AUTHORED","from":"u","to":"mr"},{"type":"IN_PROJECT","from":"mr","to":"p"}],"limit":100}`,
		params: map[string]any{
			"user_ids": []int64{1, 2, 3, 4, 5, 6, 7, 8}, "limit": uint64(101),
		},
	},
	{
		name: "variable_length",
		dsl:  `{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1,2,3],"columns":["full_path"]},{"id":"p","entity":"Project","columns":["full_path"]}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,3]}],"limit":100}`,
		params: map[string]any{
			"group_ids": []int64{1, 2, 3}, "limit": uint64(101),
		},
	},
	{
		name: "aggregation",
		dsl:  `{"query_type":"aggregation","nodes":[{"id":"pl","entity":"Pipeline","filters":{"status":"failed"}},{"id":"p","entity":"Project","columns":["name"]}],"relationships":[{"type":"IN_PROJECT","from":"pl","to":"p"}],"group_by":["p",{"key":"pl.created_at","truncate":"month"}],"aggregations":[{"count":"pl"},{"avg":"pl.duration"}],"aggregation_sort":"-count_pl","limit":50}`,
		params: map[string]any{
			"status": "failed", "limit": uint64(51),
		},
	},
	{
		name: "path_finding",
		dsl:  `{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[1,2,3,6,8,21,23]},{"id":"p","entity":"Project","id_range":{"start":1,"end":500}}],"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]},"limit":500}`,
		params: map[string]any{
			"user_ids": []int64{1, 2, 3, 6, 8, 21, 23}, "project_from": int64(1), "project_to": int64(500),
			"limit": uint64(501),
		},
	},
	{
		name: "neighbors",
		dsl:  `{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1,2,3,9,10,14]}],"neighbors":{"direction":"both"},"limit":50}`,
		params: map[string]any{
			"mr_ids": []int64{1, 2, 3, 9, 10, 14}, "limit": uint64(51),
		},
	},
	{
		// The same question as the plan the executor runs: the edges, then a lookup of only the
		// kinds they reach; the reference may take the same two steps.
		name:  "neighbors_2step",
		dsl:   `{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1,2,3,9,10,14]}],"neighbors":{"direction":"both"},"limit":50}`,
		steps: true,
		params: map[string]any{
			"mr_ids": []int64{1, 2, 3, 9, 10, 14}, "edges_limit": uint64(compiler.NeighborEdgesLimit),
		},
	},
}

// caller is one side of the authorization rules.
type caller struct {
	name   string
	caller *compiler.Caller
}

// The callers (env.callers): an admin, and a member fitted to the graph of the scale measured
// (seed.ScopedGrants over the paths the questions start from, read by benchCallers after the
// churn), with grants at several levels so that the entity floors (10 for groups, projects and
// edges, 20 for merge requests and pipelines, 25 for vulnerabilities) each admit a different
// set of prefixes: up to 3 at floor 10, 2 at 20 and 1 at 25, as the reference files bind them.
// A fixed member fits one scale only: the paths of one scale's graph do not exist in another's
// or hold other nodes, and the answers a scoped case compares can then be empty.

// floors are the access floors that occur in the ontology: the reference statements of a
// scoped caller take the prefixes admitted at each as scope<floor>_<i> (String, 1-based, sorted).
var floors = []int{10, 20, 25}

// scopeParams returns the scope<floor>_<i> values of c: the scope paths whose level reaches
// the floor, sorted, without those inside another one (seed.PrefixesAt, written apart from the
// compiler's PathsAtLeast, so that the reference statements do not inherit a mistake of the
// code they are compared with).
func scopeParams(c *compiler.Caller) map[string]any {
	out := map[string]any{}
	if c.Admin {
		return out
	}
	for _, f := range floors {
		for i, p := range seed.PrefixesAt(c.Scopes, f) {
			out["scope"+strconv.Itoa(f)+"_"+strconv.Itoa(i+1)] = p
		}
	}
	return out
}

// benchCase is one question asked by one caller.
type benchCase struct {
	name   string // question/caller
	q      question
	caller caller
	file   string // testdata file of the reference statement
}

// cases are every question asked by every caller, the admin first; without an engine (no
// callers fitted), none.
func cases() []benchCase {
	var out []benchCase
	for _, q := range questions {
		for _, c := range env.callers {
			out = append(out, benchCase{
				name:   q.name + "/" + c.name,
				q:      q,
				caller: c,
				file:   fmt.Sprintf("%s_%s.sql", q.name, c.name),
			})
		}
	}
	return out
}
