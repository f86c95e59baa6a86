package e2e

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/graphwire/graphwire/admission"
	"github.com/graphwire/graphwire/grpcsvc"
	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
	"github.com/graphwire/graphwire/telemetry"
)

// scrape fetches addr's /metrics over loopback and parses it.
func scrape(t *testing.T, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse the scrape: %v", err)
	}
	return fams
}

// sample returns the value of the series of family name whose labels are
// exactly labels (a histogram gives its sample count), or -1 when there is
// none.
func sample(fams map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	f, ok := fams[name]
	if !ok {
		return -1
	}
	for _, m := range f.GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		if !cmp.Equal(got, labels) {
			continue
		}
		switch {
		case m.GetCounter() != nil:
			return m.GetCounter().GetValue()
		case m.GetGauge() != nil:
			return m.GetGauge().GetValue()
		case m.GetHistogram() != nil:
			return float64(m.GetHistogram().GetSampleCount())
		}
	}
	return -1
}

// TestMetricsScrape runs real queries — raw, gcf-graph twice with the
// pack_root echoed, one refused by admission — and checks the series a
// scrape of /metrics over loopback shows, with their labels and counts.
func TestMetricsScrape(t *testing.T) {
	eng := engine(t)
	adm, err := admission.New(admission.Options{MaxConcurrent: enginePool, MaxPerCaller: 1, MaxQueued: -1})
	if err != nil {
		t.Fatal(err)
	}
	m, err := telemetry.New(telemetry.Options{Admission: adm})
	if err != nil {
		t.Fatal(err)
	}
	c := server(t, eng, func(o *grpcsvc.Options) { o.Admission, o.Metrics = adm, m })
	mlis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: m.Handler()}
	go hs.Serve(mlis)
	t.Cleanup(func() { hs.Close() })

	ctx := as(t, admin)
	before := scrape(t, mlis.Addr().String())
	if got := sample(before, "graphwire_requests_total", map[string]string{"face": "grpc", "method": "/graphwire.v1.QueryService/ExecuteQuery", "code": "OK", "query_type": "traversal"}); got != -1 {
		t.Fatalf("a request series before any request: %v", got)
	}
	raw(t, c, ctx, queries["search"])
	raw(t, c, ctx, queries["traversal"])
	graph := &pb.ExecuteQueryRequest{Query: queries["traversal"], Format: pb.ResponseFormat_RESPONSE_FORMAT_LLM, LlmFormat: pb.FormatName_FORMAT_NAME_GCF_GRAPH}
	first, err := c.ExecuteQuery(ctx, graph)
	if err != nil {
		t.Fatal(err)
	}
	graph.PackRoot = first.GetMetadata().GetPackRoot()
	if _, err := c.ExecuteQuery(ctx, graph); err != nil {
		t.Fatal(err)
	}
	// Hold user 1's only slot: its next query is refused at once.
	release, err := adm.Acquire(t.Context(), "1")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if _, err := c.ExecuteQuery(ctx, &pb.ExecuteQueryRequest{Query: queries["search"]}); status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("query over the caller's limit: %v, want ResourceExhausted", err)
	}

	fams := scrape(t, mlis.Addr().String())
	method := "/graphwire.v1.QueryService/ExecuteQuery"
	tests := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"graphwire_requests_total", map[string]string{"face": "grpc", "method": method, "code": "OK", "query_type": "traversal"}, 4},
		{"graphwire_requests_total", map[string]string{"face": "grpc", "method": method, "code": "ResourceExhausted", "query_type": "traversal"}, 1},
		{"graphwire_request_duration_seconds", map[string]string{"face": "grpc", "method": method}, 5},
		{"graphwire_engine_duration_seconds", map[string]string{"query_type": "traversal"}, 4},
		{"graphwire_format_duration_seconds", map[string]string{"format": "json"}, 2},
		{"graphwire_format_duration_seconds", map[string]string{"format": "gcf-graph"}, 2},
		{"graphwire_admission_rejections_total", map[string]string{"limit": "caller"}, 1},
		{"graphwire_graph_answers_total", map[string]string{"outcome": "full"}, 1},
		{"graphwire_graph_answers_total", map[string]string{"outcome": "unchanged"}, 1},
		{"graphwire_graph_snapshot_lookups_total", map[string]string{"result": "hit"}, 1},
		{"graphwire_admission_slots_in_use", map[string]string{}, 1},
		{"graphwire_admission_waiting", map[string]string{}, 0},
		{"graphwire_admission_slots", map[string]string{}, enginePool},
	}
	for _, tt := range tests {
		if got := sample(fams, tt.name, tt.labels); got != tt.want {
			t.Errorf("%s%v = %v, want %v", tt.name, tt.labels, got, tt.want)
		}
	}
	for _, name := range []string{"graphwire_answer_rows_total", "graphwire_answer_tokens_total", "graphwire_answer_bytes_total"} {
		if got := sample(fams, name, map[string]string{"format": "gcf-graph"}); got <= 0 {
			t.Errorf("%s{format=gcf-graph} = %v, want > 0", name, got)
		}
	}
	if got := sample(fams, "graphwire_answer_rows_total", map[string]string{"format": "json"}); got <= 0 {
		t.Errorf("graphwire_answer_rows_total{format=json} = %v, want > 0", got)
	}
}

