package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"google.golang.org/grpc"

	"github.com/graphwire/graphwire/auth"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/tokens"
	"github.com/graphwire/graphwire/ontology"
	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
	"github.com/graphwire/graphwire/seed"
)

// demoQueries is one sample of each query type, run in this order.
var demoQueries = []struct{ name, query string }{
	{"search", `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","filters":{"username":"alice"}}]}`},
	{"traversal", `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1,2,3]},{"id":"g","entity":"Group"}],"relationships":[{"type":"MEMBER_OF","from":"u","to":"g"}],"limit":10}`},
	{"aggregation", `{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":100000}}],"group_by":["mr.state"],"aggregations":[{"count":"mr"}],"aggregation_sort":"-count_mr"}`},
	{"path_finding", `{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"p","entity":"Project","id_range":{"start":1,"end":40}}],"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]},"limit":3}`},
	{"neighbors", `{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1]}],"neighbors":{"direction":"both"},"limit":8}`},
}

// demoPrintLimit bounds how much of one result the demo prints.
const demoPrintLimit = 3000

// demoFormats are printed for every query, JSON last as the baseline.
var demoFormats = []struct {
	name string
	req  func(q string) *pb.ExecuteQueryRequest
}{
	{formatter.GOON, llmRequest(pb.FormatName_FORMAT_NAME_GOON)},
	{formatter.GCF, llmRequest(pb.FormatName_FORMAT_NAME_GCF)},
	{formatter.GCX, llmRequest(pb.FormatName_FORMAT_NAME_GCX)},
	{formatter.TOON, llmRequest(pb.FormatName_FORMAT_NAME_TOON)},
	{formatter.JSON, func(q string) *pb.ExecuteQueryRequest { return &pb.ExecuteQueryRequest{Query: q} }},
}

func llmRequest(f pb.FormatName) func(string) *pb.ExecuteQueryRequest {
	return func(q string) *pb.ExecuteQueryRequest {
		return &pb.ExecuteQueryRequest{Query: q, Format: pb.ResponseFormat_RESPONSE_FORMAT_LLM, LlmFormat: f}
	}
}

func newDemoCmd(s streams) *cobra.Command {
	var dir, samples string
	var scale float64
	cmd := &cobra.Command{
		Use:   "demo [flags]",
		Short: "print sample responses in every format with byte and token counts",
		Long: "Seed a graph, serve it on a loopback port and run one query of each type through gRPC in every\n" +
			"format, with byte and token counts (what make demo runs).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if samples != "" {
				return demoSamples(samples, s.stdout)
			}
			return demoLive(cmd.Context(), dir, scale, s.stdout, s.stderr)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&dir, "embedded", "", "data directory of the embedded engine (default: a temporary directory, removed afterwards)")
	deprecatedAlias(fs, "embedded", "data", s.stderr)
	fs.Float64Var(&scale, "scale", 1, "seed scale (1 ≈ 14k nodes)")
	fs.StringVar(&samples, "samples", "", "instead of querying, print the sample responses of this directory (*.input.json) in every format")
	return cmd
}

