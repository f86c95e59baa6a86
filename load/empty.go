package load

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode"
)

// blankRows reports whether the file at path holds no rows: nothing but white space, or for
// CSV a header line and nothing but white space after it (header then holds its names). The
// engine's schema inference refuses such a file (CANNOT_EXTRACT_TABLE_STRUCTURE), so the load
// does not hand it over. A Parquet file always has rows as far as this is concerned: an empty
// Parquet file is not Parquet, and the engine reports that. It reads only as far as the first
// row.
func blankRows(path string, f Format) (blank bool, header []string, err error) {
	if f != JSONL && f != CSV {
		return false, nil, nil
	}
	file, err := os.Open(path)
	if err != nil {
		return false, nil, fmt.Errorf("load: %w", err)
	}
	defer file.Close()
	r := bufio.NewReader(file)
	if f == CSV {
		cr := csv.NewReader(r)
		cr.FieldsPerRecord = -1
		header, err = cr.Read()
		if errors.Is(err, io.EOF) {
			return true, nil, nil
		}
		if err != nil {
			return false, nil, nil // the engine reports what is wrong with it
		}
		for {
			rec, err := cr.Read()
			if errors.Is(err, io.EOF) {
				return true, header, nil
			}
			if err != nil || slices.ContainsFunc(rec, func(s string) bool { return strings.TrimSpace(s) != "" }) {
				return false, nil, nil
			}
		}
	}
	for {
		c, _, err := r.ReadRune()
		if errors.Is(err, io.EOF) {
			return true, nil, nil
		}
		if err != nil {
			return false, nil, fmt.Errorf("load: read %s: %w", path, err)
		}
		if !unicode.IsSpace(c) {
			return false, nil, nil
		}
	}
}

// blankFile stands for a file without rows: its columns (a CSV header's) are checked like a
// file's, and its type gets an empty delta, so that a replace load (Options.Replace) treats
// the type as loaded with no row in the scope, as graphwire index expects of a file without
// imports.
func (s *stage) blankFile(ctx context.Context, t *target, cols []column, header []string) error {
	if header != nil {
		if err := columnIssues(t, cols, header); err != nil {
			return err
		}
	}
	if t.entity != nil {
		return s.delta(ctx, t.entity.Table, entityKey(t.entity))
	}
	return s.delta(ctx, s.ont.EdgeTable, edgeKey)
}

// columnIssues refuses a file whose columns (have) hold one that is no column of the type,
// or lack a required one. Such a file-level problem refuses the load even with SkipInvalid:
// no row of the file can be read right.
func columnIssues(t *target, cols []column, have []string) error {
	var issues []Issue
	byName := map[string]column{}
	for _, c := range cols {
		byName[c.name] = c
	}
	for _, h := range have {
		if _, ok := byName[h]; !ok {
			issues = append(issues, Issue{File: t.src.Path, Row: -1, Column: h, Err: ErrUnknownProperty})
		}
	}
	for _, c := range cols {
		if c.required && !slices.Contains(have, c.name) {
			issues = append(issues, Issue{File: t.src.Path, Row: -1, Column: c.name, Err: ErrMissing})
		}
	}
	if len(issues) > 0 {
		return &ValidationError{Issues: issues, Count: int64(len(issues))}
	}
	return nil
}
