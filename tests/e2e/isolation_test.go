package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/graphwire/graphwire/admission"
	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/grpcsvc"
	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
)

// tenants returns the first traversal-path segment of every project, with
// the number of projects under it, read straight from the engine.
func tenants(t *testing.T) map[string]int {
	t.Helper()
	rows, err := executor.CollectRows(t.Context(), engine(t), &compiler.Query{
		SQL: "SELECT splitByChar('/', traversal_path)[1] AS t, toInt64(count()) AS n FROM gl_project FINAL GROUP BY t ORDER BY t"})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, r := range rows.Values {
		out[r[0].(string)] = int(r[1].(int64))
	}
	return out
}

// TestGraphSnapshotsPerAuthorization: an admin token and a scoped token of
// the same user must not share gcf-graph snapshots. The scoped caller
// echoing the admin's pack_root gets the full answer of its own, which
// holds nothing outside its scopes; before, it got a delta against the
// admin's graph that named projects it cannot see.
func TestGraphSnapshotsPerAuthorization(t *testing.T) {
	c := server(t, engine(t), nil)
	ten := tenants(t)
	if len(ten) < 2 {
		t.Fatalf("the seeded graph has %d tenants, want at least 2", len(ten))
	}
	// Scope the caller to every tenant but the smallest, so its answer
	// differs from the admin's by a few projects: a delta between the two
	// is worth sending, which is what used to leak.
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range ten {
			if !yield(k) {
				return
			}
		}
	})
	hidden := names[0]
	for _, n := range names {
		if ten[n] < ten[hidden] {
			hidden = n
		}
	}
	var scopes []auth.Scope
	for _, n := range names {
		if n != hidden {
			scopes = append(scopes, auth.Scope{Path: n + "/", Level: 30})
		}
	}
	const user = 4242
	adminCtx := as(t, auth.Claims{UserID: user, Admin: true})
	scopedCtx := as(t, auth.Claims{UserID: user, Scopes: scopes})
	q := `{"query_type":"traversal","nodes":[{"id":"p","entity":"Project","id_range":{"start":1,"end":100000}}],"limit":1000}`
	adminText := graphText(t, c, adminCtx, q, "")
	m := packRoot.FindStringSubmatch(adminText)
	if m == nil {
		t.Fatalf("no pack_root in the admin's answer:\n%s", adminText)
	}
	visible := raw(t, c, scopedCtx, q)
	all := raw(t, c, adminCtx, q)
	if len(visible.Nodes) == 0 || len(visible.Nodes) >= len(all.Nodes) {
		t.Fatalf("scoped caller sees %d of %d projects; the test needs some but not all", len(visible.Nodes), len(all.Nodes))
	}

	got := graphText(t, c, scopedCtx, q, m[1])
	var want bytes.Buffer
	f, _ := formatter.Default().Lookup(formatter.GCFGraph)
	if err := f.Format(&want, visible); err != nil {
		t.Fatal(err)
	}
	if got != want.String() {
		t.Errorf("scoped caller echoing the admin's pack_root got a non-full answer (%d bytes, full %d):\n%s", len(got), want.Len(), got)
	}
	doc := decodeGCF(t, got)
	if doc.Delta != nil || doc.Graph == nil || doc.Graph.Unchanged {
		t.Fatalf("answer is a delta or unchanged, want the full graph")
	}
}

func TestBearerSchemeIgnoresCase(t *testing.T) {
	c := server(t, engine(t), nil)
	tok := token(t, admin)
	tests := []struct {
		name   string
		header string
		want   codes.Code
	}{
		{"Bearer", "Bearer " + tok, codes.OK},
		{"lower case", "bearer " + tok, codes.OK},
		{"upper case, two spaces", "BEARER  " + tok, codes.OK},
		{"other scheme", "Basic " + tok, codes.Unauthenticated},
		{"no token", "Bearer", codes.Unauthenticated},
		{"no space", "Bearer" + tok, codes.Unauthenticated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := metadata.AppendToOutgoingContext(t.Context(), "authorization", tt.header)
			_, err := c.GetQueryDsl(ctx, &pb.GetQueryDslRequest{})
			if status.Code(err) != tt.want {
				t.Errorf("%v, want %s", err, tt.want)
			}
		})
	}
}

