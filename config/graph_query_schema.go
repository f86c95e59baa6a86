package config

import _ "embed"

//go:embed schemas/graph_query.schema.json
var graphQuerySchema []byte

// GraphQuerySchema returns config/schemas/graph_query.schema.json, the static JSON Schema of
// the query DSL. The compiler injects the ontology's names into a copy of it.
func GraphQuerySchema() []byte { return graphQuerySchema }
