package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"time"
)

// explained is the explain step's answer: DuckDB's profile of one case's statement (or of a
// variant read from a file) and its wall times, with the projection's digest to check a variant
// against the case.
type explained struct {
	Case    string
	Plan    string
	WallMS  []float64
	Rows    int
	Digest  string
	Against string // the digest of the case's own statement
}

// explain profiles one case on the versioned layout, for trying a better DuckDB statement.
func explain(dir, name, variantFile string, rounds int) (*explained, error) {
	callers, err := loadCallers(dir)
	if err != nil {
		return nil, err
	}
	var sh *shape
	for _, cl := range callers {
		for _, s := range shapes(sqlgen{c: cl, versioned: true}) {
			if s.name == name {
				sh = &s
			}
		}
	}
	if sh == nil {
		return nil, fmt.Errorf("-case %q: no such question/caller", name)
	}
	db, err := sql.Open("duckdb", duckFile(dir)+"?access_mode=READ_ONLY")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	base, err := runDuck(ctx, db, *sh)
	if err != nil {
		return nil, err
	}
	run := *sh
	if variantFile != "" {
		b, err := os.ReadFile(variantFile)
		if err != nil {
			return nil, err
		}
		run.duck = string(b)
	}
	out := &explained{Case: name, Against: base.digest()}
	for i := 0; i < rounds; i++ {
		start := time.Now()
		p, err := runDuck(ctx, db, run)
		if err != nil {
			return nil, err
		}
		out.WallMS = append(out.WallMS, float64(time.Since(start).Microseconds())/1000)
		out.Rows, out.Digest = len(p), p.digest()
	}
	var kind, plan string
	if err := db.QueryRowContext(ctx, "EXPLAIN ANALYZE "+run.duck).Scan(&kind, &plan); err != nil {
		return nil, fmt.Errorf("explain: %w", err)
	}
	out.Plan = plan
	return out, nil
}
