package gcf

import (
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
	if len(src) > lim.MaxInputSize || !strings.HasSuffix(src, "\n") ||
		strings.ContainsAny(src, "\r\t") || !utf8.ValidString(src) {
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
	var ids map[identity]struct{}
	// idents holds each node's identity, for the duplicate check.
	idents := make([]identity, 0, nodeCap)
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
			kind, rest, _ := strings.Cut(ln[f1+1:], " ")
			name, rest, _ := strings.Cut(rest, " ")
			score, prov, _ := strings.Cut(rest, " ")
			if kind == "" || name == "" || prov == "" || strings.IndexByte(prov, ' ') >= 0 || !isScoreToken(score) {
				return nil, false
			}
			typ, idText, ok := strings.Cut(name, ":")
			id, err := strconv.ParseInt(idText, 10, 64)
			if !ok || err != nil {
				return nil, false
			}
			// Duplicate identities are strict-decoder errors.
			idn := identity{KindAbbrev(kind), name}
			if len(idents) < linearNodes {
				for _, x := range idents {
					if x == idn {
						return nil, false
					}
				}
			} else {
				if ids == nil {
					ids = make(map[identity]struct{}, nodeCap)
					for _, x := range idents {
						ids[x] = struct{}{}
					}
				}
				if _, dup := ids[idn]; dup {
					return nil, false
				}
				ids[idn] = struct{}{}
			}
			idents = append(idents, idn)
			r.Nodes = append(r.Nodes, graphresponse.Node{Type: typ, ID: id, Props: []graphresponse.Member{}})
		case secEdges:
			if len(r.Edges) >= lim.MaxElements {
				return nil, false
			}
			ends, rest, _ := strings.Cut(ln, " ")
			typ, status, _ := strings.Cut(rest, " ")
			if typ == "" || strings.IndexByte(status, ' ') >= 0 || (status == "" && strings.HasSuffix(rest, " ")) {
				return nil, false
			}
			t, s, ok := strings.Cut(ends, "<")
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
