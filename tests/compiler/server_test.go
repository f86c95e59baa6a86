package compilertest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/graphresponse"
)

// server returns the server twin of the seeded graph; without GRAPHWIRE_CLICKHOUSE_DSN the
// test skips, or fails when CI=true (.ci/run starts a server: scripts/clickhouse-server.sh).
func server(t *testing.T) executor.Runner {
	t.Helper()
	engine(t)
	switch {
	case env.serverErr != nil:
		t.Fatalf("the ClickHouse server twin: %v", env.serverErr)
	case env.server == nil && os.Getenv("CI") == "true":
		t.Fatal("CI=true and GRAPHWIRE_CLICKHOUSE_DSN is not set (source <(bash scripts/clickhouse-server.sh --env))")
	case env.server == nil:
		t.Skip("GRAPHWIRE_CLICKHOUSE_DSN is not set: no server to compare with (source <(bash scripts/clickhouse-server.sh --env))")
	}
	return env.server
}

// answer runs one compiled query on e through the service's path and returns its raw JSON.
func answer(e executor.Runner, q *compiler.Query) ([]byte, *graphresponse.Response, error) {
	resp, _, err := executor.Respond(context.Background(), e, env.compiler, q)
	if err != nil {
		return nil, nil, err
	}
	b := answerBytes(resp)
	if q.Plan.Edges() == nil {
		return b, resp, nil
	}
	// A plan in steps (neighbors, path_finding) answers on this engine exactly as the
	// one-statement form.
	if err := sameAsOneStatement(context.Background(), e, env.compiler, q, resp); err != nil {
		return nil, nil, err
	}
	return b, resp, nil
}

// twinCallers generates the callers of the engine-twin properties: the administrator (nil)
// and scoped callers at several levels; [callerOf] turns one into a compiler caller.
func twinCallers(w *world) gopter.Gen {
	genScope, genWideScope := scopeGens(w, 10, 20, 25)
	return gen.OneGenOf(
		gen.Const([]scopeSpec(nil)), // the administrator
		gen.SliceOfN(2, genScope),
		gen.SliceOfN(3, gen.OneGenOf(genScope, genWideScope)),
	)
}

// callerOf is the caller of a [twinCallers] value.
func callerOf(scopes []scopeSpec) *compiler.Caller {
	if scopes == nil {
		return admin
	}
	return callerWith(scopes...)
}

// walkCursor follows the cursor of query q to its third page: step answers one page on
// every engine compared and returns its next cursor, or a failure message.
func walkCursor(q string, step func(q string) (next, msg string)) string {
	for range 3 {
		next, msg := step(q)
		if msg != "" || next == "" {
			return msg
		}
		var doc map[string]any
		if err := json.Unmarshal([]byte(q), &doc); err != nil {
			return err.Error()
		}
		doc["cursor"].(map[string]any)["after"] = next
		nq, _ := json.Marshal(doc)
		q = string(nq)
	}
	return ""
}

// pagedTemplates are queries with cursors of every query type; the property follows each to
// its third page, on both engines.
var pagedTemplates = []func(w *world, a, b int) string{
	func(w *world, a, b int) string {
		e := env.ont.Entities[a%len(env.ont.Entities)]
		return fmt.Sprintf(`{"query_type":"traversal","nodes":[{"id":"x","entity":%q,"id_range":{"start":1,"end":100000}}],"cursor":{"page_size":%d}}`, e.Name, b%7+1)
	},
	func(w *world, a, b int) string {
		return fmt.Sprintf(`{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":100000}}],"group_by":["mr.state"],"aggregations":[{"count":"mr"}],"cursor":{"page_size":%d}}`, b%3+1)
	},
	func(w *world, a, b int) string {
		e := env.ont.Entities[a%len(env.ont.Entities)]
		lo := int64(b%40) + 1
		return fmt.Sprintf(`{"query_type":"neighbors","nodes":[{"id":"c","entity":%q,"id_range":{"start":%d,"end":%d}}],"neighbors":{"direction":"both"},"cursor":{"page_size":5}}`, e.Name, lo, lo+10)
	},
	func(w *world, a, b int) string {
		return fmt.Sprintf(`{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[%d]},{"id":"p","entity":"Project","id_range":{"start":1,"end":400}}],"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]},"cursor":{"page_size":2}}`, a%40+1)
	},
}

