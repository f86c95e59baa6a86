package gcf

import (
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/graphwire/graphwire/config"
	"github.com/graphwire/graphwire/graphresponse"
)

// fastGraphResponse decodes the common shape of a gcf-graph payload (LF line
// ends, distance groups, a counted or uncounted edge section, no session,
// delta, comments or trailer) straight into a response. It reports ok false
// for anything else, valid or not, and the caller then runs the strict
// decoder, which produces the same result or the precise error. It accepts
// only input the strict decoder accepts with the same outcome
// (FuzzFastGraph checks this).
func fastGraphResponse(src string, lim Limits) (*graphresponse.Response, bool) {
	if len(src) > lim.MaxInputSize || !strings.HasSuffix(src, "\n") || !plainText(src) {
		return nil, false
	}
	nl := strings.IndexByte(src, '\n')
	header, body := src[:nl], src[nl+1:]
	rest, ok := strings.CutPrefix(header, "GCF profile=graph")
	if !ok || len(header) > lim.MaxLineLength {
		return nil, false
	}
	var keys [24]string
	nkeys := 0
	symbols, edges := -1, -1
	r := &graphresponse.Response{FormatVersion: config.RawVersion()}
	var hasMore, hasPag bool
	var cursor *string
	for rest != "" {
		if rest[0] != ' ' {
			return nil, false
		}
		rest = rest[1:]
		pair := rest
		if i := strings.IndexByte(rest, ' '); i >= 0 {
			pair, rest = rest[:i], rest[i:]
		} else {
			rest = ""
		}
		k, v, ok := strings.Cut(pair, "=")
		if !ok || !isBareKey(k) || !isToken(v) || nkeys == len(keys) || k == "profile" {
			return nil, false
		}
		for _, seen := range keys[:nkeys] {
			if seen == k {
				return nil, false
			}
		}
		keys[nkeys] = k
		nkeys++
		switch k {
		case "symbols", "edges", "budget", "tokens":
			if !isCountValue(v) {
				return nil, false
			}
			n, _ := strconv.Atoi(v)
			if k == "symbols" {
				symbols = n
			} else if k == "edges" {
				edges = n
			}
		case "session", "delta", "unchanged":
			if v != "false" {
				return nil, false
			}
		case "query_type":
			r.QueryType = v
		case "has_more":
			hasMore, hasPag = v == "true", true
		case "next_cursor":
			c := v
			cursor, hasPag = &c, true
		}
	}
	if hasPag {
		r.Pagination = &graphresponse.Pagination{HasMore: hasMore, Truncated: hasMore, NextCursor: cursor}
	}
	lines := strings.Count(body, "\n")
	nodeCap, edgeCap := lines, lines
	if symbols >= 0 && symbols < nodeCap {
		nodeCap = symbols
	}
	if edges >= 0 && edges < edgeCap {
		edgeCap = edges
	}
	r.Nodes = make([]graphresponse.Node, 0, nodeCap)
	r.Edges = make([]graphresponse.Edge, 0, edgeCap)
	// idents holds each node's identity, for the duplicate check: a linear
	// scan over the first linearNodes (kept on the stack), then an
	// open-addressing table of node positions hashed by id, since equal
	// identities have equal ids.
	var identBuf [linearNodes]identity
	idents := identBuf[:0]
	var slots []int32 // node position + 1, 0 when empty
	var shift uint8
	// insert records node j; false means a duplicate identity, a full
	// table or a long probe chain, all left to the strict decoder.
	insert := func(j int, id int64) bool {
		if 2*j >= len(slots) {
			return false
		}
		mask := len(slots) - 1
		h := int((uint64(id) ^ uint64(len(idents[j].kind))<<56) * 0x9E3779B97F4A7C15 >> shift)
		for range 64 {
			k := slots[h] - 1
			if k < 0 {
				slots[h] = int32(j) + 1
				return true
			}
			if idents[k] == idents[j] {
				return false
			}
			h = (h + 1) & mask
		}
		return false
	}
	const (
		secNone = iota
		secGroup
		secEdges
	)
	sec := secNone
	edgesSeen := false
	edgeCount := -1
	for body != "" {
		i := strings.IndexByte(body, '\n')
		ln := body[:i]
		body = body[i+1:]
		if ln == "" || len(ln) > lim.MaxLineLength || ln[0] == ' ' || ln[len(ln)-1] == ' ' || ln[0] == '#' && !strings.HasPrefix(ln, "## ") {
			return nil, false
		}
		if name, ok := strings.CutPrefix(ln, "## "); ok {
			if name == "edges" || strings.HasPrefix(name, "edges [") {
				if edgesSeen {
					return nil, false
				}
				edgesSeen, sec = true, secEdges
				if name != "edges" {
					cnt, ok := strings.CutSuffix(name[7:], "]")
					if !ok || !isCountValue(cnt) {
						return nil, false
					}
					edgeCount, _ = strconv.Atoi(cnt)
				}
				continue
			}
			if _, ok := groupDistance(name); !ok {
				return nil, false
			}
			sec = secGroup
			continue
		}
		switch sec {
		case secGroup:
			if len(r.Nodes) >= lim.MaxElements {
				return nil, false
			}
			f1 := strings.IndexByte(ln, ' ')
			if f1 < 2 || ln[0] != '@' || !isCanonicalInt(ln[1:f1], len(r.Nodes)) {
				return nil, false
			}
			kind, rest, _ := cutByte(ln[f1+1:], ' ')
			name, rest, _ := cutByte(rest, ' ')
			score, prov, _ := cutByte(rest, ' ')
			if kind == "" || name == "" || prov == "" || strings.IndexByte(prov, ' ') >= 0 || !isScoreToken(score) {
				return nil, false
			}
			typ, idText, ok := cutByte(name, ':')
			id, err := strconv.ParseInt(idText, 10, 64)
			if !ok || err != nil {
				return nil, false
			}
			// Duplicate identities are strict-decoder errors.
			idn := identity{KindAbbrev(kind), name}
			if slots == nil {
				for _, x := range idents {
					if x == idn {
						return nil, false
					}
				}
				if len(idents) == linearNodes {
					idents = append(make([]identity, 0, max(nodeCap, 2*linearNodes)), idents...)
					b := bits.Len(uint(2*cap(idents) - 1))
					shift, slots = uint8(64-b), make([]int32, 1<<b)
					for j := range idents {
						insert(j, r.Nodes[j].ID)
					}
				}
			}
			idents = append(idents, idn)
			if slots != nil && !insert(len(idents)-1, id) {
				return nil, false
			}
			r.Nodes = append(r.Nodes, graphresponse.Node{Type: typ, ID: id, Props: []graphresponse.Member{}})
		case secEdges:
			if len(r.Edges) >= lim.MaxElements {
				return nil, false
			}
			ends, rest, _ := cutByte(ln, ' ')
			typ, status, _ := cutByte(rest, ' ')
			if typ == "" || strings.IndexByte(status, ' ') >= 0 || (status == "" && strings.HasSuffix(rest, " ")) {
				return nil, false
			}
			t, s, ok := cutByte(ends, '<')
			tid, ok1 := atID(t)
			sid, ok2 := atID(s)
			if !ok || !ok1 || !ok2 || tid >= len(r.Nodes) || sid >= len(r.Nodes) {
				return nil, false
			}
			if typ == "_" {
				typ = ""
			}
			from, to := &r.Nodes[sid], &r.Nodes[tid]
			r.Edges = append(r.Edges, graphresponse.Edge{From: from.Type, FromID: from.ID, To: to.Type, ToID: to.ID, Type: typ})
		default:
			return nil, false
		}
	}
	if symbols >= 0 && symbols != len(r.Nodes) || edges >= 0 && edges != len(r.Edges) || edgeCount >= 0 && edgeCount != len(r.Edges) {
		return nil, false
	}
	return r, true
}

