// Package docs checks that the documentation generated from the repository's own data is
// fresh. Its tests regenerate each such file in memory and fail on any difference; set the
// variable a test names to rewrite the file instead:
//
//	UPDATE_ONTOLOGY_DOC=1 go test ./tests/docs -run TestOntologyDocIsFresh
//
// docs/ontology.md is the picture (a Mermaid diagram) and tables of the entities and
// relationship types of config/ontology.
package docs
