package load

import (
	"errors"
	"fmt"
	"slices"
)

// Sentinels an [Issue] wraps; compare with errors.Is.
var (
	ErrUnknownType     = errors.New("unknown entity or relationship type")
	ErrUnknownProperty = errors.New("unknown property")
	ErrMissing         = errors.New("missing required value")
	ErrType            = errors.New("value does not have the property's type")
	ErrEnum            = errors.New("value is not a label of the property's enum")
	ErrPath            = errors.New("traversal_path is not a path a scope can name: 1 to 20 positive ids without leading zeros, each followed by / (1/22/)")
	ErrPair            = errors.New("endpoint kinds are not a pair of the relationship")
	ErrDangling        = errors.New("edge endpoint is not a live node") // Issue.Detail says why
	ErrFormat          = errors.New("unsupported file format")
	ErrRead            = errors.New("engine could not read the file")
)

// Issue is one problem found in an input file: which file, which row (0-based, in file order)
// and line (1-based; 0 when the format has no lines, as in Parquet), which column, and why.
type Issue struct {
	File   string
	Row    int64 // -1 for a problem with the whole file (an unknown column)
	Line   int64
	Column string
	Value  string // the offending text, cut to 80 bytes; empty when missing
	Err    error  // one of the sentinels above
	// Detail says what the sentinel does not, when it is known: for ErrDangling, why the end
	// is no live node ("Definition 301 is deleted by this load at FILE:LINE (row R)", "… is
	// deleted in the graph", "… is neither in the load nor in the graph").
	Detail string
}

// where names the file, line and row of the issue: /data/Milestone.jsonl:3 (row 2).
func (i Issue) where() string {
	switch {
	case i.Row < 0:
		return i.File
	case i.Line > 0:
		return fmt.Sprintf("%s:%d (row %d)", i.File, i.Line, i.Row)
	}
	return fmt.Sprintf("%s: row %d", i.File, i.Row)
}

func (i Issue) Error() string {
	where := i.where()
	msg := fmt.Sprintf("load: %s: column %s: %v", where, i.Column, i.Err)
	if i.Column == "-" { // about the whole file, no column
		msg = fmt.Sprintf("load: %s: %v", where, i.Err)
	}
	if i.Detail != "" {
		msg += ": " + i.Detail
	}
	if i.Value != "" {
		msg += fmt.Sprintf(" (%q)", i.Value)
	}
	return msg
}

func (i Issue) Unwrap() error { return i.Err }

// ValidationError refuses a load: the input had Count invalid rows (or a file-level problem),
// and Issues lists them in file and row order. Nothing was written.
type ValidationError struct {
	Issues []Issue
	Count  int64 // invalid rows in all; may exceed len(Issues) when the list was cut
}

func (e *ValidationError) Error() string {
	if len(e.Issues) == 0 {
		return fmt.Sprintf("load: %d invalid rows", e.Count)
	}
	if e.Count <= 1 {
		return e.Issues[0].Error()
	}
	if e.FileLevel() {
		return fmt.Sprintf("%s (and %d more file problems)", e.Issues[0].Error(), e.Count-1)
	}
	return fmt.Sprintf("%s (and %d more invalid rows)", e.Issues[0].Error(), e.Count-1)
}

// FileLevel reports whether the load was refused for problems with whole files (Row -1: a
// file the engine could not read, an unknown or missing column) rather than for invalid rows;
// Count then counts those problems, and SkipInvalid does not get past them.
func (e *ValidationError) FileLevel() bool {
	return len(e.Issues) > 0 && !slices.ContainsFunc(e.Issues, func(i Issue) bool { return i.Row >= 0 })
}

// Unwrap returns the first issue, so errors.Is matches its sentinel.
func (e *ValidationError) Unwrap() error {
	if len(e.Issues) == 0 {
		return nil
	}
	return e.Issues[0]
}