// demoLive seeds the embedded graph, serves it on a free loopback port and
// runs one sample of each query type through gRPC in every format.
func demoLive(ctx context.Context, dir string, scale float64, stdout, stderr io.Writer) error {
	if _, err := os.Stat(chdb.DefaultLibrary()); err != nil {
		return fmt.Errorf("libchdb.so is missing at %s: run bash scripts/install-chdb.sh (make demo does)", chdb.DefaultLibrary())
	}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "graphwire-demo-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	f := engineFlags{embedded: dir}
	eng, err := f.openWritable(stderr)
	if err != nil {
		return err
	}
	defer eng.Close()
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		return err
	}
	bar, err := newProgress(stderr, os.Getenv(progressEnv), unitRows)
	if err != nil {
		return &usageError{err}
	}
	defer bar.finish()
	opts := seed.Options{Scale: scale, Seed: 42, Progress: bar.report}
	g, err := seed.Generate(ont, opts)
	if err != nil {
		return err
	}
	start := time.Now()
	if _, err := seed.Load(ctx, eng, ont, g, opts); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	bar.finish()
	fmt.Fprintf(stderr, "demo: seeded scale %g into %s in %s\n", scale, dir, time.Since(start).Round(time.Millisecond))

	lb, err := serveLoopback(eng, ont)
	if err != nil {
		return err
	}
	defer lb.close()
	fmt.Fprintf(stderr, "demo: serving on %s\n", lb.addr)
	client := lb.client
	cctx := withToken(ctx, lb.token)
	counter := tokens.New()

	fmt.Fprintf(stdout, "graphwire demo: embedded ClickHouse (chDB), seed scale %g, %d query types × %d formats through gRPC\n", scale, len(demoQueries), len(demoFormats))
	fmt.Fprintln(stdout, "token counts: o200k_base / cl100k_base; savings against compact JSON (o200k_base)")
	type row struct {
		query, format string
		bytes, o200k  int
		cl100k        int
	}
	var table []row
	notices := map[string]string{}
	for _, dq := range demoQueries {
		fmt.Fprintf(stdout, "\n==== %s\n%s\n", dq.name, dq.query)
		var jsonTokens int
		results := make([]row, 0, len(demoFormats))
		texts := make([]string, 0, len(demoFormats))
		for _, df := range demoFormats {
			resp, err := client.ExecuteQuery(cctx, df.req(dq.query))
			if err != nil {
				return fmt.Errorf("%s as %s: %w", dq.name, df.name, err)
			}
			text := resp.GetFormattedText() + resp.GetResultJson()
			o, err := counter.Count(tokens.O200k, text)
			if err != nil {
				return err
			}
			c, err := counter.Count(tokens.CL100k, text)
			if err != nil {
				return err
			}
			if df.name == formatter.JSON {
				jsonTokens = o
				r, err := graphresponse.Unmarshal([]byte(text))
				if err != nil {
					return fmt.Errorf("raw result of %s does not decode: %w", dq.name, err)
				}
				// What GOON shortened is known from the full answer, which
				// comes last; the results are printed after all arrived.
				notices[dq.name] = goonTruncationNotice(goonTruncations(r))
			}
			results = append(results, row{dq.name, df.name, len(text), o, c})
			texts = append(texts, text)
		}
		for i, r := range results {
			saving := ""
			if r.format != formatter.JSON && jsonTokens > 0 {
				saving = fmt.Sprintf(", %+.0f%% vs JSON", 100*float64(r.o200k-jsonTokens)/float64(jsonTokens))
			}
			fmt.Fprintf(stdout, "---- %s: %d bytes, %d / %d tokens%s\n", r.format, r.bytes, r.o200k, r.cl100k, saving)
			text := texts[i]
			if len(text) > demoPrintLimit {
				// Counts are of the whole text; the terminal gets the start.
				cut := strings.LastIndexByte(text[:demoPrintLimit], '\n') + 1
				if cut == 0 { // one long line (JSON): cut at a rune boundary
					cut = demoPrintLimit
					for cut > 0 && !utf8.RuneStart(text[cut]) {
						cut--
					}
				}
				text = text[:cut] + fmt.Sprintf("\n… (%d more bytes)\n", len(texts[i])-cut)
			}
			io.WriteString(stdout, text)
			if !strings.HasSuffix(text, "\n") {
				fmt.Fprintln(stdout)
			}
			if r.format == formatter.GOON && notices[dq.name] != "" {
				fmt.Fprintln(stdout, notices[dq.name])
			}
		}
		table = append(table, results...)
	}
	fmt.Fprintf(stdout, "\n==== summary (o200k_base tokens)\n%-14s", "query")
	for _, df := range demoFormats {
		fmt.Fprintf(stdout, " %8s", df.name)
	}
	fmt.Fprintln(stdout)
	for _, dq := range demoQueries {
		fmt.Fprintf(stdout, "%-14s", dq.name)
		for _, df := range demoFormats {
			i := slices.IndexFunc(table, func(r row) bool { return r.query == dq.name && r.format == df.name })
			fmt.Fprintf(stdout, " %8d", table[i].o200k)
		}
		fmt.Fprintln(stdout)
	}
	return nil
}

// loopback is eng's gRPC service on a free loopback port, keyed with a fresh random secret,
// and a client of it with an admin token: what demo and bench query through.
type loopback struct {
	svc    *service
	addr   string
	token  string // an admin caller's
	client pb.QueryServiceClient
	conn   *grpc.ClientConn
	srv    *grpc.Server
}