// syncBuffer is a log sink the server writes to from its goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) lines(t *testing.T) []map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(b.buf.Bytes()), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// rawCodec sends the bytes it is given as the request message, so a test
// can put anything on the wire.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return v.([]byte), nil }
func (rawCodec) Unmarshal(data []byte, v any) error {
	*(v.(*[]byte)) = append([]byte(nil), data...)
	return nil
}
func (rawCodec) Name() string { return "proto" }

// TestMalformedRequestMessage: a request message that is not valid
// protobuf, or has invalid UTF-8 in the query string, is InvalidArgument
// after authentication (Unauthenticated without a token), and every such
// call is logged without the token. Before, grpc-go answered Internal
// before authenticating and nothing was logged.
func TestMalformedRequestMessage(t *testing.T) {
	logs := &syncBuffer{}
	addr := listen(t, engine(t), func(o *grpcsvc.Options) { o.Logger = slog.New(slog.NewJSONHandler(logs, nil)) })
	conn := grpcConn(t, addr, insecure.NewCredentials())
	tok := token(t, admin)
	badUTF8 := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), []byte("{\"query_type\":\"\xff\xfe\"}"))
	tests := []struct {
		name   string
		method string
		body   []byte
		auth   bool
		want   codes.Code
	}{
		{"garbage", "ExecuteQuery", []byte{0xff, 0xff, 0xff, 0xff, 0x0f, 0x01}, true, codes.InvalidArgument},
		{"invalid UTF-8 in query", "ExecuteQuery", badUTF8, true, codes.InvalidArgument},
		{"garbage on the stream method", "ExecuteQueryStream", []byte{0x0a, 0x7f}, true, codes.InvalidArgument},
		{"garbage on a schema method", "GetQueryDsl", []byte{0x0a}, true, codes.InvalidArgument},
		{"garbage without a token", "ExecuteQuery", []byte{0xff, 0xff}, false, codes.Unauthenticated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			if tt.auth {
				ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+tok)
			}
			method := "/graphwire.v1.QueryService/" + tt.method
			var err error
			if tt.method == "ExecuteQueryStream" {
				var s grpc.ClientStream
				s, err = conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, method, grpc.ForceCodec(rawCodec{}))
				if err == nil {
					if err = s.SendMsg(tt.body); err == nil {
						_ = s.CloseSend()
						var out []byte
						err = s.RecvMsg(&out)
					}
				}
			} else {
				var out []byte
				err = conn.Invoke(ctx, method, tt.body, &out, grpc.ForceCodec(rawCodec{}))
			}
			if status.Code(err) != tt.want {
				t.Fatalf("err = %v, want %s", err, tt.want)
			}
		})
	}
	lines := logs.lines(t)
	for _, tt := range tests {
		found := false
		for _, l := range lines {
			if l["msg"] == "rpc" && l["method"] == "/graphwire.v1.QueryService/"+tt.method && l["code"] == tt.want.String() {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no rpc log line with code %s in:\n%s", tt.name, tt.want, logs)
		}
	}
	if strings.Contains(logs.String(), tok) {
		t.Error("the log contains the token")
	}
}

// TestOversizedQueryOneStatus: a query just over the limit and one far
// over it get the same status, RESOURCE_EXHAUSTED naming the limit, on
// both query methods. Before, the first was InvalidArgument with the
// handler's text and the second the transport's ResourceExhausted with
// another limit.
func TestOversizedQueryOneStatus(t *testing.T) {
	const limit = 2048
	c := server(t, engine(t), func(o *grpcsvc.Options) { o.MaxQueryBytes = limit })
	ctx := as(t, admin)
	base := queries["search"]
	pad := func(n int) string { return base[:len(base)-1] + strings.Repeat(" ", n-len(base)) + "}" }
	// The other fields of the request take a few bytes of the limit.
	if _, err := c.ExecuteQuery(ctx, &pb.ExecuteQueryRequest{Query: pad(limit - 16)}); err != nil {
		t.Fatalf("a query just under the limit: %v", err)
	}
	for _, size := range []int{limit + 1, limit + 100, 4 * limit, 64 * limit} {
		for _, stream := range []bool{false, true} {
			var err error
			if stream {
				var s grpc.ServerStreamingClient[pb.ExecuteQueryChunk]
				if s, err = c.ExecuteQueryStream(ctx, &pb.ExecuteQueryRequest{Query: pad(size)}); err == nil {
					_, err = s.Recv()
				}
			} else {
				_, err = c.ExecuteQuery(ctx, &pb.ExecuteQueryRequest{Query: pad(size)})
			}
			st := status.Convert(err)
			if st.Code() != codes.ResourceExhausted || !strings.Contains(st.Message(), "vs. "+strconv.Itoa(limit)+")") {
				t.Errorf("query of %d bytes (stream %v): %v, want ResourceExhausted naming the limit %d", size, stream, err, limit)
			}
		}
	}
}

