package codeindex

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Common holds the properties every code item carries.
type Common struct {
	ID            int64  `json:"id"`
	TraversalPath string `json:"traversal_path"`
	CommitSHA     string `json:"commit_sha"`
	Branch        string `json:"branch"`
	ProjectID     int64  `json:"project_id"`
}

// Directory is a directory that holds indexed files, or one above such a directory. The
// root of the index has Path ".".
type Directory struct {
	Common
	Path string `json:"path"`
	Name string `json:"name"`
}

// File is one indexed Go source file, with its text.
type File struct {
	Common
	Path      string `json:"path"`
	Name      string `json:"name"`
	Extension string `json:"extension"`
	Language  string `json:"language"`
	Content   string `json:"content"`
}

// Definition is a declared function, method, type, interface, interface method, constant or
// variable. Content is the declaration's source text, so it shows the signature.
type Definition struct {
	Common
	Name           string `json:"name"`
	FQN            string `json:"fqn"`
	DefinitionType string `json:"definition_type"`
	FilePath       string `json:"file_path"`
	StartLine      int64  `json:"start_line"`
	EndLine        int64  `json:"end_line"`
	StartByte      int64  `json:"start_byte"`
	EndByte        int64  `json:"end_byte"`
	Content        string `json:"content"`
}

// ImportedSymbol is one import declaration of a file.
type ImportedSymbol struct {
	Common
	IdentifierName  string  `json:"identifier_name"`
	IdentifierAlias *string `json:"identifier_alias"`
	ImportPath      string  `json:"import_path"`
	ImportType      string  `json:"import_type"` // module, blank or dot
	FilePath        string  `json:"file_path"`
	StartLine       int64   `json:"start_line"`
	EndLine         int64   `json:"end_line"`
	StartByte       int64   `json:"start_byte"`
	EndByte         int64   `json:"end_byte"`
}

// Branch is the indexed branch.
type Branch struct {
	ID            int64  `json:"id"`
	TraversalPath string `json:"traversal_path"`
	Name          string `json:"name"`
	IsDefault     bool   `json:"is_default"`
	ProjectID     int64  `json:"project_id"`
}

// Commit is the commit the branch was indexed at.
type Commit struct {
	ID            int64  `json:"id"`
	TraversalPath string `json:"traversal_path"`
	SHA           string `json:"sha"`
	ProjectID     int64  `json:"project_id"`
}

// Edge is one relationship between two items of the graph.
type Edge struct {
	Kind     string
	FromKind string
	From     int64
	ToKind   string
	To       int64
}

// Graph is the code graph of one branch of one project.
type Graph struct {
	TraversalPath string
	Branch        Branch
	Commit        *Commit
	Directories   []Directory
	Files         []File
	Definitions   []Definition
	Imports       []ImportedSymbol
	Edges         []Edge // sorted by kind, then endpoints

	subset bool // made by Subset: Types leaves out what it has no rows of
}

// Types lists the entity and relationship names [Graph.Encode] writes, entities first. A
// graph from [Graph.Subset] lists only the types it has rows of (Branch only with the
// directories).
func (g *Graph) Types() []string {
	var ts []string
	if !g.subset || len(g.Directories) > 0 {
		ts = append(ts, "Branch")
	}
	if g.Commit != nil {
		ts = append(ts, "Commit")
	}
	for _, t := range []struct {
		name string
		n    int
	}{{"Directory", len(g.Directories)}, {"File", len(g.Files)}, {"Definition", len(g.Definitions)}, {"ImportedSymbol", len(g.Imports)}} {
		if !g.subset || t.n > 0 {
			ts = append(ts, t.name)
		}
	}
	seen := map[string]bool{}
	for _, e := range g.Edges {
		if !seen[e.Kind] {
			seen[e.Kind] = true
			ts = append(ts, e.Kind)
		}
	}
	return ts
}

// Encode writes the rows of one type as JSON Lines, in the columns graphwire load reads.
func (g *Graph) Encode(typ string, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	var err error
	each := func(n int, row func(int) any) {
		for i := 0; i < n && err == nil; i++ {
			err = enc.Encode(row(i))
		}
	}
	switch typ {
	case "Branch":
		err = enc.Encode(g.Branch)
	case "Commit":
		err = enc.Encode(g.Commit)
	case "Directory":
		each(len(g.Directories), func(i int) any { return &g.Directories[i] })
	case "File":
		each(len(g.Files), func(i int) any { return &g.Files[i] })
	case "Definition":
		each(len(g.Definitions), func(i int) any { return &g.Definitions[i] })
	case "ImportedSymbol":
		each(len(g.Imports), func(i int) any { return &g.Imports[i] })
	default:
		type edge struct {
			TraversalPath string `json:"traversal_path"`
			SourceKind    string `json:"source_kind"`
			SourceID      int64  `json:"source_id"`
			TargetKind    string `json:"target_kind"`
			TargetID      int64  `json:"target_id"`
			// The index scope, as Orbit's code-graph edges carry it; package load keeps
			// them for the relationship types that declare them (ontology edge_properties).
			ProjectID int64  `json:"project_id"`
			Branch    string `json:"branch"`
		}
		for _, e := range g.Edges {
			if e.Kind == typ && err == nil {
				err = enc.Encode(edge{g.TraversalPath, e.FromKind, e.From, e.ToKind, e.To, g.Branch.ProjectID, g.Branch.Name})
			}
		}
	}
	if err != nil {
		return fmt.Errorf("codeindex: encode %s: %w", typ, err)
	}
	return bw.Flush()
}

// id derives a stable positive id from the parts that name an item, so that a re-index
// gives unchanged items the same id.
func id(parts ...string) int64 {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	v := int64(binary.BigEndian.Uint64(h[:8]) & (1<<63 - 1))
	if v == 0 {
		v = 1
	}
	return v
}