func serveLoopback(eng engine, ont *ontology.Ontology) (*loopback, error) {
	secret := make([]byte, 32)
	rand.Read(secret)
	svc, err := newService(eng, ont, serviceOptions{Keys: [][]byte{secret}, Audience: "graphwire", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, err
	}
	tok, err := auth.Mint(secret, auth.Claims{UserID: 1, Admin: true}, auth.MintOptions{})
	if err != nil {
		return nil, err
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := svc.server.GRPCServer()
	go srv.Serve(lis)
	conn, err := dial(lis.Addr().String())
	if err != nil {
		srv.Stop()
		return nil, err
	}
	return &loopback{svc: svc, addr: lis.Addr().String(), token: tok, client: pb.NewQueryServiceClient(conn), conn: conn, srv: srv}, nil
}

// close closes the client's connection and stops the server.
func (l *loopback) close() {
	l.conn.Close()
	l.srv.Stop()
}

// goonTruncation is one string value GOON shortens.
type goonTruncation struct {
	Key   string
	Len   int // the value's length in code points
	Limit int
}

// goonTruncations lists the values of r that GOON shortens to its length
// limit (spec goon.md §3.7.1: 200 code points for body, description, name,
// note and title, 1000 for every other key): node properties (which get a
// key_len breadcrumb), aggregation cells, and the properties of the nodes
// lifted from node cells. Arrays and objects print as their JSON text,
// which is shortened the same way.
func goonTruncations(r *graphresponse.Response) []goonTruncation {
	var out []goonTruncation
	check := func(key string, v graphresponse.Value) {
		var s string
		switch v.Kind() {
		case graphresponse.KindString:
			s = v.Str()
		case graphresponse.KindArray, graphresponse.KindObject:
			s = string(graphresponse.AppendValueJSON(nil, v)) // key order does not change the length
		default:
			return
		}
		limit := 1000
		switch key {
		case "body", "description", "name", "note", "title":
			limit = 200
		}
		if n := utf8.RuneCountInString(s); n > limit {
			out = append(out, goonTruncation{key, n, limit})
		}
	}
	for _, n := range r.Nodes {
		for _, m := range n.Props {
			check(m.Key, m.Value)
		}
	}
	for _, row := range r.Rows {
		for _, m := range row {
			if m.Value.Kind() == graphresponse.KindObject {
				if props, ok := m.Value.Get("properties"); ok && props.Kind() == graphresponse.KindObject {
					for _, p := range props.Members() {
						check(p.Key, p.Value)
					}
					continue
				}
			}
			check(m.Key, m.Value)
		}
	}
	return out
}

// goonTruncationNotice says what GOON shortened, or "" when nothing.
func goonTruncationNotice(ts []goonTruncation) string {
	if len(ts) == 0 {
		return ""
	}
	longest := slices.MaxFunc(ts, func(a, b goonTruncation) int { return a.Len - b.Len })
	values := "value"
	if len(ts) > 1 {
		values = "values"
	}
	return fmt.Sprintf("note: goon truncated %d %s over its length limit (the longest: %s, %d characters, cut to %d); "+
		"the json result below, or --format json, has the full text", len(ts), values, longest.Key, longest.Len, longest.Limit)
}

// demoSamples prints every sample response in every registered format, with
// byte and o200k_base token counts.
func demoSamples(dir string, w io.Writer) error {
	paths, err := filepath.Glob(filepath.Join(dir, "*.input.json"))
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return fmt.Errorf("no *.input.json in %s", dir)
	}
	reg := formatter.Default()
	counter := tokens.New()
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		resp, err := graphresponse.Unmarshal(data)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		name := strings.TrimSuffix(filepath.Base(p), ".input.json")
		fmt.Fprintf(w, "==== %s (%s)\n", name, resp.QueryType)
		notice := goonTruncationNotice(goonTruncations(resp))
		for _, f := range reg.Formatters() {
			out, err := formatter.Stamp(f, resp)
			if err != nil {
				// Some formats cannot carry some shapes (gcf-graph has no
				// aggregations): say so and go on.
				fmt.Fprintf(w, "---- %s %s: not representable: %s\n", f.Name(), f.Version(), oneLine(err))
				continue
			}
			n, err := counter.Count(tokens.O200k, string(out.Bytes))
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "---- %s %s: %d bytes, %d tokens (o200k_base)\n", out.Name, out.Version, len(out.Bytes), n)
			w.Write(out.Bytes)
			if len(out.Bytes) > 0 && out.Bytes[len(out.Bytes)-1] != '\n' {
				fmt.Fprintln(w)
			}
			if out.Name == formatter.GOON && notice != "" {
				fmt.Fprintln(w, strings.Replace(notice, "the json result below, or --format json,", "the json output", 1))
			}
		}
	}
	return nil
}
