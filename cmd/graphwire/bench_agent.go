//go:build scorecard

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/tokens"
	"github.com/graphwire/graphwire/scorecard"
	"github.com/graphwire/graphwire/seed"
)

// The agent session's queries: merge requests 1–60, their authors, the
// overlapping window 31–90, then the first two again after the edit.
const (
	agentMRColumns = `["iid","title","state","created_at","source_branch"]`
	agentQ1        = `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":60},"columns":` + agentMRColumns + `}],"limit":100}`
	agentQ2        = `{"query_type":"traversal","nodes":[{"id":"u","entity":"User"},{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":60},"columns":` + agentMRColumns + `}],"relationships":[{"type":"AUTHORED","from":"u","to":"mr"}],"limit":100}`
	agentQ3        = `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":31,"end":90},"columns":` + agentMRColumns + `}],"limit":100}`
	// agentEditID is the merge request the edit changes: in all three
	// windows.
	agentEditID    = 45
	agentEditTable = "gl_merge_request"
)

// agentCalls is the scripted session; the edit happens before the first
// call marked AfterEdit.
func agentCalls() []scorecard.AgentCall {
	return []scorecard.AgentCall{
		{Tool: "get_graph_schema", Label: "get_graph_schema", Echo: -1},
		{Tool: "query_graph", Label: "Q1: merge requests 1–60", Query: agentQ1, Echo: -1},
		{Tool: "query_graph", Label: "Q2: authors of merge requests 1–60", Query: agentQ2, Echo: -1},
		{Tool: "query_graph", Label: "Q3: merge requests 31–90", Query: agentQ3, Echo: -1},
		{Tool: "query_graph", Label: "Q4: Q1 again", Query: agentQ1, Echo: 1, AfterEdit: true},
		{Tool: "query_graph", Label: "Q5: Q2 again", Query: agentQ2, Echo: 2, AfterEdit: true},
	}
}

// graphEdit changes one row of the seeded graph through the engine's
// Loader and puts it back: each write is the whole row at a higher
// _version, so reads with FINAL see the latest.
type graphEdit struct {
	eng     executor.Loader
	table   *seed.Table
	row     []any
	column  int
	version int64
	from    string
	to      string
}

func newGraphEdit(eng executor.Loader, g *seed.Graph, version uint64) (*graphEdit, error) {
	t := g.Table(agentEditTable)
	if t == nil {
		return nil, fmt.Errorf("agent session: the seeded graph has no %s", agentEditTable)
	}
	id, state, vi := slices.Index(t.Columns, "id"), slices.Index(t.Columns, "state"), slices.Index(t.Columns, "_version")
	if id < 0 || state < 0 || vi < 0 {
		return nil, fmt.Errorf("agent session: %s lacks id, state or _version", agentEditTable)
	}
	for _, r := range t.Rows {
		if n, ok := r[id].(int64); ok && n == agentEditID {
			from, _ := r[state].(string)
			to := "merged"
			if from == to {
				to = "closed"
			}
			return &graphEdit{eng: eng, table: t, row: slices.Clone(r), column: state, version: int64(version), from: from, to: to}, nil
		}
	}
	return nil, fmt.Errorf("agent session: the seeded graph has no merge request %d (seed scale too small?)", agentEditID)
}

func (e *graphEdit) write(ctx context.Context, state string) error {
	e.version++
	r := slices.Clone(e.row)
	r[e.column] = state
	r[slices.Index(e.table.Columns, "_version")] = e.version
	return e.eng.Insert(ctx, e.table.Name, e.table.Columns, [][]any{r})
}

func (e *graphEdit) apply(ctx context.Context) error { return e.write(ctx, e.to) }
func (e *graphEdit) undo(ctx context.Context) error  { return e.write(ctx, e.from) }

func (e *graphEdit) describe() string {
	return fmt.Sprintf("merge request %d's `state` goes from %s to %s, written as a new row version through the engine's Loader "+
		"(`executor.Loader.Insert`) between calls 4 and 5", agentEditID, strconv.Quote(e.from), strconv.Quote(e.to))
}

// agentSession serves the MCP server of svc over streamable HTTP on a
// loopback port and runs the scripted session once per format, each in a
// fresh MCP session as the admin caller token.
func agentSession(ctx context.Context, svc *service, token string, edit *graphEdit) (*scorecard.AgentSessionResult, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", svc.mcp.HTTPHandler())
	hs := &http.Server{Handler: mux}
	go hs.Serve(lis)
	defer hs.Close()
	endpoint := "http://" + lis.Addr().String() + "/mcp"

	calls := agentCalls()
	res := &scorecard.AgentSessionResult{Transport: "streamable HTTP on a loopback port, bearer JWT", Edit: edit.describe(), Calls: calls}
	texts := map[string][]string{}
	counter := tokens.New()
	for _, format := range scorecard.AgentFormats {
		run, text, err := agentRun(ctx, endpoint, token, format, calls, edit, counter)
		if err != nil {
			return nil, fmt.Errorf("agent session as %s: %w", format, err)
		}
		res.Runs = append(res.Runs, run)
		texts[format] = text
	}
	if err := gradeAgent(res, texts); err != nil {
		return nil, err
	}
	return res, nil
}