var placeholder = regexp.MustCompile(`\{(p\d+):([^}]+)\}`)

// TestDebugStatements: an admin asking for include_debug_sql gets every
// executed statement (for neighbors, the base and the hydration statement)
// with its parameters; a non-admin gets none.
func TestDebugStatements(t *testing.T) {
	c := server(t, engine(t), nil)
	q := `{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1,2,3]}],"neighbors":{"direction":"both"},"options":{"include_debug_sql":true}}`
	resp, err := c.ExecuteQuery(as(t, admin), &pb.ExecuteQueryRequest{Query: q})
	if err != nil {
		t.Fatal(err)
	}
	md := resp.GetMetadata()
	var labels []string
	for i, st := range md.GetDebugStatements() {
		labels = append(labels, st.GetLabel())
		if i < len(md.GetSql()) && md.GetSql()[i] != st.GetSql() {
			t.Errorf("sql[%d] differs from debug_statements[%d].sql", i, i)
		}
		params := map[string]*pb.DebugParam{}
		for _, p := range st.GetParams() {
			params[p.GetName()] = p
		}
		holes := placeholder.FindAllStringSubmatch(st.GetSql(), -1)
		if len(holes) == 0 {
			t.Errorf("%s statement has no placeholders", st.GetLabel())
		}
		for _, h := range holes {
			p := params[h[1]]
			if p == nil || p.GetType() != h[2] {
				t.Errorf("%s statement: placeholder {%s:%s} has param %v", st.GetLabel(), h[1], h[2], p)
			}
		}
		if len(params) != len(st.GetParams()) {
			t.Errorf("%s statement repeats a parameter name", st.GetLabel())
		}
	}
	if want := []string{executor.LabelBase, executor.LabelHydration}; !slices.Equal(labels, want) || len(md.GetSql()) != 2 {
		t.Fatalf("debug statements %q and %d sql, want %q and 2", labels, len(md.GetSql()), want)
	}
	// The base statement binds the node ids the query named.
	var ids []string
	for _, p := range md.GetDebugStatements()[0].GetParams() {
		if strings.HasPrefix(p.GetType(), "Array(Int64)") {
			ids = append(ids, p.GetValue())
		}
	}
	if !slices.Contains(ids, "[1,2,3]") {
		t.Errorf("base statement params %v lack the node ids [1,2,3]", md.GetDebugStatements()[0].GetParams())
	}

	scoped := auth.Claims{UserID: 5, Scopes: []auth.Scope{{Path: "1/", Level: 50}}}
	resp, err = c.ExecuteQuery(as(t, scoped), &pb.ExecuteQueryRequest{Query: q})
	if err != nil {
		t.Fatal(err)
	}
	if md := resp.GetMetadata(); len(md.GetSql()) != 0 || len(md.GetDebugStatements()) != 0 {
		t.Errorf("non-admin got %d sql and %d debug statements", len(md.GetSql()), len(md.GetDebugStatements()))
	}
}

// gate holds the statements that bind hold as a parameter value until
// open is closed, and reports each one it holds on entered; every other
// statement runs on the engine at once.
type gate struct {
	next    grpcsvc.Executor
	hold    string
	entered chan struct{}
	open    chan struct{}
}

