// Package ontology embeds the ontology YAML files of this directory (docs/clickhouse.md,
// "Ontology rules", describes the layout) so that the binary needs no data files at run time.
// Load them with the ontology package:
//
//	ont, err := ontology.Load(ontologyfiles.Files())
//
// (importing this package as ontologyfiles, since both are named ontology).
package ontology

import (
	"embed"
	"io/fs"
)

//go:embed ontology.yaml entities/*.yaml relationships/*.yaml
var files embed.FS

// Files returns the embedded ontology directory: ontology.yaml, entities/ and relationships/.
func Files() fs.FS { return files }
