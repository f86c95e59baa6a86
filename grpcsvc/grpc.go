package grpcsvc

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"

	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
)

// envelopeBytes is the room a request message has beside its query text
// for the other fields (format enums, pack_root).
const envelopeBytes = 4096

// GRPCServer returns a gRPC server with the query service, the standard
// health service and reflection registered, and authentication, deadlines,
// logging, panic recovery and the request size limit installed. extra
// options are passed to grpc.NewServer unchanged.
func (s *Server) GRPCServer(extra ...grpc.ServerOption) *grpc.Server {
	opts := []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(s.unaryInterceptor),
		grpc.ChainStreamInterceptor(s.streamInterceptor),
		grpc.MaxRecvMsgSize(s.opts.MaxQueryBytes + envelopeBytes),
		// A bearer token is at most auth.MaxTokenBytes; the default 16 MiB
		// of headers would let a caller make the server hold far more.
		grpc.MaxHeaderListSize(maxHeaderBytes),
	}
	g := grpc.NewServer(append(opts, extra...)...)
	g.RegisterService(s.receiveInside(&pb.QueryService_ServiceDesc), s)
	hs := health.NewServer()
	hs.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	hs.SetServingStatus(pb.QueryService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	g.RegisterService(s.receiveInside(&healthpb.Health_ServiceDesc), hs)
	reflection.Register(g)
	return g
}

// maxHeaderBytes bounds the request metadata the transport accepts.
const maxHeaderBytes = 64 << 10

// receiveInside returns a copy of desc whose unary methods read their
// request inside [Server.intercept], after authentication.
//
// grpc-go receives and decodes a unary request before any unary
// interceptor runs, so a malformed or oversized message would be answered
// by the transport (Internal or ResourceExhausted, with grpc-go's own
// text) before the caller is authenticated, and never logged. Served this
// way, the generated handler still decodes the request, but through the
// stream that intercept wraps: the token is checked first, every call is
// logged, a message that does not decode is InvalidArgument, and an
// oversized one gets the same status as an oversized query. The method
// stays unary on the wire (one request, one response).
func (s *Server) receiveInside(desc *grpc.ServiceDesc) *grpc.ServiceDesc {
	out := *desc
	out.Methods = nil
	out.Streams = append([]grpc.StreamDesc(nil), desc.Streams...)
	for _, md := range desc.Methods {
		method := "/" + desc.ServiceName + "/" + md.MethodName
		out.Streams = append(out.Streams, grpc.StreamDesc{
			StreamName: md.MethodName,
			Handler: func(srv any, ss grpc.ServerStream) error {
				return s.intercept(ss, method, func(ctx context.Context, ss grpc.ServerStream) error {
					reply, err := md.Handler(srv, ctx, ss.RecvMsg, nil)
					if err != nil {
						return err
					}
					return ss.SendMsg(reply)
				})
			},
		})
	}
	return &out
}
