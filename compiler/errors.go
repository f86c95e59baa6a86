package compiler

import (
	"errors"
	"strings"
)

// Kind classifies a compiler failure for the edges (gRPC status, CLI exit message).
type Kind string

// Error kinds (docs/dsl.md, "Errors"; docs/service.md, "Status codes", maps them to gRPC).
const (
	KindInvalidQuery     Kind = "invalid_query"
	KindPermissionDenied Kind = "permission_denied"
	// KindResourceExhausted: a legal query whose estimated cost is above the server's limit.
	KindResourceExhausted Kind = "resource_exhausted"
	KindInternal          Kind = "internal"
)

// Reason is a sentinel error naming one failure reason of docs/dsl.md, "Errors". Match
// it with errors.Is: errors.Is(err, compiler.ErrUnknownEntity).
type Reason struct {
	code string
	kind Kind
}

// Error returns the reason code, for example "UNKNOWN_ENTITY".
func (r *Reason) Error() string { return r.code }

// Code returns the reason code, for example "UNKNOWN_ENTITY".
func (r *Reason) Code() string { return r.code }

// Kind returns the error kind the reason belongs to.
func (r *Reason) Kind() Kind { return r.kind }

func invalid(code string) *Reason { return &Reason{code: code, kind: KindInvalidQuery} }

// Reasons. Every [*Error] wraps exactly one of them.
var (
	ErrParse                  = invalid("PARSE_ERROR")
	ErrSchemaViolation        = invalid("SCHEMA_VIOLATION")
	ErrUnknownEntity          = invalid("UNKNOWN_ENTITY")
	ErrUnknownRelationship    = invalid("UNKNOWN_RELATIONSHIP")
	ErrUnknownProperty        = invalid("UNKNOWN_PROPERTY")
	ErrUnknownField           = invalid("UNKNOWN_FIELD")
	ErrDuplicateAlias         = invalid("DUPLICATE_ALIAS")
	ErrUndefinedAlias         = invalid("UNDEFINED_ALIAS")
	ErrFieldNotAllowed        = invalid("FIELD_NOT_ALLOWED")
	ErrInvalidShape           = invalid("INVALID_SHAPE")
	ErrNoMatchingRelationship = invalid("NO_MATCHING_RELATIONSHIP")
	ErrNotFilterable          = invalid("NOT_FILTERABLE")
	ErrOperatorNotAllowed     = invalid("OPERATOR_NOT_ALLOWED")
	ErrValueTypeMismatch      = invalid("VALUE_TYPE_MISMATCH")
	ErrInvalidEnumValue       = invalid("INVALID_ENUM_VALUE")
	ErrPatternTooShort        = invalid("PATTERN_TOO_SHORT")
	ErrInvalidAggregation     = invalid("INVALID_AGGREGATION")
	ErrDuplicateOutputName    = invalid("DUPLICATE_OUTPUT_NAME")
	ErrUndefinedOutput        = invalid("UNDEFINED_OUTPUT")
	ErrNotSelective           = invalid("NOT_SELECTIVE")
	ErrUnsupportedFeature     = invalid("UNSUPPORTED_FEATURE")
	ErrLimitExceeded          = invalid("LIMIT_EXCEEDED")
	ErrInvalidCursor          = invalid("INVALID_CURSOR")
	ErrCursorMismatch         = invalid("CURSOR_MISMATCH")

	ErrScopeViolation     = &Reason{code: "SCOPE_VIOLATION", kind: KindPermissionDenied}
	ErrGlobalNodeUnscoped = &Reason{code: "GLOBAL_NODE_UNSCOPED", kind: KindPermissionDenied}
	// ErrNoScopes refuses every query of a caller who is not an administrator and has no
	// traversal_path scope, as Orbit refuses an empty security context at compile time.
	ErrNoScopes = &Reason{code: "NO_SCOPES", kind: KindPermissionDenied}
	// ErrAdminOnlyProperty refuses a caller who is not an administrator naming an admin-only
	// property (User.email, User.is_admin, …) in columns, filters, order_by, group_by or an
	// aggregation target.
	ErrAdminOnlyProperty = &Reason{code: "ADMIN_ONLY_PROPERTY", kind: KindPermissionDenied}
	// ErrRedactedAggregation refuses, when answers are redacted, an aggregation whose group
	// key or min/max is a free-text property (Options.Redacted).
	ErrRedactedAggregation = &Reason{code: "REDACTED_AGGREGATION", kind: KindPermissionDenied}

	// ErrQueryTooExpensive refuses, before it runs, a query whose estimated work is above the
	// limit (Options.MaxWalkCost); the message names the estimate, the limit and the part of
	// the query that drives it.
	ErrQueryTooExpensive = &Reason{code: "QUERY_TOO_EXPENSIVE", kind: KindResourceExhausted}

	ErrSecurityCheckFailed = &Reason{code: "SECURITY_CHECK_FAILED", kind: KindInternal}
	ErrCompilerBug         = &Reason{code: "COMPILER_BUG", kind: KindInternal}
)

// Error is a compiler failure located in the query. Path is a JSON Pointer (RFC 6901) into
// the request ("/nodes/0/filters/title/contains"), "" for the whole document. Err is one of
// the [Reason] sentinels. Message is one client-safe sentence; ValidOptions lists the
// acceptable values when the failure is about an unknown name (at most 60, then "…").
type Error struct {
	Path         string
	Err          error
	Message      string
	ValidOptions []string
}

// Error renders "<pointer>: <message>" (or just the message for the document root).
func (e *Error) Error() string {
	msg := e.Message
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	if e.Path == "" {
		return msg
	}
	return e.Path + ": " + msg
}

// Unwrap returns the [Reason].
func (e *Error) Unwrap() error { return e.Err }

// Reason returns the reason code of e ("UNKNOWN_ENTITY"), or "" when Err is not a [Reason].
func (e *Error) Reason() string {
	var r *Reason
	if errors.As(e.Err, &r) {
		return r.code
	}
	return ""
}

// Kind returns the kind of e's reason; internal when unknown.
func (e *Error) Kind() Kind {
	var r *Reason
	if errors.As(e.Err, &r) {
		return r.kind
	}
	return KindInternal
}

// maxOptions caps ValidOptions: a longer list keeps its first 60 names and ends with "…", so
// that an error message stays readable.
const maxOptions = 60

func newErr(path string, reason *Reason, msg string, options ...string) *Error {
	if len(options) > maxOptions {
		options = append(options[:maxOptions:maxOptions], "…")
	}
	if len(options) > 0 {
		msg += "; valid options: " + strings.Join(options, ", ")
	}
	return &Error{Path: path, Err: reason, Message: msg, ValidOptions: options}
}

// ptr joins JSON Pointer tokens, escaping "~" and "/".
func ptr(tokens ...any) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		switch v := t.(type) {
		case string:
			v = strings.ReplaceAll(v, "~", "~0")
			b.WriteString(strings.ReplaceAll(v, "/", "~1"))
		case int:
			b.WriteString(itoa(v))
		}
	}
	return b.String()
}

// sub appends tokens to an existing pointer.
func sub(base string, tokens ...any) string { return base + ptr(tokens...) }
