package grpcsvc

import (
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"

	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
)

// GRPCServer returns a gRPC server with the query service, the standard
// health service and reflection registered, and the interceptors
// (authentication, deadlines, logging, panic recovery) and request size
// limit installed. extra options are passed to grpc.NewServer unchanged.
func (s *Server) GRPCServer(extra ...grpc.ServerOption) *grpc.Server {
	opts := []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(s.unaryInterceptor),
		grpc.ChainStreamInterceptor(s.streamInterceptor),
		grpc.MaxRecvMsgSize(s.opts.MaxQueryBytes + 4096),
	}
	g := grpc.NewServer(append(opts, extra...)...)
	pb.RegisterQueryServiceServer(g, s)
	hs := health.NewServer()
	hs.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	hs.SetServingStatus(pb.QueryService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(g, hs)
	reflection.Register(g)
	return g
}
