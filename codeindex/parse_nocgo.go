//go:build !cgo

package codeindex

import "errors"

// treeSitterAvailable is false in a build without cgo, where only Go is indexed.
const treeSitterAvailable = false

type compiled struct{}

func compile([]*language) (map[string]*compiled, error) {
	return nil, errors.New("codeindex: tree-sitter needs cgo")
}

func closeCompiled(map[string]*compiled) {}

type parser struct{}

func newParser(map[string]*compiled) *parser { return &parser{} }

func (p *parser) close() {}

func (p *parser) parse(_, _ string, _ []byte) (*fileFacts, error) {
	return nil, errors.New("codeindex: tree-sitter needs cgo")
}
