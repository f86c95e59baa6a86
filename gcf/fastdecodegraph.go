package gcf

import (
	"hash/maphash"
	"strconv"
	"strings"
)

// fastDecodeGraph decodes the common shape of a graph-profile payload (LF
// line ends, no session, delta, unchanged flag, comments, blank lines,
// indentation or trailer) into a [Graph] while it walks the lines, without
// first collecting them as the strict decoder does. It reports ok false for
// anything else, valid or not, and the caller then runs the strict decoder,
// which gives the same result or the precise error: so the fast path only
// has to be right when it succeeds, and it accepts only input the strict
// decoder accepts with an equal Document (FuzzFastDecodeGraph checks this).
func fastDecodeGraph(src string, lim Limits) (*Document, bool) {
	if len(src) > lim.MaxInputSize || !strings.HasSuffix(src, "\n") || !plainText(src) {
		return nil, false
	}
	nl := strings.IndexByte(src, '\n')
	header, body := src[:nl], src[nl+1:]
	if len(header) > lim.MaxLineLength || !strings.HasPrefix(header, "GCF profile=graph") || strings.HasSuffix(header, " ") {
		return nil, false
	}
	h, err := parseHeader(header)
	if err != nil || h.Profile != "graph" {
		return nil, false
	}
	for _, f := range h.Fields {
		switch f.Key {
		case "session", "unchanged", "delta":
			// The strict decoder owns sessions, unchanged payloads and deltas.
			if f.Value != "false" {
				return nil, false
			}
		}
	}
	g := graphFromHeader(&h)
	nSyms, nEdges := graphCapacity(&h, strings.Count(body, "\n"))
	g.Symbols = make([]Symbol, 0, nSyms)
	g.Edges = make([]Edge, 0, nEdges)
	// names finds a name declared twice: an open-addressing table of
	// symbol indexes hashed by name. A repeated name may still be a new
	// identity (another kind), but the strict decoder sorts that out.
	names := make([]int32, tableSize(nSyms)) // symbol index+1, 0 = empty
	seed := maphash.MakeSeed()
	const (
		secNone = iota
		secGroup
		secEdges
	)
	sec := secNone
	distance, group := 0, ""
	sectionCount, sectionSeen := -2, 0
	edgesSeen := false
	for body != "" {
		i := strings.IndexByte(body, '\n')
		ln := body[:i]
		body = body[i+1:]
		if ln == "" || len(ln) > lim.MaxLineLength || ln[0] == ' ' || ln[len(ln)-1] == ' ' {
			return nil, false
		}
		if ln[0] == '#' {
			name, ok := strings.CutPrefix(ln, "## ")
			if !ok || sectionCount >= 0 && sectionSeen != sectionCount {
				return nil, false
			}
			name, count, ok := fastSectionHeader(name, lim)
			if !ok {
				return nil, false
			}
			sectionCount, sectionSeen = count, 0
			switch name {
			case "edges":
				if edgesSeen {
					return nil, false
				}
				edgesSeen, sec = true, secEdges
			case "removed", "added", "edges_removed", "edges_added":
				return nil, false
			default:
				if d, ok := groupDistance(name); ok {
					distance, group = d, ""
				} else {
					group = name
				}
				sec = secGroup
			}
			continue
		}
		sectionSeen++
		switch sec {
		case secGroup:
			// "@id kind name score provenance"; ids count up from 0
			// outside a session, so id is also the symbol's index.
			n := len(g.Symbols)
			if n >= lim.MaxElements {
				return nil, false
			}
			var c [4]int
			if spaceCuts(ln, c[:]) != 5 {
				return nil, false
			}
			idTok, kind, name, score, prov := ln[:c[0]], ln[c[0]+1:c[1]], ln[c[1]+1:c[2]], ln[c[2]+1:c[3]], ln[c[3]+1:]
			if len(idTok) < 2 || idTok[0] != '@' || len(idTok) > 10 || !isCanonicalInt(idTok[1:], n) ||
				kind == "" || name == "" || prov == "" || !isScoreToken(score) {
				return nil, false
			}
			if n == cap(g.Symbols) {
				return nil, false // more symbols than the header said
			}
			mask := uint64(len(names) - 1)
			i := maphash.String(seed, name) & mask
			for ; names[i] != 0; i = (i + 1) & mask {
				if g.Symbols[names[i]-1].Name == name {
					return nil, false
				}
			}
			names[i] = int32(n) + 1
			// Field by field: appending a composite literal copies it with
			// a bulk write barrier, which costs more while the collector runs.
			g.Symbols = g.Symbols[:n+1]
			sym := &g.Symbols[n]
			sym.ID, sym.Kind, sym.Name, sym.Score = n, KindExpand(kind), name, parseScore(score)
			sym.Provenance, sym.Distance, sym.Group = prov, distance, group
		case secEdges:
			// "@target<@source type[ status]".
			if len(g.Edges) >= lim.MaxElements {
				return nil, false
			}
			var c [2]int
			nf := spaceCuts(ln, c[:])
			if nf < 2 || nf > 3 {
				return nil, false
			}
			ends, typ, status := ln[:c[0]], ln[c[0]+1:], ""
			if nf == 3 {
				typ, status = ln[c[0]+1:c[1]], ln[c[1]+1:]
			}
			if typ == "" || nf == 3 && status == "" {
				return nil, false
			}
			t, s, ok := cutByte(ends, '<')
			tid, ok1 := atID(t)
			sid, ok2 := atID(s)
			if !ok || !ok1 || !ok2 || tid >= len(g.Symbols) || sid >= len(g.Symbols) {
				return nil, false
			}
			src, tgt := &g.Symbols[sid], &g.Symbols[tid]
			k := len(g.Edges)
			if k == cap(g.Edges) {
				return nil, false // more edges than the header said
			}
			g.Edges = g.Edges[:k+1]
			e := &g.Edges[k]
			e.Type, e.Status, e.Source, e.SourceKind, e.SourceID = typ, status, src.Name, src.Kind, sid
			e.Target, e.TargetKind, e.TargetID = tgt.Name, tgt.Kind, tid
		default:
			return nil, false
		}
	}
	if sectionCount >= 0 && sectionSeen != sectionCount {
		return nil, false
	}
	if n, ok := headerInt(&h, "symbols"); ok && n != len(g.Symbols) {
		return nil, false
	}
	if n, ok := headerInt(&h, "edges"); ok && n != len(g.Edges) {
		return nil, false
	}
	return &Document{Header: h, Graph: g}, true
}

// fastSectionHeader splits "name" or "name [count]" as parseGroupHeader
// does, reporting ok false for anything else ("[?]", fields, errors).
func fastSectionHeader(s string, lim Limits) (string, int, bool) {
	name, after, found := cutByte(s, ' ')
	if !isBareKey(name) {
		return "", 0, false
	}
	if !found {
		return name, -2, true
	}
	if len(after) < 3 || after[0] != '[' || after[len(after)-1] != ']' {
		return "", 0, false
	}
	cnt := after[1 : len(after)-1]
	if !isCountValue(cnt) {
		return "", 0, false
	}
	n, err := strconv.Atoi(cnt)
	if err != nil || n > lim.MaxElements {
		return "", 0, false
	}
	return name, n, true
}
