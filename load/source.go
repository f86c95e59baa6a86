package load

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/graphwire/graphwire/ontology"
)

// Format is an input or output file format, read and written by the engine itself.
type Format string

// The formats graphwire loads and exports, with the ClickHouse format each maps to.
const (
	JSONL   Format = "jsonl"   // JSONEachRow: one JSON object per line
	CSV     Format = "csv"     // CSVWithNames: a header line, then one row per line
	Parquet Format = "parquet" // Parquet
)

// Formats lists the formats in a fixed order.
var Formats = []Format{JSONL, CSV, Parquet}

// engineFormat is the ClickHouse name of f.
func (f Format) engineFormat() string {
	switch f {
	case JSONL:
		return "JSONEachRow"
	case CSV:
		return "CSVWithNames"
	case Parquet:
		return "Parquet"
	}
	return ""
}

// firstLine is the line of row 0 in a file of f; 0 when its rows do not sit on lines.
func (f Format) firstLine() int64 {
	switch f {
	case JSONL:
		return 1
	case CSV:
		return 2
	}
	return 0
}

// ParseFormat returns the format called name ("jsonl", "ndjson", "json", "csv", "parquet").
func ParseFormat(name string) (Format, error) {
	switch strings.ToLower(name) {
	case "jsonl", "ndjson", "json":
		return JSONL, nil
	case "csv":
		return CSV, nil
	case "parquet":
		return Parquet, nil
	}
	return "", fmt.Errorf("%w %q (want jsonl, csv or parquet)", ErrFormat, name)
}

// Source is one input file holding rows of one entity or relationship type.
type Source struct {
	Path   string
	Type   string // entity (Definition) or relationship (CALLS) name; empty: from the file name
	Format Format // empty: from the extension
}

// splitName returns the type and format a file name gives: "Definition.jsonl",
// "gl_definition.parquet", "calls.csv".
func splitName(path string) (typ, ext string) {
	base := filepath.Base(path)
	i := strings.IndexByte(base, '.')
	if i < 0 {
		return base, ""
	}
	return base[:i], base[i+1:]
}

// target is a resolved source: the entity or the relationship it fills.
type target struct {
	src    Source
	entity *ontology.Entity       // nil for a relationship
	rel    *ontology.Relationship // nil for an entity
	size   int64
	// enginePath is the path handed to the engine: src.Path, or a link to it with a name
	// free of glob characters (see literalPaths).
	enginePath string
}

func (t *target) name() string {
	if t.entity != nil {
		return t.entity.Name
	}
	return t.rel.Name
}

// resolve finds the type and format of s and checks that the file exists.
func resolve(ont *ontology.Ontology, s Source) (*target, error) {
	typ, ext := splitName(s.Path)
	if s.Type != "" {
		typ = s.Type
	}
	if s.Format == "" {
		if i := strings.LastIndexByte(ext, '.'); i >= 0 {
			ext = ext[i+1:]
		}
		f, err := ParseFormat(ext)
		if err != nil {
			return nil, Issue{File: s.Path, Row: -1, Column: "-", Err: err}
		}
		s.Format = f
	}
	if s.Format.engineFormat() == "" {
		return nil, Issue{File: s.Path, Row: -1, Column: "-", Err: fmt.Errorf("%w %q", ErrFormat, s.Format)}
	}
	abs, err := filepath.Abs(s.Path)
	if err != nil {
		return nil, fmt.Errorf("load: %s: %w", s.Path, err)
	}
	if strings.ContainsFunc(abs, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return nil, fmt.Errorf("load: %q: control character in the path", s.Path)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	if err := regularFile(s.Path, fi); err != nil {
		return nil, err
	}
	t := &target{src: s, size: fi.Size()}
	t.src.Path = abs
	for _, e := range ont.Entities {
		// MergeRequest, gl_merge_request or merge_request: the table name without the
		// ontology's prefix is the entity's snake-case name, as the ontology derives it.
		if strings.EqualFold(e.Name, typ) || strings.EqualFold(e.Table, typ) || strings.EqualFold(strings.TrimPrefix(e.Table, ont.TablePrefix), typ) {
			t.entity = e
			return t, nil
		}
	}
	for _, r := range ont.Relationships {
		if strings.EqualFold(r.Name, typ) {
			t.rel = r
			return t, nil
		}
	}
	return nil, Issue{File: s.Path, Row: -1, Column: "-", Value: typ, Err: ErrUnknownType}
}

// quote writes s as a ClickHouse string literal. Only file paths the operator names (checked
// for control characters by resolve) and ontology names pass through it: [executor.Loader.Exec]
// binds no parameters, and the file table function takes its path as a constant.
func quote(s string) string { return "'" + literalEscaper.Replace(s) + "'" }

var literalEscaper = strings.NewReplacer(`\`, `\\`, `'`, `\'`)

// ident quotes an identifier that comes from the ontology.
func ident(s string) string { return "`" + s + "`" }
