package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
)

// formatEnums maps --llm-format names to the proto enum.
var formatEnums = map[string]pb.FormatName{
	"":          pb.FormatName_FORMAT_NAME_UNSPECIFIED,
	"goon":      pb.FormatName_FORMAT_NAME_GOON,
	"gcf":       pb.FormatName_FORMAT_NAME_GCF,
	"gcf-graph": pb.FormatName_FORMAT_NAME_GCF_GRAPH,
	"gcx":       pb.FormatName_FORMAT_NAME_GCX,
	"toon":      pb.FormatName_FORMAT_NAME_TOON,
}

// dial connects to a graphwire server over plaintext gRPC (loopback or a
// trusted network; put TLS in front for anything else).
func dial(addr string) (*grpc.ClientConn, error) {
	return grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
}

// withToken attaches the bearer token to outgoing calls.
func withToken(ctx context.Context, token string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
}

// queryRemote sends the query to a graphwire server and writes its answer. A failure is the
// server's status error, which exitCode and report treat like the local error behind it.
func queryRemote(ctx context.Context, f queryFlags, stdout io.Writer) (queryStats, error) {
	llm, ok := formatEnums[strings.ToLower(f.llmFormat)]
	if !ok {
		return queryStats{}, usageErrorf("unknown --llm-format %q", f.llmFormat)
	}
	req := &pb.ExecuteQueryRequest{Query: string(f.query), LlmFormat: llm}
	if f.format == "llm" {
		req.Format = pb.ResponseFormat_RESPONSE_FORMAT_LLM
	}
	conn, err := dial(f.server)
	if err != nil {
		return queryStats{}, &classError{code: exitUsage, msg: fmt.Sprintf("--server %s: %s", f.server, oneLine(err)), err: err}
	}
	defer conn.Close()
	resp, err := pb.NewQueryServiceClient(conn).ExecuteQuery(withToken(ctx, f.token), req)
	if err != nil {
		return queryStats{}, err
	}
	switch r := resp.Result.(type) {
	case *pb.ExecuteQueryResponse_ResultJson:
		err = writeAnswer(stdout, f.format, []byte(r.ResultJson))
	case *pb.ExecuteQueryResponse_FormattedText:
		_, err = io.WriteString(stdout, r.FormattedText)
	}
	md := resp.GetMetadata()
	return queryStats{format: md.GetFormatName(), version: md.GetFormatVersion(), rows: md.GetRowCount(), tokens: int(md.GetTokenCount())}, err
}
