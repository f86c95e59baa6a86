package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/graphwire/graphwire/admission"
	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/config"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/grpcsvc"
	"github.com/graphwire/graphwire/mcpsvc"
	"github.com/graphwire/graphwire/pipeline"
	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
)

// faces serves one pipeline over exec, with admission controller ctl, as serve does: gRPC
// and MCP streamable HTTP (its options changed by mutate) on loopback ports. It returns the
// gRPC client and the MCP URL.
func faces(t *testing.T, exec grpcsvc.Executor, ctl *admission.Controller, mutate ...func(*mcpsvc.Options)) (pb.QueryServiceClient, string) {
	t.Helper()
	pipe, err := pipeline.New(exec, pipeline.Options{Compiler: env.comp, Ontology: env.ont, Admission: ctl,
		DSLSchema: config.GraphQuerySchema(), DSLVersion: config.QueryDSLVersion()})
	if err != nil {
		t.Fatal(err)
	}
	conn := grpcConn(t, listen(t, exec, func(o *grpcsvc.Options) { o.Pipeline = pipe }), insecure.NewCredentials())

	mo := mcpsvc.Options{Pipeline: pipe, Verifier: verifier(t)}
	for _, f := range mutate {
		f(&mo)
	}
	m, err := mcpsvc.New(mo)
	if err != nil {
		t.Fatal(err)
	}
	mlis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: m.HTTPHandler(), ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(mlis)
	t.Cleanup(func() { hs.Close() })
	return pb.NewQueryServiceClient(conn), "http://" + mlis.Addr().String()
}

// mcpSession connects the SDK client to url as c.
func mcpSession(t *testing.T, url string, c auth.Claims) *mcp.ClientSession {
	t.Helper()
	return mcpConnect(t, url, token(t, c), http.DefaultTransport)
}

// toolAnswer is a query_graph result: its text and structured content.
type toolAnswer struct {
	text    string
	isError bool
	meta    struct {
		RowCount   int64  `json:"row_count"`
		HasMore    bool   `json:"has_more"`
		NextCursor string `json:"next_cursor"`
		Error      struct {
			Code   string `json:"code"`
			Reason string `json:"reason"`
		} `json:"error"`
	}
}

func callQuery(ctx context.Context, t *testing.T, s *mcp.ClientSession, args map[string]any) toolAnswer {
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "query_graph", Arguments: args})
	if err != nil {
		t.Errorf("query_graph: protocol error %v", err)
		return toolAnswer{isError: true}
	}
	var a toolAnswer
	a.isError = res.IsError
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			a.text += tc.Text
		}
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &a.meta); err != nil {
		t.Errorf("structured content %s: %v", b, err)
	}
	return a
}

