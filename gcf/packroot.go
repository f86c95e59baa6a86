package gcf

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

func validRootString(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsAny(s, "\t\n")
}

// CanonicalRecords returns the gcf-pack-root-v1 bytes of g (§2.10.1): sorted
// symbol records, then sorted edge records.
func CanonicalRecords(g *Graph) ([]byte, error) {
	syms, edges, err := canonicalRecords(g, nil)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, 64*(len(syms)+len(edges)))
	for _, r := range syms {
		out = append(out, r...)
	}
	for _, r := range edges {
		out = append(out, r...)
	}
	return out, nil
}

func canonicalRecords(g *Graph, buf []byte) (syms, edges [][]byte, err error) {
	idx := newEndpointIndex(len(g.Symbols))
	kinds := make([]string, len(g.Symbols))
	for i := range g.Symbols {
		s := &g.Symbols[i]
		kind := KindAbbrev(s.Kind)
		kinds[i] = kind
		if !validRootString(kind) || !validRootString(s.Name) || !validRootString(s.Provenance) {
			return nil, nil, newOpError("pack root", ErrInvalidToken, "symbol "+strconv.Itoa(i)+" has TAB, LF or invalid UTF-8")
		}
		if !isFinite(s.Score) {
			return nil, nil, newOpError("pack root", ErrNonFinite, "symbol "+strconv.Itoa(i)+" score")
		}
		idx.add(kind, s.Name, i)
		start := len(buf)
		buf = append(buf, "S\t"...)
		buf = append(buf, kind...)
		buf = append(buf, '\t')
		buf = append(buf, s.Name...)
		buf = append(buf, '\t')
		buf = appendFloat(buf, s.Score)
		buf = append(buf, '\t')
		buf = append(buf, s.Provenance...)
		buf = append(buf, '\t')
		buf = strconv.AppendInt(buf, int64(s.Distance), 10)
		buf = append(buf, '\n')
		syms = append(syms, buf[start:len(buf):len(buf)])
	}
	for i := range g.Edges {
		e := &g.Edges[i]
		if !validRootString(e.Type) {
			return nil, nil, newOpError("pack root", ErrInvalidToken, "edge "+strconv.Itoa(i)+" type")
		}
		src, err := idx.resolve(e.SourceKind, e.Source)
		if err != nil {
			return nil, nil, newOpError("pack root", errSentinel(err), errDetail(err))
		}
		tgt, err := idx.resolve(e.TargetKind, e.Target)
		if err != nil {
			return nil, nil, newOpError("pack root", errSentinel(err), errDetail(err))
		}
		start := len(buf)
		buf = append(buf, "E\t"...)
		buf = append(buf, kinds[src]...)
		buf = append(buf, '\t')
		buf = append(buf, g.Symbols[src].Name...)
		buf = append(buf, '\t')
		buf = append(buf, kinds[tgt]...)
		buf = append(buf, '\t')
		buf = append(buf, g.Symbols[tgt].Name...)
		buf = append(buf, '\t')
		buf = append(buf, e.Type...)
		buf = append(buf, '\n')
		edges = append(edges, buf[start:len(buf):len(buf)])
	}
	slices.SortFunc(syms, bytes.Compare)
	slices.SortFunc(edges, bytes.Compare)
	return syms, edges, nil
}

// PackRoot returns the gcf-pack-root-v1 content root of g:
// "sha256:" + 64 lowercase hex digits. It hashes the scores it is given;
// callers that publish a root for a graph they send hash [Quantize]d scores.
func PackRoot(g *Graph) (string, error) {
	syms, edges, err := canonicalRecords(g, nil)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, r := range syms {
		h.Write(r)
	}
	for _, r := range edges {
		h.Write(r)
	}
	return formatRoot(h.Sum(nil)), nil
}

func formatRoot(sum []byte) string {
	var b [7 + 64]byte
	copy(b[:], "sha256:")
	hex.Encode(b[7:], sum)
	return string(b[:])
}

// ValidRoot reports whether root has the exact syntax sha256:<64 lowercase
// hex digits>; anything else is an unknown root.
func ValidRoot(root string) bool {
	hexPart, ok := strings.CutPrefix(root, "sha256:")
	if !ok || len(hexPart) != 64 {
		return false
	}
	for i := 0; i < len(hexPart); i++ {
		c := hexPart[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
