package mcpsvc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graphwire/graphwire/admission"
	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/pipeline"
	"github.com/graphwire/graphwire/redact"
)

// argError is a tool argument the server rejects before the pipeline.
type argError struct{ msg, pointer string }

func (e *argError) Error() string { return e.msg }

// toolError is the structured content of an isError result: enough for a
// model to correct its call.
type toolError struct {
	Code         string   `json:"code"`              // invalid_query, permission_denied, resource_exhausted, …
	Reason       string   `json:"reason"`            // UNKNOWN_ENTITY, SCOPE_VIOLATION, TOKEN_BUDGET, SERVER_BUSY, …
	Pointer      string   `json:"pointer,omitempty"` // JSON Pointer into the query (or the arguments)
	Message      string   `json:"message"`
	Hint         string   `json:"hint,omitempty"`          // the did-you-mean suggestion
	ValidOptions []string `json:"valid_options,omitempty"` // for unknown names
	RetryAfterMS int64    `json:"retry_after_ms,omitempty"`
}

var didYouMean = regexp.MustCompile(`\(did you mean "([^"]+)"\?\)`)

// classify is the one place errors become MCP tool errors. Messages are
// client-safe: compiler errors carry their pointer and message, engine
// kinds a fixed sentence, anything else "internal error" (the full error
// is not sent).
func classify(err error) toolError {
	var ce *compiler.Error
	var re *pipeline.RequestError
	var be *pipeline.BudgetError
	var busy *admission.BusyError
	var ue *formatter.UnknownFormatError
	var ae *argError
	var ie *IndexError
	switch {
	case errors.Is(err, errAdminOnly):
		return toolError{Code: "permission_denied", Reason: "ADMIN_ONLY", Message: err.Error()}
	case errors.As(err, &ie):
		code := "failed"
		switch ie.Reason {
		case "PATH_REFUSED":
			code = "permission_denied"
		case "NO_FILES":
			code = "not_found"
		}
		return toolError{Code: code, Reason: ie.Reason, Pointer: "/path", Message: ie.Error()}
	case errors.As(err, &ce):
		msg := ce.Message
		if msg == "" {
			msg = ce.Reason()
		}
		te := toolError{Code: string(ce.Kind()), Reason: ce.Reason(), Pointer: ce.Path, Message: msg, ValidOptions: ce.ValidOptions}
		if ce.Kind() == compiler.KindInternal {
			return toolError{Code: "internal", Reason: "INTERNAL", Message: "internal error"}
		}
		if m := didYouMean.FindStringSubmatch(ce.Message); m != nil {
			te.Hint = m[1]
		}
		return te
	case errors.As(err, &ae):
		return toolError{Code: "invalid_arguments", Reason: "INVALID_ARGUMENTS", Pointer: ae.pointer, Message: ae.msg}
	case errors.As(err, &re):
		te := toolError{Code: "invalid_arguments", Reason: re.Reason, Pointer: "/" + re.Field, Message: re.Message}
		if m := didYouMean.FindStringSubmatch(re.Message); m != nil {
			te.Hint = m[1]
		}
		return te
	case errors.As(err, &be):
		return toolError{Code: "resource_exhausted", Reason: "TOKEN_BUDGET", Pointer: "/max_tokens", Message: be.Error(),
			Hint: fmt.Sprintf("raise max_tokens to at least %d, or select fewer columns", be.Needed)}
	case errors.As(err, &busy):
		return toolError{Code: "resource_exhausted", Reason: "SERVER_BUSY", Message: "server busy: retry later",
			RetryAfterMS: busy.RetryAfter.Round(time.Millisecond).Milliseconds()}
	case errors.As(err, &ue):
		return toolError{Code: "invalid_arguments", Reason: "UNKNOWN_FORMAT", Pointer: "/format", Message: ue.Error()}
	case errors.Is(err, formatter.ErrUnrepresentable):
		return toolError{Code: "invalid_arguments", Reason: "UNREPRESENTABLE", Pointer: "/format", Message: "this answer cannot be written in the requested format; try another format"}
	case errors.Is(err, pipeline.ErrUnauthenticated):
		return toolError{Code: "unauthenticated", Reason: "UNAUTHENTICATED", Message: "no verified caller"}
	case errors.Is(err, redact.ErrUnavailable):
		return toolError{Code: "unavailable", Reason: "REDACTION_UNAVAILABLE", Message: "the redaction authority could not decide which rows you may read, so no rows were sent; retry later"}
	case errors.Is(err, executor.ErrInvalidQuery):
		return toolError{Code: "invalid_query", Reason: "ENGINE_REJECTED", Message: "the engine rejected a query value"}
	case errors.Is(err, executor.ErrTimeout), errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return toolError{Code: "deadline_exceeded", Reason: "TIMEOUT", Message: "query deadline exceeded; narrow the query"}
	case errors.Is(err, executor.ErrResourceExhausted):
		return toolError{Code: "resource_exhausted", Reason: "ENGINE_LIMIT", Message: "query exceeded a resource limit; narrow the query"}
	case errors.Is(err, executor.ErrUnavailable):
		return toolError{Code: "unavailable", Reason: "UNAVAILABLE", Message: "query engine unavailable"}
	case errors.Is(err, executor.ErrCanceled), errors.Is(err, context.Canceled):
		return toolError{Code: "canceled", Reason: "CANCELED", Message: "request canceled"}
	}
	return toolError{Code: "internal", Reason: "INTERNAL", Message: "internal error"}
}

// errorResult is a tool result with isError: one line of text the model
// reads, and the same facts as structured content.
func errorResult(err error) *mcp.CallToolResult {
	te := classify(err)
	text := "error " + te.Reason
	if te.Pointer != "" {
		text += " at " + te.Pointer
	}
	text += ": " + te.Message
	if te.Hint != "" && !didYouMean.MatchString(te.Message) {
		text += " (hint: " + te.Hint + ")"
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: map[string]any{"error": te}}
}

// errorCode is the reason of an error result, for the log.
func errorCode(res *mcp.CallToolResult) string {
	if m, ok := res.StructuredContent.(map[string]any); ok {
		if te, ok := m["error"].(toolError); ok {
			return te.Reason
		}
	}
	return "ERROR"
}
