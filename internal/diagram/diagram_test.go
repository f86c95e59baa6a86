package diagram_test

import (
	"strings"

	"github.com/graphwire/graphwire/graphresponse"
)

// tricky is a response whose text tries to break out of every quoting the notations have:
// quotes, backslashes, escapes that are already escapes, markup, entities, statement ends,
// comment starts, line breaks and controls, plus an edge whose ends are not among the nodes.
func tricky() *graphresponse.Response {
	return &graphresponse.Response{
		FormatVersion: "5.0.1",
		QueryType:     "traversal",
		Nodes: []graphresponse.Node{
			{Type: "User", ID: 1, Props: []graphresponse.Member{
				{Key: "name", Value: graphresponse.String(`Ann "The Hammer" O'Neil \n not a break \\`)},
				{Key: "bio", Value: graphresponse.String("line one\nline two\ttab\r\x00\x7f\u2028end")},
				{Key: "html", Value: graphresponse.String(`<b>bold</b> & <br/> #quot; #35; a|b; %% c; -->x`)},
				{Key: "unicode", Value: graphresponse.String("日本語 café 🚀 \u202eevil")},
				{Key: "admin", Value: graphresponse.Bool(true)},
			}},
			{Type: "MergeRequest", ID: 81, Props: []graphresponse.Member{
				{Key: "title", Value: graphresponse.String(strings.Repeat("long title ", 10))},
				{Key: "labels", Value: graphresponse.Array(graphresponse.String("x"), graphresponse.Int(2), graphresponse.Null())},
				{Key: "score", Value: graphresponse.Float(1.5)},
			}},
			{Type: "graph", ID: -3}, // a DOT keyword as a type
		},
		Edges: []graphresponse.Edge{
			{From: "User", FromID: 1, To: "MergeRequest", ToID: 81, Type: "AUTHORED"},
			{From: "MergeRequest", FromID: 81, To: "Project", ToID: 9, Type: "IN_PROJECT", Depth: graphresponse.Some(2)},
			{From: "graph", FromID: -3, To: "User", ToID: 1, Type: "REL", PathID: graphresponse.Some(0), Step: graphresponse.Some(1)},
		},
	}
}

// wantNodes are the label lines of tricky's boxes, in order, as a reader should see them.
var wantNodes = []struct {
	id    string
	lines []string
}{
	{"User:1", []string{
		"User 1",
		`name: Ann "The Hammer" O'Neil \n not a break \\`,
		`bio: line one\u000Aline two\u0009tab\u000D\u0000\u007F\u2028end`,
		`html: <b>bold</b> & <br/> #quot; #35; a|b; %% c; -->x`,
		"unicode: 日本語 café 🚀 \u202eevil",
		"admin: true",
	}},
	{"MergeRequest:81", []string{
		"MergeRequest 81",
		"title: " + strings.Repeat("long title ", 5)[:47] + "…",
		"labels: [x, 2, null]",
		"score: 1.5",
	}},
	{"graph:-3", []string{"graph -3"}},
	{"Project:9", []string{"Project 9"}},
}

// wantEdges are tricky's arrows: from, to (indexes into wantNodes) and label.
var wantEdges = []struct {
	from, to int
	label    string
}{
	{0, 1, "AUTHORED"},
	{1, 3, "IN_PROJECT (depth 2)"},
	{2, 0, "REL (path 0, step 1)"},
}
