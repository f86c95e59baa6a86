package grpcsvc

import (
	"context"
	"errors"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	protocodec "google.golang.org/grpc/encoding/proto"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/reflection"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
)

// GRPCServer returns a gRPC server with the query service, the standard
// health service (SERVING until [Server.CheckHealth] or
// [Server.WatchHealth] finds otherwise) and reflection registered, and authentication, deadlines,
// logging, panic recovery and the request size limit installed. extra
// options are passed to grpc.NewServer unchanged.
//
// A request message larger than Options.MaxQueryBytes is refused by the
// transport before it is read, with RESOURCE_EXHAUSTED naming that limit;
// the query text may use all of it but the few bytes of the other fields.
// Request messages are parsed only after the caller is authenticated (see
// [deferredCodec]).
func (s *Server) GRPCServer(extra ...grpc.ServerOption) *grpc.Server {
	return s.grpcServer(false, extra)
}

// LocalGRPCServer is [Server.GRPCServer] for a listener that admits only the server's own
// user (a Unix socket with owner-only permissions whose peers are checked, as
// graphwire serve and mcp open in an embedded data directory): every call on it is an
// admin's, without a token. Never serve it on a listener others can reach.
func (s *Server) LocalGRPCServer(extra ...grpc.ServerOption) *grpc.Server {
	return s.grpcServer(true, extra)
}

func (s *Server) grpcServer(local bool, extra []grpc.ServerOption) *grpc.Server {
	unary, stream := s.unaryInterceptor, s.streamInterceptor
	if local {
		unary = func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			return s.unaryInterceptor(context.WithValue(ctx, localKey{}, true), req, info, h)
		}
		stream = func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			return s.streamInterceptor(srv, localStream{ss, context.WithValue(ss.Context(), localKey{}, true)}, info, h)
		}
	}
	opts := []grpc.ServerOption{
		grpc.ForceServerCodecV2(deferredCodec{encoding.GetCodecV2(protocodec.Name)}),
		grpc.ChainUnaryInterceptor(unary),
		grpc.ChainStreamInterceptor(stream),
		grpc.MaxRecvMsgSize(s.opts.MaxQueryBytes),
		// A bearer token is at most auth.MaxTokenBytes; the default 16 MiB
		// of headers would let a caller make the server hold far more.
		grpc.MaxHeaderListSize(maxHeaderBytes),
	}
	g := grpc.NewServer(append(opts, extra...)...)
	pb.RegisterQueryServiceServer(g, s)
	if s.opts.Writer != nil {
		pb.RegisterWriteServiceServer(g, writeService{s: s})
	}
	healthpb.RegisterHealthServer(g, s.health)
	reflection.Register(g)
	return g
}

// localStream is a stream of [Server.LocalGRPCServer], its context marked.
type localStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (l localStream) Context() context.Context { return l.ctx }

// maxHeaderBytes bounds the request metadata the transport accepts.
const maxHeaderBytes = 64 << 10

// deferredCodec is the server's codec. It marshals with the standard proto
// codec, but its Unmarshal does not parse: it keeps a copy of the received
// bytes as the message's unknown fields, and [parseDeferred] parses them
// inside the interceptors, after authentication.
//
// grpc-go decodes a request before any interceptor runs and answers a
// message that does not decode (bad wire format, invalid UTF-8 in a string
// field) with INTERNAL itself: the caller was not authenticated first and
// the call was never logged. Deferred, such a message is INVALID_ARGUMENT
// for an authenticated caller, UNAUTHENTICATED for anyone else, and logged
// either way.
type deferredCodec struct{ proto encoding.CodecV2 }

func (c deferredCodec) Name() string { return protocodec.Name }

// Marshal marshals a response. grpc-go sends a marshaling error's text to the client, so
// protobuf's own message (naming a message type and field) is replaced by a fixed one; the
// handlers send only UTF-8 text, so this is a bug when it happens (see ExecuteQuery).
func (c deferredCodec) Marshal(v any) (mem.BufferSlice, error) {
	b, err := c.proto.Marshal(v)
	if err != nil {
		return nil, errResponseEncoding
	}
	return b, nil
}

// errResponseEncoding is what a client sees of a response that does not marshal.
var errResponseEncoding = errors.New("the response could not be encoded")

func (c deferredCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return errors.New("grpcsvc: request is not a protobuf message")
	}
	// The buffers are reused once Unmarshal returns: keep a copy.
	m.ProtoReflect().SetUnknown(protoreflect.RawFields(data.Materialize()))
	return nil
}

// parseDeferred parses the bytes [deferredCodec] left in m.
func parseDeferred(m any) error {
	pm, ok := m.(proto.Message)
	if !ok {
		return nil
	}
	r := pm.ProtoReflect()
	raw := r.GetUnknown()
	if len(raw) == 0 {
		return nil
	}
	r.SetUnknown(nil)
	return proto.Unmarshal(raw, pm)
}
