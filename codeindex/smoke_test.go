package codeindex

import (
	"fmt"
	ts "github.com/tree-sitter/go-tree-sitter"
	"os"
	"testing"
)

func TestSmoke(t *testing.T) {
	dir := os.Getenv("SMOKE_DIR")
	if dir == "" {
		t.Skip()
	}
	g, st, err := IndexTree(t.Context(), dir, Options{TraversalPath: "1/", ProjectID: 1})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("%+v\n", st)
	kinds := map[string]int{}
	for _, e := range g.Edges {
		kinds[e.Kind+" "+e.FromKind+"->"+e.ToKind]++
	}
	fmt.Println(kinds)
	if os.Getenv("SMOKE_V") != "" {
		name := map[int64]string{}
		for _, d := range g.Definitions {
			name[d.ID] = d.FQN
			fmt.Println("DEF", d.DefinitionType, d.FQN, d.FilePath, d.StartLine)
		}
		for _, i := range g.Imports {
			name[i.ID] = "import:" + i.ImportPath + ":" + i.IdentifierName
		}
		for _, f := range g.Files {
			name[f.ID] = f.Path
		}
		for _, e := range g.Edges {
			if e.Kind == "CALLS" || e.Kind == "EXTENDS" || (e.Kind == "IMPORTS" && e.FromKind == "ImportedSymbol") || (e.Kind == "DEFINES" && e.FromKind == "Definition") {
				fmt.Println(e.Kind, name[e.From], "->", name[e.To])
			}
		}
	}
}

func TestSexp(t *testing.T) {
	f := os.Getenv("SEXP_FILE")
	if f == "" {
		t.Skip()
	}
	src, _ := os.ReadFile(f)
	p := ts.NewParser()
	p.SetLanguage(ts.NewLanguage(grammar(os.Getenv("SEXP_LANG"))))
	tree := p.Parse(src, nil)
	fmt.Println(tree.RootNode().ToSexp())
}
