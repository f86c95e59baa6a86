package gcf

import (
	"errors"
	"strconv"
	"strings"
)

// Sentinel errors. Every decode error is a [*SyntaxError] and every encode
// error an [*EncodeError] wrapping one of these; [Code] returns the code.
var (
	ErrMissingHeader           = errors.New("missing_header")
	ErrMissingProfile          = errors.New("missing_profile")
	ErrUnknownProfile          = errors.New("unknown_profile")
	ErrMalformedHeaderField    = errors.New("malformed_header_field")
	ErrDuplicateHeaderField    = errors.New("duplicate_header_field")
	ErrUnterminatedQuote       = errors.New("unterminated_quote")
	ErrInvalidEscape           = errors.New("invalid_escape")
	ErrTrailingCharacters      = errors.New("trailing_characters")
	ErrInvalidMissing          = errors.New("invalid_missing")
	ErrInvalidAttachmentMarker = errors.New("invalid_attachment_marker")
	ErrInvalidSurrogate        = errors.New("invalid_surrogate")
	ErrInvalidUTF8             = errors.New("invalid_utf8")
	ErrDuplicateKey            = errors.New("duplicate_key")
	ErrDuplicateFieldName      = errors.New("duplicate_field_name")
	ErrRowWidthMismatch        = errors.New("row_width_mismatch")
	ErrCountMismatch           = errors.New("count_mismatch")
	ErrInvalidCount            = errors.New("invalid_count")
	ErrTabIndentation          = errors.New("tab_indentation")
	ErrInvalidIndent           = errors.New("invalid_indent")
	ErrInvalidItemID           = errors.New("invalid_item_id")
	ErrOrphanAttachment        = errors.New("orphan_attachment")
	ErrOrphanInlineAttachment  = errors.New("orphan_inline_attachment")
	ErrMissingAttachment       = errors.New("missing_attachment")
	ErrDuplicateAttachment     = errors.New("duplicate_attachment")
	ErrInlineWidthMismatch     = errors.New("inline_width_mismatch")
	ErrInvalidNodeLine         = errors.New("invalid_node_line")
	ErrInvalidSymbolID         = errors.New("invalid_symbol_id")
	ErrInvalidScore            = errors.New("invalid_score")
	ErrInvalidEdgeSyntax       = errors.New("invalid_edge_syntax")
	ErrUnknownEdgeReference    = errors.New("unknown_edge_reference")
	ErrMalformedDelta          = errors.New("malformed_delta")
	ErrOutOfRange              = errors.New("out_of_range")
	ErrRootMismatch            = errors.New("root_mismatch")

	// Project codes.
	ErrSyntax              = errors.New("syntax_error")
	ErrTooFewFields        = errors.New("too_few_fields")
	ErrLimit               = errors.New("limit_exceeded")
	ErrUnresolvedReference = errors.New("unresolved_reference")
	ErrBaseMismatch        = errors.New("base_mismatch")
	ErrDeltaConflict       = errors.New("delta_conflict")
	ErrUnknownRoot         = errors.New("unknown_root")

	// Encode-only codes.
	ErrNonFinite         = errors.New("non_finite")
	ErrUnsupportedType   = errors.New("unsupported_type")
	ErrInvalidToken      = errors.New("invalid_token")
	ErrInvalidKind       = errors.New("invalid_kind")
	ErrDuplicateSymbol   = errors.New("duplicate_symbol")
	ErrDanglingEdge      = errors.New("dangling_edge")
	ErrAmbiguousEndpoint = errors.New("ambiguous_endpoint")
	ErrStreamState       = errors.New("stream_state")
	ErrStreamSchema      = errors.New("stream_schema")

	// Mapping-only codes (GraphResponse mappings, spec §3).
	ErrUnrepresentable  = errors.New("unrepresentable")
	ErrUnsupportedQuery = errors.New("unsupported_query")
	ErrMapping          = errors.New("mapping")
)

