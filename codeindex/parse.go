//go:build cgo

package codeindex

import (
	"fmt"
	"strings"
	"unsafe"

	tshcl "github.com/tree-sitter-grammars/tree-sitter-hcl/bindings/go"
	tskt "github.com/tree-sitter-grammars/tree-sitter-kotlin/bindings/go"
	tslua "github.com/tree-sitter-grammars/tree-sitter-lua/bindings/go"
	tszig "github.com/tree-sitter-grammars/tree-sitter-zig/bindings/go"
	ts "github.com/tree-sitter/go-tree-sitter"
	tsbash "github.com/tree-sitter/tree-sitter-bash/bindings/go"
	tscs "github.com/tree-sitter/tree-sitter-c-sharp/bindings/go"
	tsc "github.com/tree-sitter/tree-sitter-c/bindings/go"
	tscpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"
	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	tsphp "github.com/tree-sitter/tree-sitter-php/bindings/go"
	tspy "github.com/tree-sitter/tree-sitter-python/bindings/go"
	tsrb "github.com/tree-sitter/tree-sitter-ruby/bindings/go"
	tsrs "github.com/tree-sitter/tree-sitter-rust/bindings/go"
	tsscala "github.com/tree-sitter/tree-sitter-scala/bindings/go"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

// treeSitterAvailable is false in a build without cgo, where only Go is indexed.
const treeSitterAvailable = true

// grammar returns the tree-sitter grammar of a language of [languages].
func grammar(name string) unsafe.Pointer {
	switch name {
	case "python":
		return tspy.Language()
	case "typescript":
		return tsts.LanguageTypescript()
	case "tsx":
		return tsts.LanguageTSX()
	case "javascript":
		return tsjs.Language()
	case "java":
		return tsjava.Language()
	case "rust":
		return tsrs.Language()
	case "c":
		return tsc.Language()
	case "cpp":
		return tscpp.Language()
	case "ruby":
		return tsrb.Language()
	case "csharp":
		return tscs.Language()
	case "kotlin":
		return tskt.Language()
	case "php":
		return tsphp.LanguagePHP()
	case "bash":
		return tsbash.Language()
	case "lua":
		return tslua.Language()
	case "scala":
		return tsscala.Language()
	case "zig":
		return tszig.Language()
	case "hcl":
		return tshcl.Language()
	}
	return nil
}

// compiled is a language with its grammar and its compiled query. A compiled query is
// immutable and shared by every worker; each worker has its own parser and cursor.
type compiled struct {
	spec  *language
	lang  *ts.Language
	query *ts.Query
	caps  []string // capture names by index
}

// compile compiles the query of each language. A query that does not compile is a bug of
// this package, reported with its language and position.
func compile(specs []*language) (map[string]*compiled, error) {
	out := map[string]*compiled{}
	for _, s := range specs {
		l := ts.NewLanguage(grammar(s.name))
		q, qerr := ts.NewQuery(l, s.query)
		if qerr != nil {
			closeCompiled(out)
			return nil, fmt.Errorf("codeindex: %s query %d:%d: %s", s.name, qerr.Row+1, qerr.Column+1, qerr.Message)
		}
		out[s.name] = &compiled{spec: s, lang: l, query: q, caps: q.CaptureNames()}
	}
	return out, nil
}

func closeCompiled(m map[string]*compiled) {
	for _, c := range m {
		c.query.Close()
	}
}

// parser parses files of any language; one per goroutine.
type parser struct {
	langs   map[string]*compiled
	parsers map[string]*ts.Parser
	cursor  *ts.QueryCursor
}

func newParser(langs map[string]*compiled) *parser {
	return &parser{langs: langs, parsers: map[string]*ts.Parser{}, cursor: ts.NewQueryCursor()}
}

func (p *parser) close() {
	for _, tp := range p.parsers {
		tp.Close()
	}
	p.cursor.Close()
}

// parse extracts the facts of one file.
func (p *parser) parse(lang, rel string, src []byte) (*fileFacts, error) {
	c := p.langs[lang]
	tp, ok := p.parsers[lang]
	if !ok {
		tp = ts.NewParser()
		if err := tp.SetLanguage(c.lang); err != nil {
			return nil, fmt.Errorf("codeindex: %s grammar: %w", lang, err)
		}
		p.parsers[lang] = tp
	}
	tree := tp.Parse(src, nil)
	if tree == nil {
		return nil, fmt.Errorf("codeindex: %s: the parser gave no tree", rel)
	}
	defer tree.Close()
	root := tree.RootNode()
	ff := &fileFacts{rel: rel, lang: lang, src: src}
	if root.HasError() {
		ff.parseErr = firstError(root, rel)
	}
	text := func(n *ts.Node) string { return n.Utf8Text(src) }
	matches := p.cursor.Matches(c.query, root, src)
	for m := matches.Next(); m != nil; m = matches.Next() {
		var (
			main, name, recv, ipath, iname, ialias, itree *ts.Node
			role, kind                                    string
			wildcard                                      bool
		)
		for i := range m.Captures {
			cp := &m.Captures[i]
			n := &cp.Node
			switch cn := c.caps[cp.Index]; {
			case strings.HasPrefix(cn, "def."):
				main, role, kind = n, "def", cn[4:]
			case cn == "scope", cn == "call":
				main, role = n, cn
			case cn == "import":
				main, role = n, cn
				if ipath == nil && n.Kind() == "import_declaration" {
					ipath = n
				}
			case cn == "name":
				name = n
			case cn == "call.name":
				name = n
			case cn == "call.recv":
				recv = n
			case cn == "import.path":
				ipath = n
			case cn == "import.name":
				iname = n
			case cn == "import.alias":
				ialias = n
			case cn == "import.default":
				ialias, iname = n, nil
				kind = "default"
			case cn == "import.wildcard":
				wildcard = true
			case cn == "import.tree":
				itree = n
			case cn == "base":
				ff.bases = append(ff.bases, baseFact{at: uint32(n.StartByte()), name: baseName(text(n))})
			case cn == "package":
				if ff.pkg == "" {
					ff.pkg = text(n)
				}
			}
		}
		if main == nil {
			continue
		}
		sp := span{start: uint32(main.StartByte()), end: uint32(main.EndByte()),
			startLine: int(main.StartPosition().Row) + 1, endLine: int(main.EndPosition().Row) + 1}
		switch role {
		case "def", "scope":
			if name == nil {
				continue
			}
			ff.defs = append(ff.defs, defFact{span: sp, kind: kind, name: text(name), scope: role == "scope"})
		case "import":
			if itree != nil {
				for _, u := range rustUses(itree, src, "") {
					u.span = sp
					ff.imports = append(ff.imports, u)
				}
				continue
			}
			if ipath == nil {
				continue
			}
			pt := text(ipath)
			if ipath.Kind() == "import_declaration" { // Scala: the path is the statement's words
				pt = strings.Join(strings.Fields(strings.TrimPrefix(pt, "import")), "")
			}
			im := importFact{span: sp, path: unquote(pt), wildcard: wildcard}
			if iname != nil {
				im.name = text(iname)
			} else if kind == "default" {
				im.name = "default"
			}
			if ialias != nil {
				im.alias = text(ialias)
			}
			ff.imports = append(ff.imports, im)
		case "call":
			if name == nil {
				continue
			}
			cf := callFact{at: sp.start, name: text(name)}
			if recv != nil {
				cf.recv = text(recv)
			}
			ff.calls = append(ff.calls, cf)
		}
	}
	return ff, nil
}

// firstError names the first node the parser could not fit into the grammar, as "rel:line:col:
// syntax error" (or "missing X").
func firstError(root *ts.Node, rel string) string {
	cur := root.Walk()
	defer cur.Close()
	for steps := 0; steps < 1<<20; steps++ {
		n := cur.Node()
		if n.IsError() || n.IsMissing() {
			pt := n.StartPosition()
			what := "syntax error"
			if n.IsMissing() {
				what = "missing " + n.Kind()
			}
			return fmt.Sprintf("%s:%d:%d: %s", rel, pt.Row+1, pt.Column+1, what)
		}
		if n.HasError() && cur.GotoFirstChild() {
			continue
		}
		for !cur.GotoNextSibling() {
			if !cur.GotoParent() {
				return rel + ": syntax error"
			}
		}
	}
	return rel + ": syntax error"
}

// maxUsePath bounds the path of a Rust use tree: each level's path repeats the levels above
// it, so a deeper tree (use a::{a::{…}}, thousands deep) would cost memory quadratic in its
// depth. A longer path is left out, with what is under it.
const maxUsePath = 1024

// rustUses expands a Rust use tree (a::b::{c, d as e, f::*}) into one import per name.
func rustUses(n *ts.Node, src []byte, prefix string) []importFact {
	if len(prefix) > maxUsePath || n.EndByte()-n.StartByte() > maxUsePath && n.Kind() != "use_list" && n.Kind() != "scoped_use_list" {
		return nil
	}
	join := func(a, b string) string {
		if a == "" {
			return b
		}
		return a + "::" + b
	}
	switch n.Kind() {
	case "use_as_clause":
		p := n.ChildByFieldName("path")
		a := n.ChildByFieldName("alias")
		if p == nil || a == nil {
			return nil
		}
		full := join(prefix, p.Utf8Text(src))
		return []importFact{{path: full, name: lastSegment(full), alias: a.Utf8Text(src)}}
	case "scoped_use_list":
		base := prefix
		if p := n.ChildByFieldName("path"); p != nil {
			base = join(prefix, p.Utf8Text(src))
		}
		if l := n.ChildByFieldName("list"); l != nil {
			return rustUses(l, src, base)
		}
		return nil
	case "use_list":
		var out []importFact
		for i := range n.NamedChildCount() {
			if ch := n.NamedChild(i); ch != nil {
				out = append(out, rustUses(ch, src, prefix)...)
			}
		}
		return out
	case "use_wildcard":
		full := prefix
		if ch := n.NamedChild(0); ch != nil {
			full = join(prefix, ch.Utf8Text(src))
		}
		return []importFact{{path: full, wildcard: true}}
	case "self":
		return []importFact{{path: prefix, name: lastSegment(prefix)}}
	case "identifier", "scoped_identifier", "crate", "super":
		full := join(prefix, n.Utf8Text(src))
		return []importFact{{path: full, name: lastSegment(full)}}
	}
	return nil
}
