package grpcsvc

import (
	"context"
	"strconv"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/pipeline"
	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
	"github.com/graphwire/graphwire/telemetry"
)

// llmNames maps the proto format enum to formatter names.
var llmNames = map[pb.FormatName]string{
	pb.FormatName_FORMAT_NAME_UNSPECIFIED: formatter.DefaultLLM,
	pb.FormatName_FORMAT_NAME_RAW:         formatter.JSON,
	pb.FormatName_FORMAT_NAME_GOON:        formatter.GOON,
	pb.FormatName_FORMAT_NAME_GCF:         formatter.GCF,
	pb.FormatName_FORMAT_NAME_GCF_GRAPH:   formatter.GCFGraph,
	pb.FormatName_FORMAT_NAME_GCX:         formatter.GCX,
	pb.FormatName_FORMAT_NAME_TOON:        formatter.TOON,
	pb.FormatName_FORMAT_NAME_AUTO:        pipeline.Auto,
	pb.FormatName_FORMAT_NAME_MARKDOWN:    formatter.Markdown,
	pb.FormatName_FORMAT_NAME_XML:         formatter.XML,
	pb.FormatName_FORMAT_NAME_GCB1:        formatter.GCB1,
}

// request turns an ExecuteQueryRequest into the pipeline's request for
// the verified caller.
func request(ctx context.Context, req *pb.ExecuteQueryRequest) (pipeline.Request, error) {
	claims, ok := claimsFrom(ctx)
	if !ok {
		return pipeline.Request{}, status.Error(codes.Unauthenticated, "missing bearer token")
	}
	name := formatter.JSON
	if req.GetFormat() == pb.ResponseFormat_RESPONSE_FORMAT_LLM {
		var ok bool
		if name, ok = llmNames[req.GetLlmFormat()]; !ok {
			return pipeline.Request{}, status.Errorf(codes.InvalidArgument, "unknown llm_format %d", req.GetLlmFormat())
		}
	}
	return pipeline.Request{Query: []byte(req.GetQuery()), Claims: claims, Format: name,
		Cursor: req.GetCursor(), PackRoot: req.GetPackRoot(), MaxTokens: int(req.GetMaxTokens())}, nil
}

func queryMetadata(ctx context.Context, a *pipeline.Answer, claims *auth.Claims, withTokens bool) (*pb.QueryMetadata, error) {
	md := &pb.QueryMetadata{
		QueryType:     a.QueryType,
		RowCount:      a.EngineRows,
		FormatName:    a.Format,
		FormatVersion: a.Version,
		AlteredValues: int64(a.Altered),
		HasMore:       a.HasMore,
		NextCursor:    a.NextCursor,
		Truncated:     a.Truncated,
		PackRoot:      a.PackRoot,
		GraphOutcome:  a.Outcome,
		AnswerRows:    a.Rows,
		Redacted:      a.Redacted,
		WithheldRows:  int64(a.Withheld),
	}
	if c := telemetry.CallFrom(ctx); c != nil {
		md.RequestId = c.ID
	}
	if withTokens {
		md.TokenCount = int64(a.Tokens)
	}
	if claims.Admin && a.Debug {
		for _, st := range a.Executed.Statements {
			ds, err := debugStatement(st)
			if err != nil {
				return nil, err
			}
			md.Sql = append(md.Sql, ds.Sql)
			md.DebugStatements = append(md.DebugStatements, ds)
		}
	}
	return md, nil
}

// debugStatement is an executed statement with its parameters as the
// canonical text the engine bound.
func debugStatement(st executor.Statement) (*pb.DebugStatement, error) {
	ds := &pb.DebugStatement{Label: st.Label, Sql: st.Query.SQL}
	for _, p := range st.Query.Params {
		v, err := executor.ParamText(p)
		if err != nil {
			return nil, err
		}
		ds.Params = append(ds.Params, &pb.DebugParam{Name: p.Name, Type: p.Type, Value: v})
	}
	return ds, nil
}

// ExecuteQuery compiles, authorizes, runs and formats one query through
// the shared pipeline.
func (s *Server) ExecuteQuery(ctx context.Context, req *pb.ExecuteQueryRequest) (*pb.ExecuteQueryResponse, error) {
	preq, err := request(ctx, req)
	if err != nil {
		return nil, err
	}
	a, err := s.pipe.Run(ctx, preq)
	if err != nil {
		return nil, statusFromError(err)
	}
	md, err := queryMetadata(ctx, a, preq.Claims, true)
	if err != nil {
		return nil, statusFromError(err)
	}
	resp := &pb.ExecuteQueryResponse{Metadata: md}
	if a.Binary {
		// Bytes, not text: a proto3 string must be UTF-8, bytes need not be.
		resp.Result = &pb.ExecuteQueryResponse_FormattedBytes{FormattedBytes: a.Text}
		return resp, nil
	}
	if !utf8.Valid(a.Text) {
		// A proto3 string must be UTF-8: sent, it would fail to marshal and grpc-go would
		// hand the client protobuf's message. graphresponse.Build repairs the engine's
		// strings, so this is a formatter bug, logged here and answered as INTERNAL.
		s.log.ErrorContext(ctx, "answer_not_utf8", "format", a.Format)
		return nil, status.Error(codes.Internal, "internal error")
	}
	if a.Format == formatter.JSON && req.GetFormat() != pb.ResponseFormat_RESPONSE_FORMAT_LLM {
		resp.Result = &pb.ExecuteQueryResponse_ResultJson{ResultJson: string(a.Text)}
	} else {
		resp.Result = &pb.ExecuteQueryResponse_FormattedText{FormattedText: string(a.Text)}
	}
	return resp, nil
}

