package grpcsvc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/telemetry"
)

// claimsKey carries the verified claims in a request context.
type claimsKey struct{}

// claimsFrom returns the verified claims of the request.
func claimsFrom(ctx context.Context) (*auth.Claims, bool) {
	c, ok := ctx.Value(claimsKey{}).(*auth.Claims)
	return c, ok
}

// localKey marks the context of a call that came through [Server.LocalGRPCServer].
type localKey struct{}

// public reports whether a method needs no token: the standard health and
// reflection services.
func public(fullMethod string) bool {
	return strings.HasPrefix(fullMethod, "/grpc.health.v1.Health/") ||
		strings.HasPrefix(fullMethod, "/grpc.reflection.")
}

// authenticate verifies the bearer token of a request. A missing or invalid
// token is Unauthenticated, before anything reads the request message. The
// scheme name is matched without regard to case (RFC 6750 §2.1, RFC 9110
// §11.1); one or more spaces separate it from the token.
func (s *Server) authenticate(ctx context.Context, fullMethod string) (context.Context, error) {
	if public(fullMethod) {
		return ctx, nil
	}
	if ctx.Value(localKey{}) != nil {
		// [Server.LocalGRPCServer]: the socket admitted only the server's own user.
		claims, err := localCaller(ctx)
		if err != nil {
			return nil, err
		}
		return context.WithValue(ctx, claimsKey{}, claims), nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get("authorization")
	if len(vals) != 1 {
		return nil, status.Error(codes.Unauthenticated, "missing bearer token")
	}
	scheme, token, ok := strings.Cut(vals[0], " ")
	token = strings.TrimLeft(token, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return nil, status.Error(codes.Unauthenticated, "missing bearer token")
	}
	claims, err := s.verifier.Verify(token)
	if err != nil {
		return nil, status.Error(codes.Unauthenticated, "invalid or missing token")
	}
	if s.opts.Authenticated != nil {
		s.opts.Authenticated(ctx, claims.UserID)
	}
	return context.WithValue(ctx, claimsKey{}, claims), nil
}

// LocalCallerHeader is the request metadata in which a call on [Server.LocalGRPCServer]
// names its caller: JSON {"admin": bool, "user_id": int, "scopes": [{"path", "level"}]}, as
// graphwire query --embedded sends what its --admin and --scope flags say. Without it a
// local call is an admin's (graphwire index and load). The trust argument: the socket admits
// only processes of the server's own user, who can open the data directory and read the
// whole graph without any server, so taking a narrower or equal identity from them escalates
// nothing. Only the local listener reads this header; on every other listener the token
// alone decides the caller and the header is ignored.
const LocalCallerHeader = "x-graphwire-local-caller"

// localCaller returns the caller of a local call: the one LocalCallerHeader names, or an
// admin when it is absent.
func localCaller(ctx context.Context) (*auth.Claims, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get(LocalCallerHeader)
	switch len(vals) {
	case 0:
		return &auth.Claims{Admin: true}, nil
	case 1:
	default:
		return nil, status.Errorf(codes.InvalidArgument, "%s: given %d times, want once", LocalCallerHeader, len(vals))
	}
	claims, err := parseLocalCaller(vals[0])
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "%s: %v", LocalCallerHeader, err)
	}
	return claims, nil
}

// parseLocalCaller reads the JSON of LocalCallerHeader strictly: one object and nothing after
// it, member names exactly "admin", "user_id" and "scopes" (encoding/json alone would also
// take "Admin" or "ADMIN"), each scope exactly {"path", "level"} with a path --scope accepts
// and a known access level. A header that is wrong in any way is refused, never read as a
// narrower caller: the client meant something else, and the answer would mislead it.
func parseLocalCaller(v string) (*auth.Claims, error) {
	top, err := exactObject([]byte(v), "admin", "user_id", "scopes")
	if err != nil {
		return nil, err
	}
	claims := &auth.Claims{}
	if raw, ok := top["admin"]; ok {
		if err := json.Unmarshal(raw, &claims.Admin); err != nil {
			return nil, fmt.Errorf("admin: want true or false, got %s", raw)
		}
	}
	if raw, ok := top["user_id"]; ok {
		if err := json.Unmarshal(raw, &claims.UserID); err != nil || claims.UserID < 0 {
			return nil, fmt.Errorf("user_id: want a non-negative integer, got %s", raw)
		}
	}
	if raw, ok := top["scopes"]; ok {
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("scopes: want an array of {\"path\", \"level\"} objects")
		}
		for i, el := range list {
			sc, err := exactObject(el, "path", "level")
			if err != nil {
				return nil, fmt.Errorf("scopes[%d]: %w", i, err)
			}
			var path string
			if err := json.Unmarshal(sc["path"], &path); err != nil || !compiler.ValidPath(path) {
				return nil, fmt.Errorf("scopes[%d].path: want a traversal path like \"1/\" or \"1/2/\", got %s", i, sc["path"])
			}
			level, ok := 0, false
			if raw, has := sc["level"]; has && json.Unmarshal(raw, &level) == nil {
				_, perr := compiler.ParseScope(path + ":" + strconv.Itoa(level))
				ok = perr == nil
			}
			if !ok {
				return nil, fmt.Errorf("scopes[%d].level: want one of 5, 10, 15, 20, 25, 30, 40, 50, got %s", i, sc["level"])
			}
			claims.Scopes = append(claims.Scopes, auth.Scope{Path: path, Level: level})
		}
	}
	return claims, nil
}

