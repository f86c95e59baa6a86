package ontology

import (
	"errors"
	"fmt"
)

// Sentinels wrapped by [*Error].
var (
	// ErrSyntax: the file is not valid YAML or a value has the wrong YAML type.
	ErrSyntax = errors.New("invalid YAML")
	// ErrUnknownField: a key the format does not define.
	ErrUnknownField = errors.New("unknown field")
	// ErrDuplicate: a name (entity, relationship, property, pair, enum label) appears twice.
	ErrDuplicate = errors.New("duplicate name")
	// ErrDangling: a relationship pair, label or fk names something that does not exist.
	ErrDangling = errors.New("dangling reference")
	// ErrInvalid: any other rule of docs/clickhouse.md, "Ontology rules".
	ErrInvalid = errors.New("invalid ontology")
)

// Error locates an ontology problem: File is the slash-separated path inside the ontology
// directory, Line and Column are 1-based (0 when unknown), and Err wraps one of the sentinels.
type Error struct {
	File   string
	Line   int
	Column int
	Err    error
}

func (e *Error) Error() string {
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("ontology: %s:%d:%d: %v", e.File, e.Line, e.Column, e.Err)
	case e.Line > 0:
		return fmt.Sprintf("ontology: %s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("ontology: %s: %v", e.File, e.Err)
}

// Unwrap returns the wrapped error.
func (e *Error) Unwrap() error { return e.Err }

func errAt(file string, line, col int, sentinel error, format string, args ...any) *Error {
	return &Error{File: file, Line: line, Column: col, Err: fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)}
}