func agentRun(ctx context.Context, endpoint, token, format string, calls []scorecard.AgentCall, edit *graphEdit, counter *tokens.Counter) (scorecard.AgentRun, []string, error) {
	run := scorecard.AgentRun{Format: format}
	tr := &mcp.StreamableClientTransport{Endpoint: endpoint, DisableStandaloneSSE: true, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearerTransport{token, http.DefaultTransport}}}
	cl := mcp.NewClient(&mcp.Implementation{Name: "graphwire-bench", Version: "1"}, nil)
	cs, err := cl.Connect(ctx, tr, nil)
	if err != nil {
		return run, nil, fmt.Errorf("connect: %w", err)
	}
	defer cs.Close()
	var texts, roots []string
	edited := false
	for i, c := range calls {
		if c.AfterEdit && !edited {
			if err := edit.apply(ctx); err != nil {
				return run, nil, fmt.Errorf("edit: %w", err)
			}
			edited = true
		}
		args := map[string]any{}
		if c.Tool == "query_graph" {
			args["query"] = json.RawMessage(c.Query)
			args["format"] = format
			if format == formatter.GCFGraph && c.Echo >= 0 && roots[c.Echo] != "" {
				args["pack_root"] = roots[c.Echo]
			}
		}
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: args})
		if err != nil {
			return run, nil, fmt.Errorf("call %d (%s): %w", i+1, c.Tool, err)
		}
		var text string
		for _, ct := range r.Content {
			if t, ok := ct.(*mcp.TextContent); ok {
				text += t.Text
			}
		}
		if r.IsError {
			return run, nil, fmt.Errorf("call %d (%s): error result: %s", i+1, c.Tool, text)
		}
		var meta struct {
			Format       string `json:"format"`
			PackRoot     string `json:"pack_root"`
			GraphOutcome string `json:"graph_outcome"`
		}
		if r.StructuredContent != nil {
			b, err := json.Marshal(r.StructuredContent)
			if err != nil {
				return run, nil, err
			}
			if err := json.Unmarshal(b, &meta); err != nil {
				return run, nil, fmt.Errorf("call %d: structured content: %w", i+1, err)
			}
		}
		n, err := counter.Count(tokens.O200k, text)
		if err != nil {
			return run, nil, err
		}
		run.Answers = append(run.Answers, scorecard.AgentAnswer{Tokens: n, Format: meta.Format, Outcome: meta.GraphOutcome})
		texts = append(texts, text)
		roots = append(roots, meta.PackRoot)
	}
	if edited {
		if err := edit.undo(ctx); err != nil {
			return run, nil, fmt.Errorf("undo the edit: %w", err)
		}
	}
	return run, texts, nil
}

// gradeAgent sets the round-trip verdict of every query answer against
// the JSON run's answer to the same call. gcf-graph is topology by design
// (spec gcf.md §3.3.8) and its in-session answers (references, deltas) do
// not parse alone, so it is classed without parsing.
func gradeAgent(res *scorecard.AgentSessionResult, texts map[string][]string) error {
	formats, err := scorecard.Formats(formatter.Default())
	if err != nil {
		return err
	}
	if len(texts["json"]) == 0 {
		return errors.New("agent session: no JSON run to grade against")
	}
	byName := map[string]scorecard.Format{}
	for _, f := range formats {
		byName[f.Name] = f
	}
	for ri := range res.Runs {
		run := &res.Runs[ri]
		for i, c := range res.Calls {
			if c.Tool != "query_graph" {
				continue
			}
			a := &run.Answers[i]
			if a.Format == formatter.GCFGraph {
				a.RoundTrip = scorecard.RoundTripTopology
				continue
			}
			ref, err := graphresponse.Unmarshal([]byte(texts["json"][i]))
			if err != nil {
				return fmt.Errorf("agent session: JSON answer of call %d: %w", i+1, err)
			}
			f, ok := byName[a.Format]
			if !ok {
				return fmt.Errorf("agent session: call %d answered in unknown format %q", i+1, a.Format)
			}
			a.RoundTrip = scorecard.Grade(f, ref, []byte(texts[run.Format][i]))
		}
	}
	return nil
}

// bearerTransport adds a bearer token to every request.
type bearerTransport struct {
	token string
	next  http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}