// exactObject decodes data as one JSON object with no trailing data whose member names are
// among names, compared exactly, each at most once.
func exactObject(data []byte, names ...string) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, errors.New("want a JSON object")
	}
	m := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, errors.New("want a JSON object")
		}
		name, _ := tok.(string)
		if !slices.Contains(names, name) {
			return nil, fmt.Errorf("unknown member %q (want %s)", name, strings.Join(names, ", "))
		}
		if _, dup := m[name]; dup {
			return nil, fmt.Errorf("member %q given twice", name)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		m[name] = raw
	}
	if _, err := dec.Token(); err != nil {
		return nil, errors.New("want a JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	return m, nil
}

// withDeadline applies the default request timeout when the client sent no
// deadline, and caps any deadline at the maximum.
func (s *Server) withDeadline(ctx context.Context, method string) (context.Context, context.CancelFunc) {
	limit, def := s.opts.MaxTimeout, s.opts.DefaultTimeout
	if strings.HasPrefix(method, writeMethodPrefix) {
		// A load of a large tree takes longer than any query should.
		limit, def = s.opts.MaxWriteTimeout, s.opts.MaxWriteTimeout
	}
	if dl, ok := ctx.Deadline(); ok {
		if time.Until(dl) <= limit {
			return context.WithCancel(ctx)
		}
	} else {
		limit = min(def, limit)
	}
	return context.WithTimeout(ctx, limit)
}

// beginCall gives a call of method its request id — a sane incoming
// x-request-id or a new one — in ctx, sends it back in the response
// headers, and logs the start at debug level.
func (s *Server) beginCall(ctx context.Context, method string) (context.Context, *telemetry.Call) {
	md, _ := metadata.FromIncomingContext(ctx)
	incoming := ""
	if v := md.Get(requestIDHeader); len(v) == 1 {
		incoming = v[0]
	}
	c := &telemetry.Call{ID: telemetry.RequestID(incoming)}
	// The header goes out with the first response message or the status;
	// an error here means the transport is gone, which the call will see.
	_ = grpc.SetHeader(ctx, metadata.Pairs(requestIDHeader, c.ID))
	ctx = telemetry.WithCall(ctx, c)
	s.log.DebugContext(ctx, "rpc_started", "method", method)
	return ctx, c
}

// requestIDHeader is the metadata key of request ids, both ways.
const requestIDHeader = "x-request-id"

func (s *Server) unaryInterceptor(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
	start := time.Now()
	callCtx, call := s.beginCall(ctx, info.FullMethod)
	ctx = callCtx
	var claims *auth.Claims
	defer func() {
		if r := recover(); r != nil {
			s.log.ErrorContext(callCtx, "panic", "method", info.FullMethod, "panic", r, "stack", string(debug.Stack()))
			resp, err = nil, status.Error(codes.Internal, "internal error")
		}
		// callCtx, not ctx: a refused call's ctx is nil.
		s.logCall(callCtx, info.FullMethod, call, claims, start, err)
	}()
	ctx, err = s.authenticate(ctx, info.FullMethod)
	if err != nil {
		return nil, err
	}
	claims, _ = claimsFrom(ctx)
	if err := parseDeferred(req); err != nil {
		return nil, malformedRequest()
	}
	ctx, cancel := s.withDeadline(ctx, info.FullMethod)
	defer cancel()
	return handler(ctx, req)
}

func (s *Server) streamInterceptor(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) (err error) {
	start := time.Now()
	callCtx, call := s.beginCall(ss.Context(), info.FullMethod)
	ctx := callCtx
	var claims *auth.Claims
	defer func() {
		if r := recover(); r != nil {
			s.log.ErrorContext(callCtx, "panic", "method", info.FullMethod, "panic", r, "stack", string(debug.Stack()))
			err = status.Error(codes.Internal, "internal error")
		}
		// callCtx, not ctx: a refused call's ctx is nil.
		s.logCall(callCtx, info.FullMethod, call, claims, start, err)
	}()
	ctx, err = s.authenticate(ctx, info.FullMethod)
	if err != nil {
		return err
	}
	claims, _ = claimsFrom(ctx)
	ctx, cancel := s.withDeadline(ctx, info.FullMethod)
	defer cancel()
	return handler(srv, &wrappedStream{ServerStream: ss, ctx: ctx})
}

// wrappedStream replaces a stream's context and parses the messages it
// receives (see [deferredCodec]).
type wrappedStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (w *wrappedStream) Context() context.Context { return w.ctx }

func (w *wrappedStream) RecvMsg(m any) error {
	if err := w.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	if err := parseDeferred(m); err != nil {
		return malformedRequest()
	}
	return nil
}

// logCall logs and counts one finished call with constant keys; never the
// token, the query text or parameter values.
func (s *Server) logCall(ctx context.Context, method string, call *telemetry.Call, claims *auth.Claims, start time.Time, err error) {
	code := status.Code(err)
	elapsed := time.Since(start)
	s.opts.Metrics.Request("grpc", method, code.String(), call.QueryType, elapsed)
	level := slog.LevelInfo
	if code != codes.OK && code != codes.InvalidArgument && code != codes.Unauthenticated && code != codes.PermissionDenied && code != codes.NotFound {
		level = slog.LevelWarn
	}
	attrs := []any{"method", method, "code", code.String(), "elapsed_ms", elapsed.Milliseconds()}
	if call.QueryType != "" {
		attrs = append(attrs, "query_type", call.QueryType)
	}
	if claims != nil {
		attrs = append(attrs, "user_id", claims.UserID)
	}
	s.log.Log(ctx, level, "rpc", attrs...)
}