func (g *gate) Run(ctx context.Context, q *compiler.Query) (executor.Rows, error) {
	for _, p := range q.Params {
		if p.Value == g.hold {
			g.entered <- struct{}{}
			select {
			case <-g.open:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
	return g.next.Run(ctx, q)
}

// TestAdmissionFlood: one caller sends 20 requests at once while the
// engine holds its first; it gets one slot and one place in the queue,
// the other 18 are refused at once with RESOURCE_EXHAUSTED and RetryInfo,
// and another caller is still served meanwhile.
func TestAdmissionFlood(t *testing.T) {
	g := &gate{next: engine(t), hold: "flood-marker", entered: make(chan struct{}, 64), open: make(chan struct{})}
	ctl, err := admission.New(admission.Options{MaxConcurrent: 2, MaxPerCaller: 1, MaxQueued: 8, Wait: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	c := server(t, g, func(o *grpcsvc.Options) { o.Admission = ctl })
	flooder := auth.Claims{UserID: 11, Scopes: []auth.Scope{{Path: "1/", Level: 30}}}
	flood := `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","filters":{"username":"flood-marker"}}]}`
	ctx, cancel := context.WithTimeout(as(t, flooder), 20*time.Second)
	defer cancel()
	const n = 20
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := c.ExecuteQuery(ctx, &pb.ExecuteQueryRequest{Query: flood})
			errs <- err
		}()
	}
	<-g.entered // the first request holds the caller's only slot
	for range n - 2 {
		err := <-errs
		st := status.Convert(err)
		if st.Code() != codes.ResourceExhausted {
			t.Fatalf("flood request: %v, want ResourceExhausted", err)
		}
		var retry *errdetails.RetryInfo
		var info *errdetails.ErrorInfo
		for _, d := range st.Details() {
			switch d := d.(type) {
			case *errdetails.RetryInfo:
				retry = d
			case *errdetails.ErrorInfo:
				info = d
			}
		}
		if retry == nil || retry.GetRetryDelay().AsDuration() <= 0 || info.GetReason() != "SERVER_BUSY" || !strings.Contains(st.Message(), "retry") {
			t.Fatalf("refusal %q lacks retry advice: %v %v", st.Message(), retry, info)
		}
	}
	// Another caller is served while the flooder holds its slot and queue.
	if r := raw(t, c, as(t, admin), queries["search"]); len(r.Nodes) == 0 {
		t.Error("the other caller's search found nothing")
	}
	close(g.open)
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("admitted flood request: %v", err)
		}
	}
	if s := ctl.Stats(); s != (admission.Stats{}) {
		t.Errorf("slots left after the flood: %+v", s)
	}
}

// TestGraphSnapshotsShareOfOneCaller: one caller asking for graph after
// distinct graph cannot push another caller's delta base out of the
// snapshot store; it keeps only its share (an eighth of the 16 here).
// Before, the store was one LRU for everyone and the flood evicted it.
func TestGraphSnapshotsShareOfOneCaller(t *testing.T) {
	const total = 16
	c := server(t, engine(t), func(o *grpcsvc.Options) { o.GraphSnapshots = total })
	// The victim's users with their groups: one more user is a delta worth
	// sending against the six.
	members := func(n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = strconv.Itoa(i + 1)
		}
		return `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[` + strings.Join(s, ",") +
			`]},{"id":"g","entity":"Group"}],"relationships":[{"type":"MEMBER_OF","from":"u","to":"g"}]}`
	}
	victim := as(t, auth.Claims{UserID: 5101, Admin: true})
	flooder := as(t, auth.Claims{UserID: 5102, Admin: true})
	// A delta needs the remembered base ("unchanged" does not: the
	// client's root names the very graph), so the victim asks for one
	// more user after the flood.
	m := packRoot.FindStringSubmatch(graphText(t, c, victim, members(6), ""))
	if m == nil {
		t.Fatal("no pack_root in the victim's answer")
	}
	roots := map[string]bool{}
	for i := range 2 * total {
		q := `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1,2,` + strconv.Itoa(10+i) + `]}]}`
		if r := packRoot.FindStringSubmatch(graphText(t, c, flooder, q, "")); r != nil {
			roots[r[1]] = true
		}
	}
	if len(roots) != 2*total {
		t.Fatalf("the flood gave %d distinct graphs, want %d", len(roots), 2*total)
	}
	if doc := decodeGCF(t, graphText(t, c, victim, members(7), m[1])); doc.Delta == nil {
		t.Errorf("after another caller's flood, the victim got the full graph, want a delta against its held base (the base was evicted)")
	}
}
