package toon

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gkampitakis/go-snaps/snaps"

	"github.com/graphwire/graphwire/graphresponse"
)

// neighborsResponse is a neighbours-shaped result: mixed node types, edges
// of several triples at depth 1, a cursor.
func neighborsResponse() *graphresponse.Response {
	cursor := "eyJrIjoxfQ"
	s := graphresponse.String
	return &graphresponse.Response{
		FormatVersion: "1.2.0",
		QueryType:     graphresponse.QueryNeighbors,
		Nodes: []graphresponse.Node{
			{Type: "Project", ID: 278964, Props: []graphresponse.Member{{Key: "name", Value: s("GitLab")}, {Key: "visibility", Value: s("public")}}},
			{Type: "User", ID: 64248, Props: []graphresponse.Member{{Key: "username", Value: s("stanhu")}, {Key: "bot", Value: graphresponse.Bool(false)}}},
			{Type: "User", ID: 1, Props: []graphresponse.Member{{Key: "username", Value: s("root")}, {Key: "state", Value: s("blocked")}}},
			{Type: "Group", ID: 9970, Props: []graphresponse.Member{{Key: "full_path", Value: s("gitlab-org")}}},
		},
		Edges: []graphresponse.Edge{
			{From: "User", FromID: 64248, To: "Project", ToID: 278964, Type: "MEMBER_OF", Depth: graphresponse.Some(1)},
			{From: "User", FromID: 1, To: "Project", ToID: 278964, Type: "MEMBER_OF", Depth: graphresponse.Some(1)},
			{From: "Project", FromID: 278964, To: "Group", ToID: 9970, Type: "IN_GROUP", Depth: graphresponse.Some(1)},
		},
		Pagination: &graphresponse.Pagination{HasMore: true, NextCursor: &cursor},
	}
}

// TestRenderingSnapshots snapshots the rendering of every query shape: the
// GOON conformance corpus (traversal, aggregation by node, by property and
// ungrouped, path finding, pagination, empty results), the §7.4/§7.5
// examples and a neighbours result.
func TestRenderingSnapshots(t *testing.T) {
	type named struct {
		name string
		r    *graphresponse.Response
	}
	var cases []named
	for _, f := range goonInputs(t) {
		cases = append(cases, named{"goon/" + strings.TrimSuffix(filepath.Base(f), ".input.json"), readResponse(t, f)})
	}
	locals, err := filepath.Glob("testdata/graph_*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range locals {
		cases = append(cases, named{"spec/" + strings.TrimSuffix(filepath.Base(f), ".json"), readResponse(t, f)})
	}
	cases = append(cases, named{"neighbors", neighborsResponse()})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := checkRendering(t, c.r)
			snaps.MatchSnapshot(t, string(out))
		})
	}
}
