package grpcsvc

import (
	"context"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/internal/tokens"
	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
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
}

func callerOf(c *auth.Claims) *compiler.Caller {
	scopes := make([]compiler.Scope, len(c.Scopes))
	for i, s := range c.Scopes {
		scopes[i] = compiler.Scope{Path: s.Path, Level: s.Level}
	}
	return &compiler.Caller{Subject: itoa(c.UserID), Admin: c.Admin, Scopes: scopes}
}

// prepare authorizes, compiles, runs and selects the formatter of a request.
// The engine work runs under an admission slot of the caller, held until
// executor.Respond has returned.
func (s *Server) prepare(ctx context.Context, req *pb.ExecuteQueryRequest) (formatter.Formatter, result, *compiler.Query, error) {
	claims, ok := claimsFrom(ctx)
	if !ok {
		return nil, result{}, nil, status.Error(codes.Unauthenticated, "missing bearer token")
	}
	rf := formatter.RAW
	if req.GetFormat() == pb.ResponseFormat_RESPONSE_FORMAT_LLM {
		rf = formatter.LLM
	}
	name, ok := llmNames[req.GetLlmFormat()]
	if !ok {
		return nil, result{}, nil, status.Errorf(codes.InvalidArgument, "unknown llm_format %d", req.GetLlmFormat())
	}
	f, err := s.reg.Select(rf, name)
	if err != nil {
		return nil, result{}, nil, err
	}
	q, err := s.opts.Compiler.Compile([]byte(req.GetQuery()), callerOf(claims))
	if err != nil {
		return nil, result{}, nil, err
	}
	// The slot is per user: tokens of one user with different scopes share
	// the user's limit.
	release, err := s.opts.Admission.Acquire(ctx, itoa(claims.UserID))
	if err != nil {
		return nil, result{}, nil, err
	}
	resp, ex, err := executor.Respond(ctx, s.exec, s.opts.Compiler, q)
	release()
	if err != nil {
		// Log the class of the failure only: engine messages can quote
		// parameter values, which never go to the log.
		s.log.Warn("query_failed", "query_type", q.Plan.Build.QueryType, "code", status.Code(statusFromError(err)).String())
		return nil, result{}, nil, err
	}
	return f, result{resp: resp, executed: ex}, q, nil
}

func (s *Server) metadata(q *compiler.Query, res result, f formatter.Formatter, claims *auth.Claims, out []byte, altered int) (*pb.QueryMetadata, error) {
	md := &pb.QueryMetadata{
		QueryType:     res.resp.QueryType,
		RowCount:      res.executed.Rows,
		FormatName:    f.Name(),
		FormatVersion: f.Version(),
		AlteredValues: int64(altered),
	}
	if claims.Admin && q.Plan.Debug() {
		for _, st := range res.executed.Statements {
			ds, err := debugStatement(st)
			if err != nil {
				return nil, err
			}
			md.Sql = append(md.Sql, ds.Sql)
			md.DebugStatements = append(md.DebugStatements, ds)
		}
	}
	if out != nil {
		n, err := s.tokens.Count(tokens.O200k, string(out))
		if err != nil {
			return nil, err
		}
		md.TokenCount = int64(n)
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

// ExecuteQuery compiles, authorizes, runs and formats one query.
func (s *Server) ExecuteQuery(ctx context.Context, req *pb.ExecuteQueryRequest) (*pb.ExecuteQueryResponse, error) {
	f, res, q, err := s.prepare(ctx, req)
	if err != nil {
		return nil, statusFromError(err)
	}
	claims, _ := claimsFrom(ctx)
	var out formatter.Stamped
	if f.Name() == formatter.GCFGraph {
		// gcf-graph remembers what each caller holds, across calls, per
		// authorization context.
		b, err := s.respondGraph(claims.Fingerprint(), res.resp, req.GetPackRoot())
		if err != nil {
			return nil, statusFromError(fmt.Errorf("%w: %w", formatter.ErrUnrepresentable, err))
		}
		out = formatter.Stamped{Bytes: b, Name: f.Name(), Version: f.Version()}
	} else if out, err = formatter.Stamp(f, res.resp); err != nil {
		return nil, statusFromError(err)
	}
	md, err := s.metadata(q, res, f, claims, out.Bytes, out.Altered)
	if err != nil {
		return nil, statusFromError(err)
	}
	resp := &pb.ExecuteQueryResponse{Metadata: md}
	if f.Name() == formatter.JSON {
		resp.Result = &pb.ExecuteQueryResponse_ResultJson{ResultJson: string(out.Bytes)}
	} else {
		resp.Result = &pb.ExecuteQueryResponse_FormattedText{FormattedText: string(out.Bytes)}
	}
	return resp, nil
}

// chunkWriter sends formatted output in fixed-size chunks as it is written,
// so the server holds at most one chunk of formatted text per stream.
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
	f, res, q, err := s.prepare(ctx, req)
	if err != nil {
		return statusFromError(err)
	}
	w := &chunkWriter{stream: stream, size: s.opts.StreamChunkBytes, buf: make([]byte, 0, s.opts.StreamChunkBytes)}
	altered, err := formatter.FormatCount(f, w, res.resp)
	if err != nil {
		return statusFromError(err)
	}
	claims, _ := claimsFrom(ctx)
	md, err := s.metadata(q, res, f, claims, nil, altered)
	if err != nil {
		return statusFromError(err)
	}
	last := &pb.ExecuteQueryChunk{Data: w.buf, Metadata: md}
	return statusFromError(stream.Send(last))
}

// GetGraphSchema describes the ontology as JSON, or as TOON for LLM. Both
// texts are built once, in [New]: the ontology is immutable.
func (s *Server) GetGraphSchema(_ context.Context, req *pb.GetGraphSchemaRequest) (*pb.GetGraphSchemaResponse, error) {
	resp := &pb.GetGraphSchemaResponse{OntologyVersion: itoa(int64(s.opts.Ontology.Version))}
	if req.GetFormat() == pb.ResponseFormat_RESPONSE_FORMAT_LLM {
		resp.Result = &pb.GetGraphSchemaResponse_FormattedText{FormattedText: s.schemaTOON}
	} else {
		resp.Result = &pb.GetGraphSchemaResponse_SchemaJson{SchemaJson: s.schemaJSON}
	}
	return resp, nil
}

// GetQueryDsl returns the DSL JSON Schema and its version.
func (s *Server) GetQueryDsl(context.Context, *pb.GetQueryDslRequest) (*pb.GetQueryDslResponse, error) {
	return &pb.GetQueryDslResponse{SchemaJson: string(s.opts.DSLSchema), Version: s.opts.DSLVersion}, nil
}

// GetResponseFormat returns the raw response schema and every format.
func (s *Server) GetResponseFormat(context.Context, *pb.GetResponseFormatRequest) (*pb.GetResponseFormatResponse, error) {
	resp := &pb.GetResponseFormatResponse{SchemaJson: string(s.opts.ResponseSchema), RawVersion: s.opts.RawVersion}
	for _, f := range s.reg.Formatters() {
		resp.Formats = append(resp.Formats, &pb.FormatInfo{Name: f.Name(), Version: f.Version(), MediaType: f.MediaType()})
	}
	return resp, nil
}