// TestMCPHTTPGoesThroughAdmission: the MCP streamable-HTTP face takes its query slots from
// the same admission controller as gRPC, per user across both faces. While the engine holds
// one gRPC request of a user, that user's MCP flood is refused with SERVER_BUSY (one may
// wait in the queue); another user is served over MCP meanwhile.
func TestMCPHTTPGoesThroughAdmission(t *testing.T) {
	g := &gate{next: engine(t), hold: "mcp-flood-marker", entered: make(chan struct{}, 64), open: make(chan struct{})}
	ctl, err := admission.New(admission.Options{MaxConcurrent: 2, MaxPerCaller: 1, MaxQueued: 8, Wait: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	c, url := faces(t, g, ctl)
	flooder := auth.Claims{UserID: 12, Scopes: []auth.Scope{{Path: "1/", Level: 30}}}
	flood := `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","filters":{"username":"mcp-flood-marker"}}]}`
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	held := make(chan error, 1)
	go func() {
		_, err := c.ExecuteQuery(as(t, flooder), &pb.ExecuteQueryRequest{Query: flood})
		held <- err
	}()
	<-g.entered // the gRPC request holds the user's only slot

	s := mcpSession(t, url, flooder)
	const n = 8
	answers := make(chan toolAnswer, n)
	for range n {
		go func() { answers <- callQuery(ctx, t, s, map[string]any{"query": flood, "format": "json"}) }()
	}
	// n-1 calls are refused at once: the user's one queue place goes to one of them.
	for range n - 1 {
		a := <-answers
		if !a.isError || a.meta.Error.Reason != "SERVER_BUSY" || a.meta.Error.Code != "resource_exhausted" {
			t.Fatalf("MCP flood call while the user's slot is held: %q %+v, want SERVER_BUSY", a.text, a.meta.Error)
		}
	}
	other := mcpSession(t, url, auth.Claims{UserID: 13, Admin: true})
	if a := callQuery(ctx, t, other, map[string]any{"query": queries["search"], "format": "json"}); a.isError || a.meta.RowCount == 0 {
		t.Errorf("another user over MCP during the flood: %q", a.text)
	}
	close(g.open)
	if err := <-held; err != nil {
		t.Errorf("held gRPC request: %v", err)
	}
	if a := <-answers; a.isError {
		t.Errorf("queued MCP call: %q", a.text)
	}
	if st := ctl.Stats(); st != (admission.Stats{}) {
		t.Errorf("slots left after the flood: %+v", st)
	}
}

// TestCursorReplayAcrossCallers: a continuation cursor (the pipeline's gwc2. budget cursor
// over MCP, the compiler's keyset cursor over gRPC) minted by an administrator and replayed
// by a token of the same user with narrower scopes, or with no readable scope at all, is
// refused as INVALID_CURSOR: cursors are signed for the caller they were handed to. The same
// cursor still continues for the administrator, so the refusal is the binding, not a broken
// cursor.
func TestCursorReplayAcrossCallers(t *testing.T) {
	c, url := faces(t, engine(t), nil)
	q := `{"query_type":"traversal","nodes":[{"id":"m","entity":"MergeRequest","id_range":{"start":1,"end":100000}}],"limit":300}`
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	adminSameSub := auth.Claims{UserID: 21, Admin: true}
	tenant := ""
	for p := range tenants(t) {
		if tenant == "" || p < tenant {
			tenant = p
		}
	}
	scoped := auth.Claims{UserID: 21, Scopes: []auth.Scope{{Path: tenant + "/", Level: 30}}}
	nobody := auth.Claims{UserID: 21, Scopes: []auth.Scope{{Path: "987654321/", Level: 50}}}

	// What the scoped token reads by itself.
	own := map[int64]bool{}
	for _, n := range raw(t, c, as(t, scoped), q).Nodes {
		own[n.ID] = true
	}
	if len(own) == 0 {
		t.Fatal("the scoped caller reads no merge request; the test proves nothing")
	}

	a := callQuery(ctx, t, mcpSession(t, url, adminSameSub), map[string]any{"query": q, "format": "json", "max_tokens": 1500})
	if a.isError || !a.meta.HasMore || a.meta.NextCursor == "" {
		t.Fatalf("the admin's budgeted answer has no cursor: %q %+v", a.text, a.meta)
	}
	for _, who := range []struct {
		name string
		c    auth.Claims
	}{{"scoped", scoped}, {"nobody", nobody}} {
		s := mcpSession(t, url, who.c)
		r := callQuery(ctx, t, s, map[string]any{"query": q, "format": "json", "cursor": a.meta.NextCursor})
		if !r.isError || !strings.Contains(r.text, "INVALID_CURSOR") {
			t.Errorf("%s replaying the admin's MCP cursor: isError %v, %.300q; want INVALID_CURSOR", who.name, r.isError, r.text)
		}
	}
	if r := callQuery(ctx, t, mcpSession(t, url, adminSameSub), map[string]any{"query": q, "format": "json", "cursor": a.meta.NextCursor}); r.isError {
		t.Errorf("the admin continuing its own MCP cursor: %.300q", r.text)
	}

	// The compiler's keyset cursor over gRPC.
	paged := `{"query_type":"traversal","nodes":[{"id":"m","entity":"MergeRequest","id_range":{"start":1,"end":100000}}],"cursor":{"page_size":3}}`
	first, err := c.ExecuteQuery(as(t, adminSameSub), &pb.ExecuteQueryRequest{Query: paged})
	if err != nil {
		t.Fatal(err)
	}
	var page struct {
		Pagination struct {
			NextCursor string `json:"next_cursor"`
		} `json:"pagination"`
	}
	if err := json.Unmarshal([]byte(first.GetResultJson()), &page); err != nil || page.Pagination.NextCursor == "" {
		t.Fatalf("admin's first page has no cursor: %v %s", err, first.GetResultJson())
	}
	var doc map[string]any
	json.Unmarshal([]byte(paged), &doc)
	doc["cursor"] = map[string]any{"page_size": 50, "after": page.Pagination.NextCursor}
	replay, _ := json.Marshal(doc)
	for _, who := range []auth.Claims{nobody, scoped} {
		_, err := c.ExecuteQuery(as(t, who), &pb.ExecuteQueryRequest{Query: string(replay)})
		if status.Code(err) != codes.InvalidArgument || errorReason(err) != "INVALID_CURSOR" {
			t.Errorf("scopes %v replaying the admin's keyset cursor: %v, want INVALID_ARGUMENT INVALID_CURSOR", who.Scopes, err)
		}
	}
	if _, err := c.ExecuteQuery(as(t, adminSameSub), &pb.ExecuteQueryRequest{Query: string(replay)}); err != nil {
		t.Errorf("the admin continuing its own keyset cursor: %v", err)
	}
}

// TestFormattingHoldsTheSlot: a unary answer keeps its caller's admission slot until it is
// formatted (auto, budgets and gcf-graph format an answer several times over). While one
// answer of a user is being formatted, that user's next query is refused with the caller
// limit and another user's runs; before, the slot was given back as soon as the statements
// returned, so one user could keep any number of answers in formatting at once.
func TestFormattingHoldsTheSlot(t *testing.T) {
	entered, open := make(chan struct{}, 1), make(chan struct{})
	held := gatedFormatter{Formatter: formatter.NewJSON(config.RawVersion()), name: "held", entered: entered, gate: open}
	reg, err := formatter.New(append(formatter.Default().Formatters(), held)...)
	if err != nil {
		t.Fatal(err)
	}
	ctl, err := admission.New(admission.Options{MaxConcurrent: 2, MaxPerCaller: 1, MaxQueued: -1})
	if err != nil {
		t.Fatal(err)
	}
	pipe, err := pipeline.New(engine(t), pipeline.Options{Compiler: env.comp, Ontology: env.ont, Registry: reg, Admission: ctl,
		DSLSchema: config.GraphQuerySchema(), DSLVersion: config.QueryDSLVersion()})
	if err != nil {
		t.Fatal(err)
	}
	user := &auth.Claims{UserID: 31, Scopes: []auth.Scope{{Path: "1/", Level: 30}}}
	q := []byte(queries["search"])
	done := make(chan error, 1)
	go func() {
		_, err := pipe.Run(t.Context(), pipeline.Request{Query: q, Claims: user, Format: "held"})
		done <- err
	}()
	<-entered // the first answer is being formatted
	if st := ctl.Stats(); st.Running != 1 {
		t.Errorf("admission while an answer is formatted: %+v, want its slot held", st)
	}
	_, err = pipe.Run(t.Context(), pipeline.Request{Query: q, Claims: user, Format: "json"})
	var busy *admission.BusyError
	if !errors.As(err, &busy) || busy.Limit != admission.LimitCaller {
		t.Errorf("the same user's next query while its answer is formatted: %v, want the caller limit", err)
	}
	if _, err := pipe.Run(t.Context(), pipeline.Request{Query: q, Claims: &auth.Claims{UserID: 32, Admin: true}, Format: "json"}); err != nil {
		t.Errorf("another user: %v", err)
	}
	close(open)
	if err := <-done; err != nil {
		t.Errorf("held answer: %v", err)
	}
	if st := ctl.Stats(); st != (admission.Stats{}) {
		t.Errorf("slots left: %+v", st)
	}
	// A streamed answer gives its slot back before it is written.
	var buf bytes.Buffer
	if _, err := pipe.Stream(t.Context(), pipeline.Request{Query: q, Claims: user, Format: "json"}, &buf); err != nil || buf.Len() == 0 {
		t.Errorf("stream: %v, %d bytes", err, buf.Len())
	}
	if st := ctl.Stats(); st != (admission.Stats{}) {
		t.Errorf("slots left after a stream: %+v", st)
	}
}

// mcpPost sends one raw streamable-HTTP request as c and returns the status, the session id
// header and the Retry-After header of the answer.
func mcpPost(t *testing.T, method, url string, c auth.Claims, session string) (int, string, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token(t, c))
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), resp.Header.Get("Retry-After")
}

