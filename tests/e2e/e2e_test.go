// Package e2e runs the real gRPC server on a loopback port against the
// seeded embedded engine and calls it through the generated client. With
// GRAPHWIRE_TEST_ENGINE=server (make test-server) the engine is a database of
// its own on the ClickHouse server GRAPHWIRE_CLICKHOUSE_DSN names instead.
package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	"github.com/graphwire/graphwire/admission"
	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/config"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/executor/clickhouse"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/gcf"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/grpcsvc"
	"github.com/graphwire/graphwire/internal/hermetic"
	"github.com/graphwire/graphwire/ontology"
	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
	"github.com/graphwire/graphwire/seed"
	"github.com/graphwire/graphwire/tests/serverdb"
)

var secret = []byte("e2e-secret-0123456789abcdef0123456789")

// env is shared by every test: chDB allows one data path per process.
var env struct {
	dir    string // removed when the tests end
	engine serverdb.Engine
	comp   *compiler.Compiler
	ont    *ontology.Ontology
	err    error
}

// TestMain runs the tests in a home of their own (internal/hermetic): the graphwire binary they
// start falls back on the user's data directory, config and GRAPHWIRE_ variables.
func TestMain(m *testing.M) {
	os.Exit(hermetic.Main(func() int { return runMain(m) }, chdb.DefaultCacheDir()))
}