// chunkWriter sends formatted output in fixed-size chunks as it is written.
// The pipeline formats the whole answer into memory first (under the
// caller's admission slot, see pipeline.Pipeline.Stream), so a stream
// holds the answer's text as a unary call does, plus one chunk.
type chunkWriter struct {
	stream grpc.ServerStreamingServer[pb.ExecuteQueryChunk]
	buf    []byte
	size   int
	total  int64
}

func (w *chunkWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		room := w.size - len(w.buf)
		take := min(room, len(p))
		w.buf = append(w.buf, p[:take]...)
		p = p[take:]
		if len(w.buf) == w.size {
			if err := w.flush(); err != nil {
				return n - len(p), err
			}
		}
	}
	return n, nil
}

func (w *chunkWriter) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	w.total += int64(len(w.buf))
	err := w.stream.Send(&pb.ExecuteQueryChunk{Data: w.buf})
	w.buf = make([]byte, 0, w.size)
	return err
}

// ExecuteQueryStream sends the same bytes as ExecuteQuery in chunks; the
// last message carries the metadata. token_count is not computed here,
// since counting needs the whole text; use ExecuteQuery for it.
func (s *Server) ExecuteQueryStream(req *pb.ExecuteQueryRequest, stream grpc.ServerStreamingServer[pb.ExecuteQueryChunk]) error {
	ctx := stream.Context()
	preq, err := request(ctx, req)
	if err != nil {
		return err
	}
	release, err := s.streams.acquire(preq.Claims.UserID)
	if err != nil {
		return statusFromError(err)
	}
	defer release()
	w := &chunkWriter{stream: stream, size: s.opts.StreamChunkBytes, buf: make([]byte, 0, s.opts.StreamChunkBytes)}
	a, err := s.pipe.Stream(ctx, preq, w)
	if err != nil {
		return statusFromError(err)
	}
	// A budgeted or auto answer was counted whole; a streamed one was not.
	md, err := queryMetadata(ctx, a, preq.Claims, a.Tokens > 0)
	if err != nil {
		return statusFromError(err)
	}
	last := &pb.ExecuteQueryChunk{Data: w.buf, Metadata: md}
	return statusFromError(stream.Send(last))
}

// GetGraphSchema describes the ontology: RAW is the full schema as JSON
// (with the ontology's descriptions); LLM is the compact text agents read
// first, with the properties of the entities named in expand.
func (s *Server) GetGraphSchema(_ context.Context, req *pb.GetGraphSchemaRequest) (*pb.GetGraphSchemaResponse, error) {
	resp := &pb.GetGraphSchemaResponse{OntologyVersion: strconv.Itoa(s.pipe.Ontology().Version)}
	if req.GetFormat() == pb.ResponseFormat_RESPONSE_FORMAT_LLM {
		text, err := s.pipe.Schema(req.GetExpand())
		if err != nil {
			return nil, statusFromError(err)
		}
		resp.Result = &pb.GetGraphSchemaResponse_FormattedText{FormattedText: text}
	} else {
		resp.Result = &pb.GetGraphSchemaResponse_SchemaJson{SchemaJson: s.pipe.SchemaJSON()}
	}
	return resp, nil
}

// GetQueryDsl returns the DSL JSON Schema with the ontology's entity and
// relationship names as enums, its version, and on request the compact
// text reference.
func (s *Server) GetQueryDsl(_ context.Context, req *pb.GetQueryDslRequest) (*pb.GetQueryDslResponse, error) {
	resp := &pb.GetQueryDslResponse{SchemaJson: s.pipe.DSLSchema(), Version: s.pipe.DSLVersion()}
	if req.GetIncludeText() {
		resp.Text = s.pipe.DSL(false)
	}
	return resp, nil
}

// GetResponseFormat returns the raw response schema and every format.
func (s *Server) GetResponseFormat(context.Context, *pb.GetResponseFormatRequest) (*pb.GetResponseFormatResponse, error) {
	resp := &pb.GetResponseFormatResponse{SchemaJson: string(s.opts.ResponseSchema), RawVersion: s.opts.RawVersion}
	for _, f := range s.reg.Formatters() {
		resp.Formats = append(resp.Formats, &pb.FormatInfo{Name: f.Name(), Version: f.Version(), MediaType: f.MediaType()})
	}
	return resp, nil
}