// isCanonicalInt reports whether s is the canonical decimal form of n.
func isCanonicalInt(s string, n int) bool {
	if s == "" || len(s) > 10 || (len(s) > 1 && s[0] == '0') {
		return false
	}
	v := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
		v = v*10 + int(s[i]-'0')
	}
	return v == n
}

// plainText reports whether s is valid UTF-8 without CR or TAB. It checks
// eight ASCII bytes at a time; a non-ASCII byte sends the rest of s to
// utf8.ValidString.
func plainText(s string) bool {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
		crs   = '\r' * ones
		tabs  = '\t' * ones
	)
	// hasZero reports whether some byte of x is zero.
	hasZero := func(x uint64) bool { return (x-ones)&^x&highs != 0 }
	i := 0
	for ; i+8 <= len(s); i += 8 {
		b := s[i : i+8]
		w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		if w&highs != 0 {
			break
		}
		if hasZero(w^crs) || hasZero(w^tabs) {
			return false
		}
	}
	for ; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return utf8.ValidString(s[i:]) && !strings.ContainsAny(s[i:], "\r\t")
		}
		if c == '\r' || c == '\t' {
			return false
		}
	}
	return true
}

// cutByte is strings.Cut for a one-byte separator.
func cutByte(s string, sep byte) (before, after string, found bool) {
	if i := strings.IndexByte(s, sep); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return s, "", false
}
