package scorecard

import (
	"fmt"
	"strings"
)

// AgentFormats are the query_graph formats of the MCP agent session, in
// report order: every format an agent may ask for, then "auto".
var AgentFormats = []string{"goon", "gcf", "gcf-graph", "gcx", "toon", "json", "auto"}

// AgentCall is one tool call of the MCP agent session.
type AgentCall struct {
	Tool string // get_graph_schema or query_graph
	// Label names the call in the report ("Q1: merge requests 1–60").
	Label string
	// Query is the DSL of a query_graph call; empty for other tools.
	Query string
	// Echo is, for gcf-graph, the index of the earlier call whose
	// pack_root the agent sends back, or -1.
	Echo int
	// AfterEdit reports that the call runs after the session's edit.
	AfterEdit bool
}

// AgentAnswer is one tool result of one format's run.
type AgentAnswer struct {
	Tokens int // o200k_base tokens of the result's text content
	// Format is the format that answered (auto: the one it chose).
	Format string
	// Outcome is gcf-graph's full, delta or unchanged.
	Outcome string
	// RoundTrip is the verdict of the answer against the same call's JSON
	// answer (see [Grade]); "" for a call that is not a query. An answer
	// that is not [Counted] is marked † in the report.
	RoundTrip string
}

// AgentRun is the whole session in one requested format.
type AgentRun struct {
	Format  string
	Answers []AgentAnswer // one per call, in call order
}

// Total sums the tokens of every answer of the run.
func (r AgentRun) Total() int {
	n := 0
	for _, a := range r.Answers {
		n += a.Tokens
	}
	return n
}

// Lossy counts the query answers of the run that lost content.
func (r AgentRun) Lossy() int {
	n := 0
	for _, a := range r.Answers {
		if a.RoundTrip != "" && !Counted(a.RoundTrip) {
			n++
		}
	}
	return n
}

// AgentSessionResult is the scripted agent session over MCP, run once per
// format of [AgentFormats].
type AgentSessionResult struct {
	// Transport says how the client reached the server.
	Transport string
	// Edit says what changed in the graph between the calls marked
	// AfterEdit and the ones before.
	Edit  string
	Calls []AgentCall
	Runs  []AgentRun // in [AgentFormats] order
}

// run returns the run of format name, or nil.
func (s *AgentSessionResult) run(name string) *AgentRun {
	for i := range s.Runs {
		if s.Runs[i].Format == name {
			return &s.Runs[i]
		}
	}
	return nil
}

func writeAgentSession(p func(string, ...any), s *AgentSessionResult) {
	p("\n## Agent session over MCP\n\n")
	p("A scripted agent session driven through the real MCP server (%s) with the official Go SDK client: ", s.Transport)
	p("`get_graph_schema` (default, compact), then five `query_graph` calls whose answers overlap, with one edit to the graph ")
	p("between calls: %s. The session is run once per format, each in a fresh MCP session on the same graph ", s.Edit)
	p("(the edit is undone after each run). gcf-graph runs as an agent would use it: within one MCP session (nodes already sent ")
	p("become references) and echoing the `pack_root` of the earlier answer to the same query (unchanged or delta answers). ")
	p("`auto` lets the server pick, per answer, the lossless format with the fewest tokens. Cells are o200k_base tokens of ")
	p("the tool result's text content (what the model reads; the structured metadata is left out). ")
	p("%s marks an answer that does not carry the same call's JSON answer losslessly (or in gcx's canonical form): GOON ", LossyMark)
	p("truncates and drops values, and gcf-graph sends topology only, so its total is not comparable content.\n\n")
	p("| call | tool / query |")
	for _, r := range s.Runs {
		p(" %s |", r.Format)
	}
	p("\n|---|---|%s\n", strings.Repeat("--:|", len(s.Runs)))
	for i, c := range s.Calls {
		label := c.Label
		if c.AfterEdit {
			label += " (after the edit)"
		}
		p("| %d | %s |", i+1, label)
		for _, r := range s.Runs {
			a := r.Answers[i]
			cell := fmt.Sprint(a.Tokens)
			if a.RoundTrip != "" && !Counted(a.RoundTrip) {
				cell += LossyMark
			}
			switch {
			case r.Format == "auto" && c.Tool == "query_graph":
				cell += " " + a.Format
			case a.Outcome != "" && a.Outcome != "full":
				cell += " " + a.Outcome
			}
			p(" %s |", cell)
		}
		p("\n")
	}
	p("| | **total** |")
	for _, r := range s.Runs {
		cell := fmt.Sprint(r.Total())
		if r.Lossy() > 0 {
			cell += LossyMark
		}
		p(" **%s** |", cell)
	}
	p("\n")
	base := s.run("json")
	if base == nil {
		return
	}
	p("| | saving against json |")
	for _, r := range s.Runs {
		cell := pct(Saving(r.Total(), base.Total()))
		if r.Lossy() > 0 {
			cell = fmt.Sprintf("lossy%s (%d of %d answers)", LossyMark, r.Lossy(), len(s.Calls)-1)
		}
		p(" %s |", cell)
	}
	p("\n\nA lossy%s total is what the agent was sent, not a saving on the same content. ", LossyMark)
	if a := s.run("auto"); a != nil {
		p("`auto` answered the session in **%d** tokens against **%d** for json (**%s**), choosing ", a.Total(), base.Total(), pct(Saving(a.Total(), base.Total())))
		var chosen []string
		for i, c := range s.Calls {
			if c.Tool == "query_graph" {
				chosen = append(chosen, fmt.Sprintf("Q%d %s", len(chosen)+1, a.Answers[i].Format))
			}
		}
		p("%s.", strings.Join(chosen, ", "))
		p(" `auto` chooses only among answers that parse back to the same response, values and types included; gcx's canonical form ")
		p("returns every value as its cell text, so `auto` picks gcx only for answers that lose nothing that way (every value a string), ")
		p("and its total can be above gcx's where answers carry numbers or dates.")
	}
	p("\n\nThe calls:\n\n")
	for i, c := range s.Calls {
		if c.Query == "" {
			p("%d. `%s` (no arguments)\n", i+1, c.Tool)
			continue
		}
		echo := ""
		if c.Echo >= 0 {
			echo = fmt.Sprintf("; gcf-graph echoes the pack_root of call %d", c.Echo+1)
		}
		p("%d. %s: `%s`%s\n", i+1, c.Label, c.Query, echo)
	}
}
