package scorecard

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/graphwire/graphwire/gcf"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/graphgen"
	"github.com/graphwire/graphwire/internal/tokens"
)

// Session graph: queries are windows of one synthetic graph.
const (
	sessionSeed  = 7
	sessionNodes = 300
	sessionEdges = 600
)

// SessionCall is one scripted call of the agent session.
type SessionCall struct {
	Query string // which query: Q1 or Q2
	// Echo is the index of the earlier call whose pack root the client
	// echoes (gcf-pack-root), or -1 for none.
	Echo int
	Note string
}

// SessionScript returns the five-call session: Q1 and Q2 are overlapping
// windows of the same graph (nodes 0–119 and 60–179, with the edges
// between them); between calls 3 and 4 one node in the overlap changes a
// property.
func SessionScript() []SessionCall {
	return []SessionCall{
		{"Q1", -1, "first call: full payload, opens the session"},
		{"Q1", 0, "same query repeated, root of call 1 echoed"},
		{"Q2", -1, "overlapping query: nodes already sent become references"},
		{"Q1", 0, "after an edit, root of call 1 echoed: delta"},
		{"Q2", 2, "after the edit, root of call 3 echoed: delta"},
	}
}

// SessionStep is the measurement of one call.
type SessionStep struct {
	Call    SessionCall
	Nodes   int
	Edges   int
	Outcome string // full, delta or unchanged
	// Tokens per tokenizer ([Tokenizers] order), and bytes.
	JSON      [2]int // compact JSON, resent in full
	Pretty    [2]int // pretty JSON, resent in full
	Stateless [2]int // gcf-graph without session or root (a full payload each time)
	Stateful  [2]int // gcf-graph through gcf.Respond with a session and snapshots
	JSONBytes int
	GraphFull int
	GraphSent int
}

// SessionResult is the whole scripted session.
type SessionResult struct {
	Steps []SessionStep
}

// Totals sums the steps: JSON, pretty, stateless and stateful tokens per
// tokenizer.
func (s *SessionResult) Totals() (jsonT, pretty, stateless, stateful [2]int) {
	for _, st := range s.Steps {
		for k := range 2 {
			jsonT[k] += st.JSON[k]
			pretty[k] += st.Pretty[k]
			stateless[k] += st.Stateless[k]
			stateful[k] += st.Stateful[k]
		}
	}
	return
}

// sessionWindow is the response of nodes [lo, hi) of g with the edges
// between them, in g's order.
func sessionWindow(g *graphresponse.Response, lo, hi int) *graphresponse.Response {
	r := &graphresponse.Response{FormatVersion: g.FormatVersion, QueryType: g.QueryType,
		Nodes: slices.Clone(g.Nodes[lo:hi]), Edges: []graphresponse.Edge{}, Pagination: &graphresponse.Pagination{}}
	in := func(typ string, id int64) bool {
		return slices.ContainsFunc(r.Nodes, func(n graphresponse.Node) bool { return n.Type == typ && n.ID == id })
	}
	for _, e := range g.Edges {
		if in(e.From, e.FromID) && in(e.To, e.ToID) {
			r.Edges = append(r.Edges, e)
		}
	}
	return r
}

// Session replays [SessionScript] through gcf.Respond, as the service
// would with a gcf-session and gcf-pack-root echoes, and counts what each
// call sends against resending the full JSON.
func Session() (*SessionResult, error) {
	base := graphgen.Graph(sessionSeed, sessionNodes, sessionEdges)
	edited := *base
	edited.Nodes = slices.Clone(base.Nodes)
	const changed = 90 // in both windows
	n := edited.Nodes[changed]
	n.Props = slices.Clone(n.Props)
	for i := range n.Props {
		if n.Props[i].Key == "state" {
			n.Props[i].Value = graphresponse.String("closed-by-bench")
		}
	}
	edited.Nodes[changed] = n

	counter := tokens.New()
	count := func(b []byte) ([2]int, error) {
		var out [2]int
		for k, t := range []string{tokens.O200k, tokens.CL100k} {
			c, err := counter.Count(t, string(b))
			if err != nil {
				return out, err
			}
			out[k] = c
		}
		return out, nil
	}
	session := gcf.NewSession(gcf.Options{})
	snapshots := map[string]*gcf.Graph{}
	var roots []string
	res := &SessionResult{}
	for i, call := range SessionScript() {
		g := base
		if i >= 3 {
			g = &edited
		}
		var r *graphresponse.Response
		switch call.Query {
		case "Q1":
			r = sessionWindow(g, 0, 120)
		default:
			r = sessionWindow(g, 60, 180)
		}
		step := SessionStep{Call: call, Nodes: len(r.Nodes), Edges: len(r.Edges)}
		js := graphresponse.Marshal(r)
		step.JSONBytes = len(js)
		pretty, err := indent(js)
		if err != nil {
			return nil, err
		}
		full, err := gcf.Marshal(r, gcf.Options{Profile: gcf.ProfileGraph})
		if err != nil {
			return nil, fmt.Errorf("session call %d: %w", i+1, err)
		}
		step.GraphFull = len(full)
		cur, err := gcf.ToGraph(r, gcf.GraphOptions{})
		if err != nil {
			return nil, fmt.Errorf("session call %d: %w", i+1, err)
		}
		st := gcf.GraphState{Session: session}
		if call.Echo >= 0 {
			st.ClientRoot = roots[call.Echo]
			st.Base = snapshots[st.ClientRoot]
		}
		var sent bytes.Buffer
		outcome, err := gcf.Respond(&sent, cur, st, gcf.Options{})
		if err != nil {
			return nil, fmt.Errorf("session call %d: %w", i+1, err)
		}
		snapshots[cur.PackRoot] = cur
		roots = append(roots, cur.PackRoot)
		step.Outcome = outcome.String()
		step.GraphSent = sent.Len()
		for _, x := range []struct {
			dst  *[2]int
			text []byte
		}{{&step.JSON, js}, {&step.Pretty, pretty}, {&step.Stateless, full}, {&step.Stateful, sent.Bytes()}} {
			if *x.dst, err = count(x.text); err != nil {
				return nil, err
			}
		}
		res.Steps = append(res.Steps, step)
	}
	return res, nil
}