// TestMCPSessionsBounded: opening an MCP session runs no query, so admission never sees it,
// yet each live session holds memory and a goroutine until it is deleted or idle for 30
// minutes. One caller opening sessions in a loop (about 6 KiB and a goroutine each, a few
// thousand a second on loopback) grew the server without bound. Live sessions are now
// bounded per caller and in all: beyond a bound, opening one answers 429 with Retry-After,
// and deleting a session makes room again.
func TestMCPSessionsBounded(t *testing.T) {
	_, url := faces(t, engine(t), nil, func(o *mcpsvc.Options) { o.MaxSessions, o.MaxSessionsPerCaller = 5, 3 })
	a := auth.Claims{UserID: 41, Scopes: []auth.Scope{{Path: "987654321/", Level: 10}}}
	b := auth.Claims{UserID: 42, Scopes: []auth.Scope{{Path: "987654321/", Level: 10}}}
	var mine []string
	for i := range 3 {
		code, id, _ := mcpPost(t, http.MethodPost, url, a, "")
		if code != http.StatusOK || id == "" {
			t.Fatalf("session %d of caller a: %d %q", i, code, id)
		}
		mine = append(mine, id)
	}
	if code, id, retry := mcpPost(t, http.MethodPost, url, a, ""); code != http.StatusTooManyRequests || id != "" || retry == "" {
		t.Errorf("caller a's fourth session: %d, id %q, Retry-After %q; want 429 with Retry-After", code, id, retry)
	}
	// Requests on an open session are not session openings.
	if code, _, _ := mcpPost(t, http.MethodPost, url, a, mine[0]); code == http.StatusTooManyRequests {
		t.Error("a request on caller a's open session was refused as a new session")
	}
	for i := range 2 {
		if code, id, _ := mcpPost(t, http.MethodPost, url, b, ""); code != http.StatusOK || id == "" {
			t.Fatalf("session %d of caller b: %d %q", i, code, id)
		}
	}
	if code, _, _ := mcpPost(t, http.MethodPost, url, b, ""); code != http.StatusTooManyRequests {
		t.Errorf("a sixth session on the server: %d, want 429", code)
	}
	if code, _, _ := mcpPost(t, http.MethodDelete, url, a, mine[1]); code >= 300 {
		t.Fatalf("delete caller a's session: %d", code)
	}
	if code, id, _ := mcpPost(t, http.MethodPost, url, a, ""); code != http.StatusOK || id == "" {
		t.Errorf("caller a after deleting a session: %d %q, want a new session", code, id)
	}
}

// errorReason is the reason of a gRPC error's ErrorInfo detail, "" without one.
func errorReason(err error) string {
	for _, d := range status.Convert(err).Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return info.GetReason()
		}
	}
	return ""
}
