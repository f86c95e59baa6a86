package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

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

func queryRemote(ctx context.Context, f queryFlags, stdout, stderr io.Writer) int {
	llm, ok := formatEnums[strings.ToLower(f.llmFormat)]
	if !ok {
		fmt.Fprintf(stderr, "graphwire query: unknown --llm-format %q\n", f.llmFormat)
		return exitUsage
	}
	req := &pb.ExecuteQueryRequest{Query: string(f.query), LlmFormat: llm}
	if f.format == "llm" {
		req.Format = pb.ResponseFormat_RESPONSE_FORMAT_LLM
	}
	conn, err := dial(f.server)
	if err != nil {
		fmt.Fprintf(stderr, "graphwire query: %s\n", oneLine(err))
		return exitFailure
	}
	defer conn.Close()
	resp, err := pb.NewQueryServiceClient(conn).ExecuteQuery(withToken(ctx, f.token), req)
	if err != nil {
		st := status.Convert(err)
		fmt.Fprintf(stderr, "graphwire query: %s: %s\n", st.Code(), oneLine(fmt.Errorf("%s", st.Message())))
		return exitFailure
	}
	switch r := resp.Result.(type) {
	case *pb.ExecuteQueryResponse_ResultJson:
		fmt.Fprintln(stdout, r.ResultJson)
	case *pb.ExecuteQueryResponse_FormattedText:
		io.WriteString(stdout, r.FormattedText)
	}
	md := resp.GetMetadata()
	fmt.Fprintf(stderr, "graphwire query: %s %s, %d rows, %d tokens (o200k_base)\n", md.GetFormatName(), md.GetFormatVersion(), md.GetRowCount(), md.GetTokenCount())
	return exitOK
}
