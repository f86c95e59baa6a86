package load

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/graphwire/graphwire/ontology"
)

// ExportOptions configures [Export].
type ExportOptions struct {
	// Format of the files written. Default JSONL.
	Format Format
	// Types lists the entity and relationship names to export. Empty means every type that
	// has live rows.
	Types []string
	// TraversalPath, when set, keeps only rows whose traversal_path starts with it.
	TraversalPath string
}

// Export writes the live rows of the graph e holds to dir, one file per entity or
// relationship type named Type.ext, in the columns [Load] reads: what Export writes, Load
// reads back to the same graph, and a second Export of that graph writes the same bytes.
// Rows are ordered by their key. Each file is written by the engine's own format writer.
func Export(ctx context.Context, e Engine, ont *ontology.Ontology, dir string, opts ExportOptions) ([]FileReport, error) {
	if opts.Format == "" {
		opts.Format = JSONL
	}
	if opts.Format.engineFormat() == "" {
		return nil, fmt.Errorf("load: export: %w %q", ErrFormat, opts.Format)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("load: export: %w", err)
	}
	if strings.ContainsFunc(abs, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return nil, fmt.Errorf("load: export: %q: control character in the path", dir)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("load: export: %w", err)
	}
	want := map[string]bool{}
	for _, t := range opts.Types {
		want[strings.ToLower(t)] = true
	}
	tok := make([]byte, 6)
	if _, err := rand.Read(tok); err != nil {
		return nil, fmt.Errorf("load: export: %w", err)
	}
	// The path filter is a value: it reaches the statements through a one-row table,
	// because Exec binds no parameters.
	params := stagePrefix + hex.EncodeToString(tok) + "_params"
	if err := e.Exec(ctx, "CREATE TABLE "+params+" (prefix String) ENGINE = MergeTree ORDER BY tuple()"); err != nil {
		return nil, fmt.Errorf("load: export: %w", err)
	}
	defer e.Exec(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+params+" SYNC")
	if err := e.Insert(ctx, params, []string{"prefix"}, [][]any{{opts.TraversalPath}}); err != nil {
		return nil, fmt.Errorf("load: export: %w", err)
	}
	pathFilter := "startsWith(traversal_path, (SELECT prefix FROM " + params + "))"
	var out []FileReport
	write := func(typ, cols, from, order string, global bool) error {
		filter := pathFilter
		if global { // no traversal_path: all rows, or none under a path filter
			filter = "(SELECT prefix FROM " + params + ") = ''"
		}
		n, err := count(ctx, e, "SELECT count() FROM "+from+" WHERE "+filter)
		if err != nil {
			return fmt.Errorf("load: export %s: %w", typ, err)
		}
		if n == 0 && !want[strings.ToLower(typ)] {
			return nil
		}
		path := filepath.Join(abs, typ+"."+string(opts.Format))
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("load: export %s: %w", typ, err)
		}
		if err := e.Exec(ctx, "INSERT INTO FUNCTION file("+quote(path)+", "+opts.Format.engineFormat()+") SELECT "+cols+
			" FROM "+from+" WHERE "+filter+" ORDER BY "+order+
			" SETTINGS engine_file_truncate_on_insert = 1, output_format_parquet_compression_method = 'zstd'"); err != nil {
			return fmt.Errorf("load: export %s: %w", typ, err)
		}
		out = append(out, FileReport{Path: path, Type: typ, Format: opts.Format, Rows: n})
		return nil
	}
	for _, ent := range ont.Entities {
		if len(want) > 0 && !want[strings.ToLower(ent.Name)] {
			continue
		}
		var cols []string
		for _, c := range entityColumns(ent) {
			if c.name != "_deleted" {
				cols = append(cols, ident(c.name))
			}
		}
		from := "(SELECT * FROM " + ent.Table + " FINAL WHERE _deleted = false)"
		if err := write(ent.Name, strings.Join(cols, ", "), from, entityKey(ent), !ent.Namespaced()); err != nil {
			return out, err
		}
	}
	for _, rel := range ont.Relationships {
		if len(want) > 0 && !want[strings.ToLower(rel.Name)] {
			continue
		}
		from := "(SELECT * FROM " + ont.EdgeTable + " FINAL WHERE _deleted = false AND relationship_kind = " + quote(rel.Name) + ")"
		cols := "traversal_path, source_kind, source_id, target_kind, target_id, _version"
		if err := write(rel.Name, cols, from, edgeKey, false); err != nil {
			return out, err
		}
	}
	for t := range want {
		if !exportable(ont, t) {
			return out, fmt.Errorf("load: export: %w %q", ErrUnknownType, t)
		}
	}
	return out, nil
}

func exportable(ont *ontology.Ontology, lower string) bool {
	for _, e := range ont.Entities {
		if strings.ToLower(e.Name) == lower {
			return true
		}
	}
	for _, r := range ont.Relationships {
		if strings.ToLower(r.Name) == lower {
			return true
		}
	}
	return false
}