// sentinels lists every sentinel, for [Code].
var sentinels = [...]error{
	ErrMissingHeader, ErrMissingProfile, ErrUnknownProfile, ErrMalformedHeaderField,
	ErrDuplicateHeaderField, ErrUnterminatedQuote, ErrInvalidEscape, ErrTrailingCharacters,
	ErrInvalidMissing, ErrInvalidAttachmentMarker, ErrInvalidSurrogate, ErrInvalidUTF8,
	ErrDuplicateKey, ErrDuplicateFieldName, ErrRowWidthMismatch, ErrCountMismatch,
	ErrInvalidCount, ErrTabIndentation, ErrInvalidIndent, ErrInvalidItemID,
	ErrOrphanAttachment, ErrOrphanInlineAttachment, ErrMissingAttachment,
	ErrDuplicateAttachment, ErrInlineWidthMismatch, ErrInvalidNodeLine, ErrInvalidSymbolID,
	ErrInvalidScore, ErrInvalidEdgeSyntax, ErrUnknownEdgeReference, ErrMalformedDelta,
	ErrOutOfRange, ErrRootMismatch, ErrSyntax, ErrTooFewFields, ErrLimit,
	ErrUnresolvedReference, ErrBaseMismatch, ErrDeltaConflict, ErrUnknownRoot,
	ErrNonFinite, ErrUnsupportedType, ErrInvalidToken, ErrInvalidKind, ErrDuplicateSymbol,
	ErrDanglingEdge, ErrAmbiguousEndpoint, ErrStreamState, ErrStreamSchema,
	ErrUnrepresentable, ErrUnsupportedQuery, ErrMapping,
}

// Sentinels returns every sentinel error of the package, in a fixed order.
// Fuzz tests use it to check that an error is a documented one.
func Sentinels() []error { return append([]error(nil), sentinels[:]...) }

// Code returns the snake_case code of the first sentinel found in err's
// chain, or "" when there is none.
func Code(err error) string {
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	return ""
}

// SyntaxError is a decoding error. Line is the 1-based physical line (the
// header is line 1), Column the 1-based byte column of the offending token (1
// when unknown), Err one of the package sentinels and Detail a human
// explanation.
type SyntaxError struct {
	Line, Column int
	Err          error
	Detail       string
}

// Error returns "gcf: line L, column C: code: detail".
func (e *SyntaxError) Error() string {
	var b strings.Builder
	b.WriteString("gcf: line ")
	b.WriteString(strconv.Itoa(e.Line))
	b.WriteString(", column ")
	b.WriteString(strconv.Itoa(e.Column))
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	return b.String()
}

// Unwrap returns the sentinel.
func (e *SyntaxError) Unwrap() error { return e.Err }

// EncodeError is an encoding error. Path is a JSON Pointer into the input
// value or graph ("/orders/3/total", "/symbols/2/name"), Err a sentinel and
// Detail a human explanation.
type EncodeError struct {
	Path   string
	Err    error
	Detail string
}

// Error returns "gcf: encode /path: code: detail".
func (e *EncodeError) Error() string {
	s := "gcf: encode"
	if e.Path != "" {
		s += " " + e.Path
	}
	s += ": " + e.Err.Error()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns the sentinel.
func (e *EncodeError) Unwrap() error { return e.Err }

func encErr(sentinel error, detail string) *EncodeError {
	return &EncodeError{Err: sentinel, Detail: detail}
}

// pointerToken escapes one JSON Pointer reference token.
func pointerToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	s = strings.ReplaceAll(s, "~", "~0")
	return strings.ReplaceAll(s, "/", "~1")
}

// atPath prefixes the path of an *EncodeError with one segment.
func atPath(err error, seg string) error {
	var ee *EncodeError
	if errors.As(err, &ee) {
		ee.Path = "/" + pointerToken(seg) + ee.Path
	}
	return err
}

func atIndex(err error, i int) error { return atPath(err, strconv.Itoa(i)) }

// opError wraps a sentinel with the action being performed ("gcf: apply
// delta: delta_conflict: …").
type opError struct {
	op     string
	err    error
	detail string
}

func (e *opError) Error() string {
	s := "gcf: " + e.op + ": " + e.err.Error()
	if e.detail != "" {
		s += ": " + e.detail
	}
	return s
}

func (e *opError) Unwrap() error { return e.err }

func newOpError(op string, sentinel error, detail string) error {
	return &opError{op: op, err: sentinel, detail: detail}
}