func runMain(m *testing.M) int {
	var err error
	if env.ont, err = ontology.Load(ontologyfiles.Files()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if env.comp, err = compiler.New(env.ont, compiler.Options{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dir, err := os.MkdirTemp("", "graphwire-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	env.dir = dir
	closeEngine, err := openSeeded(dir)
	defer closeEngine()
	env.err = err
	defer func() { // binary sets it, during the tests
		if built.drop != nil {
			built.drop()
		}
	}()
	if err != nil && os.Getenv(serverdb.EngineEnv) == "server" {
		fmt.Fprintln(os.Stderr, err) // a run asked for the server cannot skip it
		return 1
	}
	return m.Run()
}

// enginePool is the number of query connections of the test engine.
const enginePool = 2

// openSeeded opens the suite's engine (tests/serverdb: embedded in dir, or a database on
// the server) and seeds the graph into it; close releases it.
func openSeeded(dir string) (close func(), err error) {
	o, close, err := serverdb.OpenEngine(dir, "gw_e2e", enginePool)
	if err != nil {
		return close, err
	}
	env.engine = o.Engine
	opts := seed.Options{Scale: 0.2, Seed: 42}
	g, err := seed.Generate(env.ont, opts)
	if err != nil {
		return close, err
	}
	if _, err = seed.Load(context.Background(), o.Engine, env.ont, g, opts); err != nil {
		return close, fmt.Errorf("seed %s: %w", o.Name, err)
	}
	return close, nil
}

// server starts the service on a loopback port with exec and returns a
// client; the server stops when the test ends.
func server(t *testing.T, exec grpcsvc.Executor, mutate func(*grpcsvc.Options)) pb.QueryServiceClient {
	t.Helper()
	return pb.NewQueryServiceClient(grpcConn(t, listen(t, exec, mutate), insecure.NewCredentials()))
}

// listen starts the service on a loopback port with exec and returns its
// address; the server stops when the test ends.
func listen(t *testing.T, exec grpcsvc.Executor, mutate func(*grpcsvc.Options)) string {
	t.Helper()
	_, addr := serveGRPC(t, exec, mutate)
	return addr
}

// serveGRPC starts the service on a loopback port with exec, its options
// changed by mutate, and returns it with its address; the server stops
// when the test ends.
func serveGRPC(t *testing.T, exec grpcsvc.Executor, mutate func(*grpcsvc.Options)) (*grpcsvc.Server, string) {
	t.Helper()
	// As many query slots as engine connections (the pool of openSeeded),
	// as serve does: admission is then the only, fair, queue.
	adm, err := admission.New(admission.Options{MaxConcurrent: enginePool})
	if err != nil {
		t.Fatal(err)
	}
	opts := grpcsvc.Options{
		Compiler: env.comp, Ontology: env.ont, Verifier: verifier(t),
		DSLSchema: config.GraphQuerySchema(), DSLVersion: config.QueryDSLVersion(),
		ResponseSchema: config.QueryResponseSchema(), RawVersion: config.RawVersion(),
		Admission: adm,
	}
	if mutate != nil {
		mutate(&opts)
	}
	srv, err := grpcsvc.New(exec, formatter.Default(), opts)
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := srv.GRPCServer()
	go g.Serve(lis)
	t.Cleanup(g.Stop)
	return srv, lis.Addr().String()
}

// verifier accepts the tokens of [token].
func verifier(t *testing.T) *auth.Verifier {
	t.Helper()
	v, err := auth.NewVerifier(auth.Options{Keys: [][]byte{secret}})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func engine(t *testing.T) serverdb.Engine {
	t.Helper()
	if env.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and the embedded engine is unavailable: %v", env.err)
		}
		t.Skipf("embedded engine unavailable: %v", env.err)
	}
	return env.engine
}

func token(t *testing.T, c auth.Claims) string {
	t.Helper()
	tok, err := auth.Mint(secret, c, auth.MintOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func as(t *testing.T, c auth.Claims) context.Context {
	return metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer "+token(t, c))
}

var admin = auth.Claims{UserID: 1, Admin: true}

var queries = map[string]string{
	"search":       `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","filters":{"username":"alice"}}]}`,
	"traversal":    `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1,2]},{"id":"g","entity":"Group"}],"relationships":[{"type":"MEMBER_OF","from":"u","to":"g"}]}`,
	"aggregation":  `{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":100000}}],"group_by":["mr.state"],"aggregations":[{"count":"mr"}]}`,
	"path_finding": `{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[1,2]},{"id":"p","entity":"Project","id_range":{"start":1,"end":40}}],"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]},"limit":5}`,
	"neighbors":    `{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1,2,3]}],"neighbors":{"direction":"both"}}`,
}

var llmFormats = map[string]pb.FormatName{
	formatter.GOON: pb.FormatName_FORMAT_NAME_GOON, formatter.GCF: pb.FormatName_FORMAT_NAME_GCF,
	formatter.GCFGraph: pb.FormatName_FORMAT_NAME_GCF_GRAPH, formatter.GCX: pb.FormatName_FORMAT_NAME_GCX,
	formatter.TOON: pb.FormatName_FORMAT_NAME_TOON, formatter.Markdown: pb.FormatName_FORMAT_NAME_MARKDOWN,
	formatter.XML: pb.FormatName_FORMAT_NAME_XML,
}

func raw(t *testing.T, c pb.QueryServiceClient, ctx context.Context, q string) *graphresponse.Response {
	t.Helper()
	resp, err := c.ExecuteQuery(ctx, &pb.ExecuteQueryRequest{Query: q})
	if err != nil {
		t.Fatalf("raw query: %v", err)
	}
	r, err := graphresponse.Unmarshal([]byte(resp.GetResultJson()))
	if err != nil {
		t.Fatalf("raw result does not decode: %v", err)
	}
	return r
}

func TestEveryQueryTypeEveryFormat(t *testing.T) {
	c := server(t, engine(t), nil)
	ctx := as(t, admin)
	reg := formatter.Default()
	for name, q := range queries {
		t.Run(name, func(t *testing.T) {
			want := raw(t, c, ctx, q)
			if want.QueryType != strings.SplitN(strings.TrimPrefix(q, `{"query_type":"`), `"`, 2)[0] {
				t.Fatalf("query_type %q", want.QueryType)
			}
			if name != "aggregation" && len(want.Nodes) == 0 {
				t.Fatalf("%s matched nothing on the seeded graph", name)
			}
			for fname, enum := range llmFormats {
				resp, err := c.ExecuteQuery(ctx, &pb.ExecuteQueryRequest{Query: q, Format: pb.ResponseFormat_RESPONSE_FORMAT_LLM, LlmFormat: enum})
				if fname == formatter.GCFGraph && name == "aggregation" {
					if status.Code(err) != codes.InvalidArgument {
						t.Errorf("gcf-graph of an aggregation: %v, want InvalidArgument", err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", fname, err)
				}
				f, _ := reg.Lookup(fname)
				md := resp.GetMetadata()
				if md.GetFormatName() != fname || md.GetFormatVersion() != f.Version() || md.GetQueryType() != want.QueryType {
					t.Errorf("%s: metadata %v", fname, md)
				}
				text := resp.GetFormattedText()
				if text == "" || resp.GetResultJson() != "" || md.GetTokenCount() <= 0 {
					t.Errorf("%s: text %d bytes, json %d bytes, tokens %d", fname, len(text), len(resp.GetResultJson()), md.GetTokenCount())
				}
				// Lossless formats read back to the raw node and edge counts.
				if p, ok := f.(formatter.Parser); ok && (fname == formatter.GCF || fname == formatter.GCX || fname == formatter.XML) {
					back, err := p.Parse([]byte(text))
					if err != nil {
						t.Fatalf("%s does not read back: %v", fname, err)
					}
					if len(back.Nodes) != len(want.Nodes) || len(back.Edges) != len(want.Edges) || len(back.Rows) != len(want.Rows) {
						t.Errorf("%s read back %d/%d/%d nodes/edges/rows, raw has %d/%d/%d", fname, len(back.Nodes), len(back.Edges), len(back.Rows), len(want.Nodes), len(want.Edges), len(want.Rows))
					}
				}
			}
		})
	}
}

var headerCount = regexp.MustCompile(`(?m)^(nodes|edges):(\d+)$`)

func TestRawAndGOONCountsAgree(t *testing.T) {
	c := server(t, engine(t), nil)
	ctx := as(t, admin)
	for _, name := range []string{"traversal", "neighbors", "path_finding", "search"} {
		r := raw(t, c, ctx, queries[name])
		resp, err := c.ExecuteQuery(ctx, &pb.ExecuteQueryRequest{Query: queries[name], Format: pb.ResponseFormat_RESPONSE_FORMAT_LLM})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, m := range headerCount.FindAllStringSubmatch(resp.GetFormattedText(), -1) {
			got[m[1]], _ = strconv.Atoi(m[2])
		}
		if got["nodes"] != len(r.Nodes) || got["edges"] != len(r.Edges) {
			t.Errorf("%s: GOON nodes:%d edges:%d, raw %d/%d", name, got["nodes"], got["edges"], len(r.Nodes), len(r.Edges))
		}
		if !strings.Contains(resp.GetFormattedText(), "goon_version:"+config.GOONVersion()+"\n") {
			t.Errorf("%s: GOON text lacks goon_version:%s", name, config.GOONVersion())
		}
	}
}

func TestCursorRoundTrip(t *testing.T) {
	c := server(t, engine(t), nil)
	ctx := as(t, admin)
	q := `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","id_range":{"start":1,"end":100000}}],"order_by":"u.id","cursor":{"page_size":2}}`
	first := raw(t, c, ctx, q)
	if first.Pagination == nil || !first.Pagination.HasMore || first.Pagination.NextCursor == nil || len(first.Nodes) != 2 {
		t.Fatalf("first page: %d nodes, pagination %+v", len(first.Nodes), first.Pagination)
	}
	q2 := strings.Replace(q, `"page_size":2}`, `"page_size":2,"after":"`+*first.Pagination.NextCursor+`"}`, 1)
	second := raw(t, c, ctx, q2)
	if len(second.Nodes) == 0 || second.Nodes[0].ID <= first.Nodes[1].ID {
		t.Fatalf("second page does not continue after id %d: %+v", first.Nodes[1].ID, second.Nodes)
	}
	// A cursor replayed on another query is refused.
	other := strings.Replace(q2, `"order_by":"u.id"`, `"order_by":"-u.id"`, 1)
	if _, err := c.ExecuteQuery(ctx, &pb.ExecuteQueryRequest{Query: other}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("replayed cursor: %v, want InvalidArgument", err)
	}
}

// readStream runs req as a stream and drains it: the bytes, the last metadata seen and how
// many chunks came. An error before io.EOF fails the test.
func readStream(t *testing.T, ctx context.Context, c pb.QueryServiceClient, req *pb.ExecuteQueryRequest) (string, *pb.QueryMetadata, int) {
	t.Helper()
	stream, err := c.ExecuteQueryStream(ctx, req)
	if err != nil {
		t.Fatalf("open stream: %v", err)
	}
	var got strings.Builder
	var md *pb.QueryMetadata
	chunks := 0
	for {
		ch, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return got.String(), md, chunks
		}
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		chunks++
		got.Write(ch.GetData())
		if ch.GetMetadata() != nil {
			md = ch.GetMetadata()
		}
	}
}

func TestStreamingEqualsUnary(t *testing.T) {
	c := server(t, engine(t), func(o *grpcsvc.Options) { o.StreamChunkBytes = 97 })
	ctx := as(t, admin)
	for name, q := range queries {
		for _, req := range []*pb.ExecuteQueryRequest{
			{Query: q},
			{Query: q, Format: pb.ResponseFormat_RESPONSE_FORMAT_LLM, LlmFormat: pb.FormatName_FORMAT_NAME_GOON},
			{Query: q, Format: pb.ResponseFormat_RESPONSE_FORMAT_LLM, LlmFormat: pb.FormatName_FORMAT_NAME_TOON},
		} {
			unary, err := c.ExecuteQuery(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			want := unary.GetResultJson() + unary.GetFormattedText()
			got, md, chunks := readStream(t, ctx, c, req)
			if got != want {
				t.Errorf("%s %v: stream bytes differ from unary (%d vs %d bytes)", name, req.GetLlmFormat(), len(got), len(want))
			}
			if md == nil || md.GetFormatName() != unary.GetMetadata().GetFormatName() || md.GetRowCount() != unary.GetMetadata().GetRowCount() {
				t.Errorf("%s: stream metadata %v, unary %v", name, md, unary.GetMetadata())
			}
			if len(want) > 97 && chunks < 2 {
				t.Errorf("%s: %d bytes came in %d chunk(s)", name, len(want), chunks)
			}
		}
	}
}

func TestErrorStatuses(t *testing.T) {
	eng := engine(t)
	c := server(t, eng, nil)
	expired, err := auth.Mint(secret, admin, auth.MintOptions{TTL: time.Minute, Now: time.Now().Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	scoped := auth.Claims{UserID: 5, Scopes: []auth.Scope{{Path: "100/", Level: 30}}}
	tests := []struct {
		name  string
		ctx   context.Context
		query string
		want  codes.Code
	}{
		{"no token", t.Context(), queries["search"], codes.Unauthenticated},
		{"garbage token", metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer x.y.z"), queries["search"], codes.Unauthenticated},
		{"expired token", metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer "+expired), queries["search"], codes.Unauthenticated},
		{"unknown entity", as(t, admin), `{"query_type":"traversal","nodes":[{"id":"u","entity":"Userx","node_ids":[1]}]}`, codes.InvalidArgument},
		{"malformed JSON", as(t, admin), `{"query_type":`, codes.InvalidArgument},
		{"scope violation", as(t, scoped), `{"query_type":"traversal","nodes":[{"id":"m","entity":"MergeRequest","filters":{"traversal_path":{"starts_with":"999/"}}}]}`, codes.PermissionDenied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.ExecuteQuery(tt.ctx, &pb.ExecuteQueryRequest{Query: tt.query})
			if status.Code(err) != tt.want {
				t.Fatalf("err = %v, want %s", err, tt.want)
			}
		})
	}
	t.Run("invalid argument names the pointer", func(t *testing.T) {
		_, err := c.ExecuteQuery(as(t, admin), &pb.ExecuteQueryRequest{Query: `{"query_type":"traversal","nodes":[{"id":"u","entity":"Userx","node_ids":[1]}]}`})
		if st := status.Convert(err); !strings.HasPrefix(st.Message(), "/nodes/0/entity: ") || len(st.Details()) != 2 {
			t.Errorf("status %q with %d details", st.Message(), len(st.Details()))
		}
	})
	t.Run("deadline", func(t *testing.T) {
		c := server(t, eng, func(o *grpcsvc.Options) { o.MaxTimeout = time.Nanosecond })
		_, err := c.ExecuteQuery(as(t, admin), &pb.ExecuteQueryRequest{Query: queries["path_finding"]})
		if status.Code(err) != codes.DeadlineExceeded {
			t.Errorf("err = %v, want DeadlineExceeded", err)
		}
	})
	t.Run("engine unavailable", func(t *testing.T) {
		// A real clickhouse-go executor pointed at a closed loopback port.
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := lis.Addr().String()
		lis.Close()
		down, err := clickhouse.Open(clickhouse.Options{DSN: "clickhouse://" + addr + "/graph?dial_timeout=500ms"})
		if err != nil {
			t.Fatalf("open a client for a closed port: %v", err)
		}
		defer down.Close()
		c := server(t, down, nil)
		_, err = c.ExecuteQuery(as(t, admin), &pb.ExecuteQueryRequest{Query: queries["search"]})
		if status.Code(err) != codes.Unavailable {
			t.Errorf("err = %v, want Unavailable", err)
		}
	})
}

func TestOutOfScopeCallerSeesNothing(t *testing.T) {
	c := server(t, engine(t), nil)
	nobody := auth.Claims{UserID: 77, Scopes: []auth.Scope{{Path: "987654321/", Level: 50}}}
	q := `{"query_type":"traversal","nodes":[{"id":"m","entity":"MergeRequest","id_range":{"start":1,"end":100000}}],"limit":1000}`
	if all := raw(t, c, as(t, admin), q); len(all.Nodes) == 0 {
		t.Fatal("admin sees no merge requests")
	}
	if got := raw(t, c, as(t, nobody), q); len(got.Nodes) != 0 {
		t.Errorf("out-of-scope caller sees %d merge requests", len(got.Nodes))
	}
	agg := `{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":100000}}],"aggregations":[{"count":"mr"}]}`
	r := raw(t, c, as(t, nobody), agg)
	if len(r.Rows) != 1 {
		t.Fatalf("rows %v", r.Rows)
	}
	if v, _ := r.Rows[0].Get("count_mr"); v.Int() != 0 {
		t.Errorf("out-of-scope count = %#v, want 0", v)
	}
}

func TestHealthReflectionAndSchemas(t *testing.T) {
	conn := grpcConn(t, listen(t, engine(t), nil), insecure.NewCredentials())
	h, err := healthpb.NewHealthClient(conn).Check(t.Context(), &healthpb.HealthCheckRequest{Service: "graphwire.v1.QueryService"})
	if err != nil || h.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("health: %v %v", h, err)
	}
	rc, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{ListServices: ""}}); err != nil {
		t.Fatal(err)
	}
	res, err := rc.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range res.GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	if !strings.Contains(strings.Join(names, ","), "graphwire.v1.QueryService") {
		t.Errorf("reflection lists %v", names)
	}
	c := pb.NewQueryServiceClient(conn)
	ctx := as(t, admin)
	dsl, err := c.GetQueryDsl(ctx, &pb.GetQueryDslRequest{})
	if err != nil || dsl.GetVersion() != config.QueryDSLVersion() || !strings.Contains(dsl.GetSchemaJson(), "graph_query") {
		t.Errorf("GetQueryDsl: %v %v", dsl.GetVersion(), err)
	}
	rf, err := c.GetResponseFormat(ctx, &pb.GetResponseFormatRequest{})
	if err != nil || rf.GetRawVersion() != config.RawVersion() || len(rf.GetFormats()) != len(formatter.Default().Names()) {
		t.Errorf("GetResponseFormat: %v %v", rf, err)
	}
	gs, err := c.GetGraphSchema(ctx, &pb.GetGraphSchemaRequest{Format: pb.ResponseFormat_RESPONSE_FORMAT_LLM})
	if err != nil || !strings.Contains(gs.GetFormattedText(), "MergeRequest") {
		t.Errorf("GetGraphSchema: %v", err)
	}
	if _, err := c.GetQueryDsl(t.Context(), &pb.GetQueryDslRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Errorf("GetQueryDsl without token: %v", err)
	}
}

// TestRecoversAfterEngineFailure breaks the engine under a running server
// (the user table disappears), checks the service keeps answering with
// Unavailable, then repairs the engine and checks queries succeed again.
func TestRecoversAfterEngineFailure(t *testing.T) {
	c := server(t, engine(t), nil)
	ctx := as(t, admin)
	before := raw(t, c, ctx, queries["search"])
	if len(before.Nodes) == 0 {
		t.Fatal("search found nothing before the failure")
	}
	repair := breakUserTable(t)
	for range 3 {
		_, err := c.ExecuteQuery(ctx, &pb.ExecuteQueryRequest{Query: queries["search"]})
		if status.Code(err) != codes.Unavailable {
			t.Fatalf("query on the broken engine: %v, want Unavailable", err)
		}
	}
	// Other entities keep working meanwhile.
	if r := raw(t, c, ctx, `{"query_type":"traversal","nodes":[{"id":"m","entity":"MergeRequest","node_ids":[1]}]}`); len(r.Nodes) != 1 {
		t.Errorf("merge request 1 during the failure: %d nodes", len(r.Nodes))
	}
	repair()
	after := raw(t, c, ctx, queries["search"])
	if !after.Equal(before) {
		t.Errorf("after recovery the answer differs:\n%s\n%s", graphresponse.Marshal(before), graphresponse.Marshal(after))
	}
}

var packRoot = regexp.MustCompile(`pack_root=(\S+)`)

// graphText asks c, as the caller of ctx, for q in gcf-graph, echoing root
// as the pack root the client holds ("" for none), and returns the text.
func graphText(t *testing.T, c pb.QueryServiceClient, ctx context.Context, q, root string) string {
	t.Helper()
	resp, err := c.ExecuteQuery(ctx, &pb.ExecuteQueryRequest{Query: q, Format: pb.ResponseFormat_RESPONSE_FORMAT_LLM,
		LlmFormat: pb.FormatName_FORMAT_NAME_GCF_GRAPH, PackRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	return resp.GetFormattedText()
}

func decodeGCF(t *testing.T, text string) *gcf.Document {
	t.Helper()
	doc, err := gcf.NewDecoder(strings.NewReader(text), gcf.Options{Profile: gcf.ProfileGraph}).DecodeDocument()
	if err != nil {
		t.Fatalf("decode gcf-graph payload: %v\n%s", err, text)
	}
	return doc
}

// TestGraphSessionAcrossCalls: a gcf-graph client that echoes the
// pack_root it holds gets "unchanged" for the same answer and a delta (or
// the full graph when a delta is not worth it) for an overlapping one; the
// delta applied to what it holds gives exactly the new graph.
func TestGraphSessionAcrossCalls(t *testing.T) {
	c := server(t, engine(t), nil)
	ctx := as(t, admin)
	q1 := `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1,2,3,4,5,6]},{"id":"g","entity":"Group"}],"relationships":[{"type":"MEMBER_OF","from":"u","to":"g"}]}`
	q2 := strings.Replace(q1, "[1,2,3,4,5,6]", "[1,2,3,4,5,6,7]", 1)

	first := graphText(t, c, ctx, q1, "")
	// Without a root, the answer is the stateless formatter's output.
	var want bytes.Buffer
	f, _ := formatter.Default().Lookup(formatter.GCFGraph)
	if err := f.Format(&want, raw(t, c, ctx, q1)); err != nil {
		t.Fatal(err)
	}
	if first != want.String() {
		t.Fatalf("first gcf-graph answer differs from the formatter's:\n%s\n---\n%s", first, want.String())
	}
	m := packRoot.FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("no pack_root in %q", first)
	}
	root := m[1]
	held := decodeGCF(t, first).Graph

	unchanged := graphText(t, c, ctx, q1, root)
	if len(unchanged) >= len(first)/2 || !strings.Contains(unchanged, root) {
		t.Errorf("same query with its root: %d bytes (full %d):\n%s", len(unchanged), len(first), unchanged)
	}
	if doc := decodeGCF(t, unchanged); doc.Graph == nil || !doc.Graph.Unchanged || len(doc.Graph.Symbols) != 0 {
		t.Errorf("unchanged answer decodes to %+v", doc.Header)
	}

	next := graphText(t, c, ctx, q2, root)
	want.Reset()
	if err := f.Format(&want, raw(t, c, ctx, q2)); err != nil {
		t.Fatal(err)
	}
	full := want.String()
	wantGraph := decodeGCF(t, full).Graph
	doc := decodeGCF(t, next)
	got := doc.Graph
	t.Logf("overlapping query: %d bytes (full %d), delta=%v", len(next), len(full), doc.Delta != nil)
	if doc.Delta == nil {
		t.Errorf("one more user in the answer came back in full (%d bytes), not as a delta", len(next))
	}
	if doc.Delta != nil {
		if got, _ = gcf.ApplyDelta(held, doc.Delta); got == nil {
			t.Fatal("delta does not apply to the held graph")
		}
		if len(next) >= len(full) {
			t.Errorf("delta of %d bytes is not smaller than the full %d", len(next), len(full))
		}
	}
	gotRoot, err1 := gcf.PackRoot(got)
	wantRoot, err2 := gcf.PackRoot(wantGraph)
	if err1 != nil || err2 != nil || gotRoot != wantRoot {
		t.Errorf("the client's graph after the answer has root %s, want %s (%v %v)", gotRoot, wantRoot, err1, err2)
	}
	// Another caller never gets a delta against this caller's graph.
	other := as(t, auth.Claims{UserID: 2, Admin: true})
	if text := graphText(t, c, other, q2, root); text != full {
		t.Errorf("another caller echoing a foreign root got a non-full answer:\n%s", text)
	}
}

// TestBudgetAutoAndDSLOverGRPC: max_tokens, cursor and format auto work
// over gRPC as over MCP (one pipeline), and GetQueryDsl carries the
// ontology's entity and relationship enums.
func TestBudgetAutoAndDSLOverGRPC(t *testing.T) {
	c := server(t, engine(t), nil)
	ctx := as(t, admin)
	q := `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","id_range":{"start":1,"end":100000}}],"limit":100}`
	full := raw(t, c, ctx, q)
	var ids []int64
	cursor := ""
	for pages := 0; ; pages++ {
		resp, err := c.ExecuteQuery(ctx, &pb.ExecuteQueryRequest{Query: q, MaxTokens: 800, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		md := resp.GetMetadata()
		if md.GetTokenCount() > 800 {
			t.Fatalf("page %d: %d tokens > 800", pages, md.GetTokenCount())
		}
		page, err := graphresponse.Unmarshal([]byte(resp.GetResultJson()))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range page.Nodes {
			ids = append(ids, n.ID)
		}
		if cursor = md.GetNextCursor(); cursor == "" {
			break
		}
		if pages > 100 {
			t.Fatal("paging does not end")
		}
	}
	if len(ids) != len(full.Nodes) {
		t.Fatalf("pages hold %d users, the full answer %d", len(ids), len(full.Nodes))
	}
	for i, n := range full.Nodes {
		if ids[i] != n.ID {
			t.Fatalf("user %d: id %d, want %d", i, ids[i], n.ID)
		}
	}
	auto, err := c.ExecuteQuery(ctx, &pb.ExecuteQueryRequest{Query: q, Format: pb.ResponseFormat_RESPONSE_FORMAT_LLM, LlmFormat: pb.FormatName_FORMAT_NAME_AUTO})
	if err != nil {
		t.Fatal(err)
	}
	if name := auto.GetMetadata().GetFormatName(); name == "auto" || name == formatter.GCFGraph || name == "" {
		t.Errorf("auto answered as %q", name)
	}
	dsl, err := c.GetQueryDsl(ctx, &pb.GetQueryDslRequest{IncludeText: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(dsl.GetSchemaJson(), `"EntityType":{"enum":["`) || !strings.Contains(dsl.GetSchemaJson(), `"MEMBER_OF"`) {
		t.Errorf("GetQueryDsl schema has no ontology enums")
	}
	if !strings.Contains(dsl.GetText(), "MergeRequest") {
		t.Errorf("GetQueryDsl text: %q", dsl.GetText())
	}
}