var newID = regexp.MustCompile(`^[0-9a-f]{32}$`)

// TestRequestID: a sane incoming x-request-id is kept, an unusable one
// replaced by a new id; either way it is in the response metadata and
// headers and in the request's log lines.
func TestRequestID(t *testing.T) {
	var logs syncBuffer
	logger := slog.New(telemetry.NewLogHandler(slog.NewJSONHandler(&logs, nil)))
	c := server(t, engine(t), func(o *grpcsvc.Options) { o.Logger = logger })
	tests := []struct {
		name, incoming string
		keep           bool
	}{
		{"sane", "req-2024.07:abc/1+x=", true},
		{"none", "", false},
		{"space", "two words", false},
		{"too long", string(bytes.Repeat([]byte("a"), telemetry.MaxRequestIDBytes+1)), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := as(t, admin)
			if tt.incoming != "" {
				ctx = metadata.AppendToOutgoingContext(ctx, "x-request-id", tt.incoming)
			}
			var header metadata.MD
			resp, err := c.ExecuteQuery(ctx, &pb.ExecuteQueryRequest{Query: queries["search"]}, grpc.Header(&header))
			if err != nil {
				t.Fatal(err)
			}
			id := resp.GetMetadata().GetRequestId()
			if tt.keep && id != tt.incoming {
				t.Errorf("request_id %q, want the incoming %q", id, tt.incoming)
			}
			if !tt.keep && !newID.MatchString(id) {
				t.Errorf("request_id %q, want a new 32-hex id", id)
			}
			if got := header.Get("x-request-id"); len(got) != 1 || got[0] != id {
				t.Errorf("x-request-id header %v, want [%s]", got, id)
			}
			found := false
			for _, l := range logs.lines(t) {
				if l["msg"] == "rpc" && l["request_id"] == id {
					found = true
				}
			}
			if !found {
				t.Errorf("no rpc log line with request_id %q", id)
			}
		})
	}
	// Calls that fail before the query runs have an id in the log too.
	var header metadata.MD
	_, err := c.GetQueryDsl(context.Background(), &pb.GetQueryDslRequest{}, grpc.Header(&header))
	if status.Code(err) != codes.Unauthenticated {
		t.Fatalf("GetQueryDsl without token: %v", err)
	}
	if got := header.Get("x-request-id"); len(got) != 1 || !newID.MatchString(got[0]) {
		t.Errorf("x-request-id of a refused call: %v", got)
	}
}