// TestServerMatchesEmbedded: random queries of every type (searches, hops over any
// relationship, variable-length hops, neighbors, paths, aggregations, cursor pages) for random
// callers (the administrator and scoped callers at several levels) answer byte-identically on
// the embedded engine and on a ClickHouse 26.7 server seeded with the same seed. The raw JSON
// of each answer, cursors included, is compared whole, and so is its text in every format
// formatter.Default registers. More cases: GRAPHWIRE_PROP_CASES.
func TestServerMatchesEmbedded(t *testing.T) {
	srv := server(t)
	engine(t)
	emb := env.embedded
	formats := formatter.Default().Formatters()
	w := loadWorld(t)
	genCaller := twinCallers(w)
	compare := func(query string, caller *compiler.Caller) (next string, msg string) {
		q, err := env.compiler.Compile([]byte(query), caller)
		if err != nil {
			return "", "compile " + query + ": " + err.Error()
		}
		a, resp, err := answer(emb, q)
		if err != nil {
			return "", "embedded " + query + ": " + err.Error()
		}
		b, srvResp, err := answer(srv, q)
		if err != nil {
			return "", "server " + query + ": " + err.Error()
		}
		if !bytes.Equal(a, b) {
			return "", fmt.Sprintf("%s as %+v:\nembedded %s\nserver   %s", query, caller, a, b)
		}
		// Every registered format of both answers, byte for byte (json, goon, gcf in both
		// profiles, gcx, toon, markdown, xml, and any format registered later).
		// A format that cannot represent the answer (gcf-graph of an aggregation) must refuse
		// both alike.
		for _, f := range formats {
			var fa, fb bytes.Buffer
			ea, eb := f.Format(&fa, resp), f.Format(&fb, srvResp)
			if fmt.Sprint(ea) != fmt.Sprint(eb) {
				return "", fmt.Sprintf("%s of %s as %+v:\nembedded error %v\nserver error   %v", f.Name(), query, caller, ea, eb)
			}
			if !bytes.Equal(fa.Bytes(), fb.Bytes()) {
				return "", fmt.Sprintf("%s of %s as %+v:\nembedded %s\nserver   %s", f.Name(), query, caller, fa.Bytes(), fb.Bytes())
			}
		}
		if resp.Pagination != nil && resp.Pagination.NextCursor != nil {
			next = *resp.Pagination.NextCursor
		}
		return next, ""
	}
	props := gopter.NewProperties(propParameters(t, 20261127, 60))
	props.Property("the server answers every query as the embedded engine does", prop.ForAll(
		func(scopes []scopeSpec, tmpl, a, b int) string {
			_, msg := compare(queryTemplates[tmpl](w, a, b), callerOf(scopes))
			return msg
		},
		genCaller,
		gen.IntRange(0, len(queryTemplates)-1),
		gen.IntRange(0, 1000),
		gen.IntRange(0, 1000),
	))
	props.Property("pages of a cursor walk are the same on both", prop.ForAll(
		func(scopes []scopeSpec, tmpl, a, b int) string {
			caller := callerOf(scopes)
			return walkCursor(pagedTemplates[tmpl](w, a, b), func(q string) (string, string) { return compare(q, caller) })
		},
		genCaller,
		gen.IntRange(0, len(pagedTemplates)-1),
		gen.IntRange(0, 1000),
		gen.IntRange(0, 1000),
	))
	props.TestingRun(t)
}
