package telemetry

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
)

// Call is what a face knows about the request it is serving, carried in the
// request's context. ID is set when the call starts; the pipeline sets
// QueryType once the query compiled. Only the goroutine serving the request
// touches it.
type Call struct {
	ID        string
	QueryType string
}

type callKey struct{}

// WithCall returns ctx carrying c.
func WithCall(ctx context.Context, c *Call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// CallFrom returns the call ctx carries, or nil.
func CallFrom(ctx context.Context) *Call {
	c, _ := ctx.Value(callKey{}).(*Call)
	return c
}

// MaxRequestIDBytes bounds an incoming request id that is kept.
const MaxRequestIDBytes = 128

// RequestID returns incoming when it is a sane token — 1 to
// [MaxRequestIDBytes] bytes of ASCII letters, digits and "-_.:/+=" — so a
// caller's id can join logs across services; otherwise, and when it is
// empty, a new random id of 32 hex digits.
func RequestID(incoming string) string {
	if saneID(incoming) {
		return incoming
	}
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

func saneID(s string) bool {
	if s == "" || len(s) > MaxRequestIDBytes {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '-' || c == '_' || c == '.' || c == ':' || c == '/' || c == '+' || c == '=':
		default:
			return false
		}
	}
	return true
}

// NewLogHandler wraps h so that every record logged with a context
// carrying a [Call] has a request_id attribute.
func NewLogHandler(h slog.Handler) slog.Handler { return logHandler{h} }

type logHandler struct{ slog.Handler }

func (l logHandler) Handle(ctx context.Context, r slog.Record) error {
	if c := CallFrom(ctx); c != nil && c.ID != "" {
		r = r.Clone()
		r.AddAttrs(slog.String("request_id", c.ID))
	}
	return l.Handler.Handle(ctx, r)
}

func (l logHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return logHandler{l.Handler.WithAttrs(as)}
}

func (l logHandler) WithGroup(name string) slog.Handler {
	return logHandler{l.Handler.WithGroup(name)}
}
