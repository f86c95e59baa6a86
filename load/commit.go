package load

import (
	"context"
	"fmt"
	"strings"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/loadstate"
	"github.com/graphwire/graphwire/ontology"
)

// commit attaches the deltas a manifest lists to their graph tables, inside a load record.
// Attaching copies parts by hard link and leaves the delta as it is, so a commit cut short is
// finished by running it again: rows attached twice have the same key and _version and
// collapse into one on a FINAL read.
func commit(ctx context.Context, e Engine, ont *ontology.Ontology, opts Options, prefix string, totals loadstate.Totals, recovering bool) error {
	res, err := collect(ctx, e, &compiler.Query{SQL: "SELECT target, delta FROM " + prefix + "manifest ORDER BY n"})
	if err != nil {
		return fmt.Errorf("load: read manifest: %w", err)
	}
	tables := map[string]bool{}
	for _, ent := range ont.Entities {
		tables[ent.Table] = true
	}
	tables[ont.EdgeTable], tables[ont.EdgeTableByTarget] = true, true
	source := opts.Source
	if recovering {
		source += " (recovered)"
	}
	if opts.Exclusive != nil {
		opts.Exclusive.Lock()
		defer opts.Exclusive.Unlock()
	}
	ld, err := loadstate.Begin(ctx, e, ont, source)
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	for _, r := range res.Rows {
		target, _ := r[0].(string)
		delta, _ := r[1].(string)
		if !tables[target] || !stagingName(delta) || !strings.HasPrefix(delta, prefix) {
			return fmt.Errorf("load: manifest %s names %q → %q, not a graph table and its delta", prefix, target, delta)
		}
		opts.Checkpoint("attach " + target)
		if opts.Shards != nil {
			if err := opts.Shards.Attach(ctx, target, delta); err != nil {
				return fmt.Errorf("load: attach %s: %w", target, err)
			}
			continue
		}
		if err := e.Exec(ctx, "ALTER TABLE "+target+" ATTACH PARTITION tuple() FROM "+delta); err != nil {
			return fmt.Errorf("load: attach %s: %w", target, err)
		}
	}
	opts.Checkpoint("attached")
	if err := ld.Complete(ctx, totals); err != nil {
		return fmt.Errorf("load: %w", err)
	}
	opts.Checkpoint("complete")
	// The manifest goes first: once it is gone, nothing will attach these deltas again.
	if err := e.Exec(ctx, "DROP TABLE IF EXISTS "+prefix+"manifest SYNC"); err != nil {
		return fmt.Errorf("load: drop manifest: %w", err)
	}
	return nil
}

// Recover finishes the loads that were killed while attaching (a manifest exists) and drops
// the staging tables of loads that stopped before that. [Load] calls it first; call it to
// bring a graph back after a crash without loading anything.
func Recover(ctx context.Context, e Engine, ont *ontology.Ontology, opts Options) error {
	_, err := recoverLoads(ctx, e, ont, opts)
	return err
}

// recoverLoads is [Recover], returning the loads it finished.
func recoverLoads(ctx context.Context, e Engine, ont *ontology.Ontology, opts Options) ([]Recovered, error) {
	opts = opts.withDefaults()
	names, err := stagingTables(ctx, e, stagePrefix)
	if err != nil {
		return nil, fmt.Errorf("load: recover: %w", err)
	}
	var done []Recovered
	prefixes := map[string]bool{}
	manifests := map[string]bool{}
	for _, n := range names {
		rest := strings.TrimPrefix(n, stagePrefix)
		i := strings.IndexByte(rest, '_')
		if i < 0 {
			continue
		}
		p := stagePrefix + rest[:i+1]
		prefixes[p] = true
		if n == p+"manifest" {
			manifests[p] = true
		}
	}
	for _, p := range sortedKeys(prefixes) {
		if manifests[p] {
			version, err := count(ctx, e, "SELECT v FROM "+p+"params")
			if err != nil {
				return done, fmt.Errorf("load: recover %s: %w", p, err)
			}
			nodes, edges, err := manifestRows(ctx, e, ont, p)
			if err != nil {
				return done, fmt.Errorf("load: recover %s: %w", p, err)
			}
			opts.Logger.Warn("load_recovered", "staging", p, "version", version, "nodes", nodes, "edges", edges)
			totals := loadstate.Totals{Version: uint64(version), Nodes: uint64(nodes), Edges: uint64(edges)}
			if err := commit(ctx, e, ont, opts, p, totals, true); err != nil {
				return done, err
			}
			done = append(done, Recovered{Staging: p, Version: uint64(version), Nodes: nodes, Edges: edges})
		}
		if err := dropPrefix(ctx, e, p); err != nil {
			return done, fmt.Errorf("load: recover: %w", err)
		}
		if opts.Shards != nil {
			if err := opts.Shards.Drop(ctx, p); err != nil {
				return done, fmt.Errorf("load: recover: %w", err)
			}
		}
	}
	return done, nil
}
