package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/graphresponse"
	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
)

// badMR is a merge request the tests write straight into the engine with text that is not
// UTF-8, as a load before the loader refused it (or another writer) would have left it.
const badMR = 900001

var badMRQuery = `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[900001],"columns":["title","description"]}]}`

// Each run of bad bytes reads as one U+FFFD; two strings are repaired.
const (
	badTitle      = "ok \xff\xfe end"
	repairedTitle = "ok \uFFFD end"
	badDesc       = "caf\xc3"
	repairedDesc  = "caf\uFFFD"
)

// storeInvalidUTF8 copies merge request 1 as badMR with a title and description that are not
// UTF-8, and removes it when the test ends.
func storeInvalidUTF8(t *testing.T) {
	t.Helper()
	eng := engine(t)
	ctx := context.Background()
	if err := eng.Exec(ctx, "INSERT INTO gl_merge_request SELECT * REPLACE (900001 AS id, unhex('6f6b20fffe20656e64') AS title, unhex('636166c3') AS description)"+
		// The filter sits in a sub-query: at the outer level id resolves to the REPLACE alias.
		" FROM (SELECT * FROM gl_merge_request FINAL WHERE id = 1 AND _deleted = false)"); err != nil {
		t.Fatalf("store invalid UTF-8: %v", err)
	}
	t.Cleanup(func() {
		if err := eng.Exec(ctx, "DELETE FROM gl_merge_request WHERE id = 900001"); err != nil {
			t.Errorf("remove the merge request: %v", err)
		}
	})
}

// TestStoredInvalidUTF8EveryFormat: text that is not UTF-8 already in the graph is answered in
// every format, unary and streamed, repaired the same way (each run of bad bytes as U+FFFD)
// and counted in altered_values; no format fails and no marshaling error reaches the client.
func TestStoredInvalidUTF8EveryFormat(t *testing.T) {
	c := server(t, engine(t), nil)
	ctx := as(t, admin)
	storeInvalidUTF8(t)
	resp, err := c.ExecuteQuery(ctx, &pb.ExecuteQueryRequest{Query: badMRQuery})
	if err != nil {
		t.Fatalf("raw json: %v", err)
	}
	r, err := graphresponse.Unmarshal([]byte(resp.GetResultJson()))
	if err != nil {
		t.Fatal(err)
	}
	checkRepaired(t, "json", r)
	if got := resp.GetMetadata().GetAlteredValues(); got != 2 {
		t.Errorf("json: altered_values %d, want 2", got)
	}
	formats := map[string]pb.FormatName{formatter.JSON: pb.FormatName_FORMAT_NAME_RAW, "auto": pb.FormatName_FORMAT_NAME_AUTO}
	for name, enum := range llmFormats {
		formats[name] = enum
	}
	reg := formatter.Default()
	for name, enum := range formats {
		t.Run(name, func(t *testing.T) {
			req := &pb.ExecuteQueryRequest{Query: badMRQuery, Format: pb.ResponseFormat_RESPONSE_FORMAT_LLM, LlmFormat: enum}
			resp, err := c.ExecuteQuery(ctx, req)
			if err != nil {
				t.Fatalf("unary: %v", err)
			}
			text := resp.GetFormattedText()
			// gcf-graph carries the topology only, without the text.
			topology := name == formatter.GCFGraph
			if !utf8.ValidString(text) || !strings.Contains(text, "MergeRequest") || !topology && !strings.Contains(text, "\uFFFD end") {
				t.Errorf("text is not the repaired answer:\n%q", text)
			}
			if got := resp.GetMetadata().GetAlteredValues(); got != 2 {
				t.Errorf("altered_values %d, want 2", got)
			}
			if f, err := reg.Lookup(resp.GetMetadata().GetFormatName()); err == nil && !topology {
				if p, ok := f.(formatter.Parser); ok {
					back, err := p.Parse([]byte(text))
					if err != nil {
						t.Fatalf("parse the answer: %v", err)
					}
					checkRepaired(t, name, back)
				}
			}
			if name == "auto" {
				return // streamed as the unary answer
			}
			got, md, _ := readStream(t, ctx, c, req)
			if got != text || md.GetAlteredValues() != 2 {
				t.Errorf("stream gives %q with altered_values %d, unary %q with 2", got, md.GetAlteredValues(), text)
			}
		})
	}
}

