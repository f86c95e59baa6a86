package e2e

import (
	"bytes"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/graphwire/graphwire/config"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/gcb1"
	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
)

// TestGCB1Bytes: ExecuteQuery answers GCB1 as formatted_bytes (never
// formatted_text), without a token count, and the payload decodes to the
// raw answer's nodes; the stream sends the same bytes; aggregations and a
// token budget are refused as INVALID_ARGUMENT.
func TestGCB1Bytes(t *testing.T) {
	c := server(t, engine(t), nil)
	ctx := as(t, admin)
	for name, q := range queries {
		t.Run(name, func(t *testing.T) {
			req := &pb.ExecuteQueryRequest{Query: q, Format: pb.ResponseFormat_RESPONSE_FORMAT_LLM, LlmFormat: pb.FormatName_FORMAT_NAME_GCB1}
			resp, err := c.ExecuteQuery(ctx, req)
			if name == "aggregation" {
				if status.Code(err) != codes.InvalidArgument {
					t.Fatalf("gcb1 of an aggregation: %v, want InvalidArgument", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := raw(t, c, ctx, q)
			md := resp.GetMetadata()
			b := resp.GetFormattedBytes()
			if md.GetFormatName() != formatter.GCB1 || md.GetFormatVersion() != config.GCB1Version() || md.GetTokenCount() != 0 ||
				resp.GetFormattedText() != "" || len(b) == 0 {
				t.Fatalf("metadata %v, text %q, %d bytes", md, resp.GetFormattedText(), len(b))
			}
			back, err := gcb1.Unmarshal(b, gcb1.Options{})
			if err != nil {
				t.Fatalf("payload does not decode: %v", err)
			}
			if len(back.Nodes) != len(want.Nodes) || back.QueryType != want.QueryType {
				t.Errorf("decoded %d nodes of %s, raw has %d of %s", len(back.Nodes), back.QueryType, len(want.Nodes), want.QueryType)
			}
			streamed, _, _ := readStream(t, ctx, c, req)
			if !bytes.Equal([]byte(streamed), b) {
				t.Errorf("stream sent %d bytes, unary %d", len(streamed), len(b))
			}
		})
	}
	req := &pb.ExecuteQueryRequest{Query: queries["traversal"], Format: pb.ResponseFormat_RESPONSE_FORMAT_LLM, LlmFormat: pb.FormatName_FORMAT_NAME_GCB1, MaxTokens: 100}
	if _, err := c.ExecuteQuery(ctx, req); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("gcb1 with max_tokens: %v, want InvalidArgument", err)
	}
}
