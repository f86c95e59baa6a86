package mcpsvc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graphwire/graphwire/auth"
)

// Indexer indexes a repository the server may read into the graph, for the tool
// index_repository. cmd/graphwire's implementation checks the path against the configured
// roots (symbolic links resolved), indexes it and writes only the files whose rows changed.
type Indexer interface {
	// Index indexes the directory at path. An error the caller should see is an
	// [*IndexError]; any other is reported as internal.
	Index(ctx context.Context, req IndexRequest) (IndexSummary, error)
}

// IndexRequest is what index_repository asks for.
type IndexRequest struct {
	Path string
	// Namespace and Project place the code in the graph; "" and 0 mean the indexer's
	// defaults (graphwire index's: 1/ and 1).
	Namespace string
	Project   int64
}

// IndexSummary is what index_repository reports, as its structured content.
type IndexSummary struct {
	Path        string `json:"path"` // the directory indexed, resolved
	Files       int    `json:"files"`
	Definitions int    `json:"definitions"`
	Imports     int    `json:"imports"`
	Edges       int    `json:"edges"`
	// Changed and Gone count the files whose rows changed since the last index of the
	// repository and those that are gone; Incremental says whether there was one.
	Changed     int    `json:"changed_files"`
	Gone        int    `json:"gone_files"`
	Incremental bool   `json:"incremental"`
	Written     int64  `json:"rows_written"`
	Tombstoned  int64  `json:"rows_tombstoned"`
	Version     uint64 `json:"version,omitempty"`
	ElapsedMS   int64  `json:"elapsed_ms"`
	// Warnings are the indexer's notes: packages with type errors, files that do not parse.
	Warnings []string `json:"warnings,omitempty"`
}

// IndexError is an index_repository failure the caller may read: Reason is PATH_REFUSED
// (outside the index roots, or not a directory), NO_FILES (nothing to index) or
// INDEX_FAILED, and Err says what.
type IndexError struct {
	Reason string
	Err    error
}

func (e *IndexError) Error() string { return e.Err.Error() }
func (e *IndexError) Unwrap() error { return e.Err }

// indexInput is index_repository's input schema.
const indexInput = `{"type":"object","additionalProperties":false,"required":["path"],"properties":{
"path":{"type":"string","minLength":1,"description":"Directory of the repository to index, absolute or relative to the first index root; it must lie under an index root the server allows."},
"namespace":{"type":"string","description":"Traversal path the code belongs to, e.g. 1/22/ (default 1/)."},
"project":{"type":"integer","minimum":1,"description":"Project id of the code (default 1); each repository needs its own, or re-indexing one replaces the other."}}}`

// registerIndex adds index_repository.
func (s *Server) registerIndex() {
	s.mcp.AddTool(&mcp.Tool{Name: "index_repository", Title: "Index a repository",
		Description: "Index (or re-index) the code of a repository directory the server may read into the code graph, so that query_graph sees it " +
			"(File, Definition, ImportedSymbol; CALLS, IMPORTS, EXTENDS, DEFINES). Only files whose rows changed are written. Admins only.",
		InputSchema: json.RawMessage(indexInput), Annotations: &mcp.ToolAnnotations{IdempotentHint: true}},
		s.wrapTimeout("index_repository", s.opts.IndexTimeout, s.indexRepository))
}

func (s *Server) indexRepository(ctx context.Context, _ *mcp.CallToolRequest, claims *auth.Claims, raw json.RawMessage) (*mcp.CallToolResult, error) {
	if !claims.Admin {
		return nil, errAdminOnly
	}
	var a struct {
		Path      string `json:"path"`
		Namespace string `json:"namespace"`
		Project   int64  `json:"project"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if a.Path == "" {
		return nil, &argError{msg: "path is required", pointer: "/path"}
	}
	start := time.Now()
	if a.Project < 0 {
		return nil, &argError{msg: "project must be positive", pointer: "/project"}
	}
	sum, err := s.opts.Indexer.Index(ctx, IndexRequest{Path: a.Path, Namespace: a.Namespace, Project: a.Project})
	if err != nil {
		return nil, err
	}
	sum.ElapsedMS = time.Since(start).Milliseconds()
	text := fmt.Sprintf("indexed %s: %d files, %d definitions, %d imports, %d edges", sum.Path, sum.Files, sum.Definitions, sum.Imports, sum.Edges)
	if sum.Incremental {
		text += fmt.Sprintf("; %d files changed since the last index, %d gone", sum.Changed, sum.Gone)
	}
	text += fmt.Sprintf("; %d rows written, %d tombstoned, in %d ms", sum.Written, sum.Tombstoned, sum.ElapsedMS)
	for _, w := range sum.Warnings {
		text += "\nwarning: " + w
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: sum}, nil
}

// errAdminOnly refuses a tool to a caller who is not an admin.
var errAdminOnly = errors.New("this tool needs an admin caller")