func checkRepaired(t *testing.T, format string, r *graphresponse.Response) {
	t.Helper()
	if len(r.Nodes) != 1 {
		t.Fatalf("%s: %d nodes, want merge request %d", format, len(r.Nodes), badMR)
	}
	title, _ := r.Nodes[0].Prop("title")
	desc, _ := r.Nodes[0].Prop("description")
	if title.Str() != repairedTitle || desc.Str() != repairedDesc {
		t.Errorf("%s: title %q, description %q; want %q, %q", format, title.Str(), desc.Str(), repairedTitle, repairedDesc)
	}
}

// TestCursorOverInvalidUTF8SortKey: a page that ends at a row whose sort key is not UTF-8
// continues after that row. The cursor carried the key as U+FFFD, which sorts before the
// stored bytes: ascending, the next page sought the same row again, for ever.
func TestCursorOverInvalidUTF8SortKey(t *testing.T) {
	c := server(t, engine(t), nil)
	ctx := as(t, admin)
	storeInvalidUTF8(t)
	ids := func(r *graphresponse.Response) []string {
		var out []string
		for _, n := range r.Nodes {
			out = append(out, strconv.FormatInt(n.ID, 10))
		}
		return out
	}
	for _, order := range []string{"mr.title", "-mr.title"} {
		q := `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1,2,3,4,5,6,7,8,900001],"columns":["title"]}],"order_by":"` + order + `"`
		resp, err := c.ExecuteQuery(ctx, &pb.ExecuteQueryRequest{Query: q + `}`})
		if err != nil {
			t.Fatal(err)
		}
		all, err := graphresponse.Unmarshal([]byte(resp.GetResultJson()))
		if err != nil {
			t.Fatal(err)
		}
		want := ids(all)
		var got []string
		after := ""
		for page := 0; page <= len(want); page++ {
			cur := `"cursor":{"page_size":1}`
			if after != "" {
				cur = `"cursor":{"page_size":1,"after":"` + after + `"}`
			}
			resp, err := c.ExecuteQuery(ctx, &pb.ExecuteQueryRequest{Query: q + `,` + cur + `}`})
			if err != nil {
				t.Fatalf("%s page %d: %v", order, page, err)
			}
			r, err := graphresponse.Unmarshal([]byte(resp.GetResultJson()))
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, ids(r)...)
			if r.Pagination == nil || r.Pagination.NextCursor == nil {
				break
			}
			after = *r.Pagination.NextCursor
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: pages give %v, one answer %v", order, got, want)
		}
	}
}

// TestLoneSurrogateQueryRefused: a query holding a lone surrogate escape is refused with
// INVALID_ARGUMENT / PARSE_ERROR at the string's pointer, never run with U+FFFD in its place.
func TestLoneSurrogateQueryRefused(t *testing.T) {
	c := server(t, engine(t), nil)
	ctx := as(t, admin)
	_, err := c.ExecuteQuery(ctx, &pb.ExecuteQueryRequest{Query: `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","filters":{"username":"al\ud800ice"}}]}`})
	if reason, pointer := errorInfo(t, err); reason != "PARSE_ERROR" || pointer != "/nodes/0/filters/username" {
		t.Errorf("lone surrogate: %v (reason %s, pointer %s), want PARSE_ERROR at /nodes/0/filters/username", err, reason, pointer)
	}
	// Invalid UTF-8 bytes cannot be in a proto3 string at all: TestMalformedRequestMessage
	// sends them on the wire and gets InvalidArgument.
}

// errorInfo returns the reason and pointer of err's ErrorInfo detail.
func errorInfo(t *testing.T, err error) (reason, pointer string) {
	t.Helper()
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("err = %v, want InvalidArgument", err)
	}
	for _, d := range status.Convert(err).Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return info.GetReason(), info.GetMetadata()["pointer"]
		}
	}
	return "", ""
}
