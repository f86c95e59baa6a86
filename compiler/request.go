package compiler

import (
	"encoding/json"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// Query types.
const (
	qTraversal   = "traversal"
	qAggregation = "aggregation"
	qPathFinding = "path_finding"
	qNeighbors   = "neighbors"
)

// request is the typed form of a schema-valid DSL document (stage 2, step 2).
type request struct {
	queryType string
	nodes     []*nodeSel
	rels      []*relSel
	hasRels   bool
	aggs      []*aggSel
	groupBy   []*groupKey
	path      *pathCfg
	neighbors *nbrCfg
	limit     int
	hasLimit  bool
	cursor    *cursorCfg
	orderBy   string
	aggSort   string
	dynAll    bool
	debugSQL  bool
	present   map[string]bool
	raw       map[string]any
}

type nodeSel struct {
	idx        int
	alias      string
	entityName string
	ent        *entity
	colsAll    bool
	cols       []string // nil: default columns
	filters    map[string]any
	nodeIDs    []int64
	hasIDs     bool
	idRange    *[2]int64
	idProperty string
	preds      []*pred
}

type relSel struct {
	idx       int
	types     []string // nil with star
	star      bool
	from, to  string
	direction string
	minHops   int
	maxHops   int
	filters   map[string]any
	preds     []*pred
	concrete  []string // expanded relationship types
}

type aggSel struct {
	fn     string
	target string // alias
	prop   string // "" for node targets
	as     string
	name   string
}

type groupKey struct {
	key      string
	alias    string
	prop     string
	truncate string
	as       string
	name     string
}

type pathCfg struct {
	from, to string
	maxDepth int
	relTypes []string
	hasTypes bool
	star     bool
}

type nbrCfg struct {
	direction string
	relTypes  []string
	hasTypes  bool
}

type cursorCfg struct {
	pageSize int
	after    string
	hasAfter bool
}

func str(v any) string { s, _ := v.(string); return s }

// intOf reads a JSON integer (json.Number, zero fraction allowed) or a digit string.
func intOf(v any) (int64, bool) {
	switch x := v.(type) {
	case json.Number:
		if n, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return n, true
		}
		r, ok := new(big.Rat).SetString(string(x))
		if !ok || !r.IsInt() || !r.Num().IsInt64() {
			return 0, false
		}
		return r.Num().Int64(), true
	case string:
		n, err := strconv.ParseInt(x, 10, 64)
		return n, err == nil
	}
	return 0, false
}

func toRequest(doc map[string]any) (*request, error) {
	r := &request{raw: doc, present: map[string]bool{}}
	for k := range doc {
		r.present[k] = true
	}
	r.queryType = str(doc["query_type"])
	for i, nv := range doc["nodes"].([]any) {
		m := nv.(map[string]any)
		n := &nodeSel{idx: i, alias: str(m["id"]), entityName: str(m["entity"]), idProperty: str(m["id_property"])}
		switch c := m["columns"].(type) {
		case string:
			n.colsAll = true
		case []any:
			for _, x := range c {
				n.cols = append(n.cols, str(x))
			}
		}
		if f, ok := m["filters"].(map[string]any); ok {
			n.filters = f
		}
		if ids, ok := m["node_ids"].([]any); ok {
			n.hasIDs = true
			for j, x := range ids {
				id, ok := intOf(x)
				if !ok {
					return nil, newErr(ptr("nodes", i, "node_ids", j), ErrValueTypeMismatch, "id is outside the int64 range; graph ids are 64-bit signed integers, so no node has it")
				}
				n.nodeIDs = append(n.nodeIDs, id)
			}
			slices.Sort(n.nodeIDs)
			n.nodeIDs = slices.Compact(n.nodeIDs)
		}
		if rg, ok := m["id_range"].(map[string]any); ok {
			s, ok1 := intOf(rg["start"])
			e, ok2 := intOf(rg["end"])
			if !ok1 || !ok2 {
				return nil, newErr(ptr("nodes", i, "id_range"), ErrValueTypeMismatch, "id_range bound is outside the int64 range; graph ids are 64-bit signed integers, clamp the bound to 9223372036854775807")
			}
			if s > e {
				return nil, newErr(ptr("nodes", i, "id_range"), ErrSchemaViolation, "id_range start must not exceed end")
			}
			n.idRange = &[2]int64{s, e}
		}
		r.nodes = append(r.nodes, n)
	}
	if rels, ok := doc["relationships"].([]any); ok {
		r.hasRels = true
		for i, rv := range rels {
			m := rv.(map[string]any)
			rs := &relSel{idx: i, from: str(m["from"]), to: str(m["to"]), direction: "outgoing", minHops: 1, maxHops: 1}
			switch t := m["type"].(type) {
			case string:
				if t == "*" {
					rs.star = true
				} else {
					rs.types = []string{t}
				}
			case []any:
				for _, x := range t {
					if str(x) == "*" {
						rs.star = true
					}
					rs.types = append(rs.types, str(x))
				}
			}
			if d, ok := m["direction"].(string); ok {
				rs.direction = d
			}
			if h, ok := m["hops"].([]any); ok {
				a, _ := intOf(h[0])
				b, _ := intOf(h[1])
				rs.minHops, rs.maxHops = int(a), int(b)
			}
			if f, ok := m["filters"].(map[string]any); ok {
				rs.filters = f
			}
			r.rels = append(r.rels, rs)
		}
	}
	if aggs, ok := doc["aggregations"].([]any); ok {
		for i, av := range aggs {
			m := av.(map[string]any)
			a := &aggSel{as: str(m["as"])}
			var fns []string
			for _, k := range slices.Sorted(maps.Keys(m)) {
				if k != "as" {
					fns = append(fns, k)
					a.fn, a.target = k, str(m[k])
				}
			}
			// The schema admits one or two keys; exactly one of them must be the function.
			switch len(fns) {
			case 0:
				return nil, newErr(ptr("aggregations", i), ErrInvalidAggregation, "the aggregation has no function", aggFunctions...)
			case 1:
			default:
				return nil, newErr(ptr("aggregations", i), ErrInvalidAggregation, "the aggregation has "+strconv.Itoa(len(fns))+" functions ("+strings.Join(fns, ", ")+"); write one object per function")
			}
			a.target, a.prop, _ = strings.Cut(a.target, ".")
			r.aggs = append(r.aggs, a)
		}
	}
	if gb, ok := doc["group_by"].([]any); ok {
		for _, gv := range gb {
			g := &groupKey{}
			switch x := gv.(type) {
			case string:
				g.key = x
			case map[string]any:
				g.key, g.truncate, g.as = str(x["key"]), str(x["truncate"]), str(x["as"])
			}
			g.alias, g.prop, _ = strings.Cut(g.key, ".")
			r.groupBy = append(r.groupBy, g)
		}
	}
	if p, ok := doc["path"].(map[string]any); ok {
		pc := &pathCfg{from: str(p["from"]), to: str(p["to"])}
		d, _ := intOf(p["max_depth"])
		pc.maxDepth = int(d)
		switch t := p["rel_types"].(type) {
		case string:
			pc.hasTypes, pc.star = true, true
		case []any:
			pc.hasTypes = true
			for _, x := range t {
				if str(x) == "*" {
					pc.star = true
				} else {
					pc.relTypes = append(pc.relTypes, str(x))
				}
			}
			if len(pc.relTypes) == 0 {
				pc.star = true
			}
		}
		r.path = pc
	}
	if nb, ok := doc["neighbors"].(map[string]any); ok {
		nc := &nbrCfg{direction: "both"}
		if d, ok := nb["direction"].(string); ok {
			nc.direction = d
		}
		if t, ok := nb["rel_types"].([]any); ok {
			for _, x := range t {
				if str(x) != "*" {
					nc.relTypes = append(nc.relTypes, str(x))
				}
			}
			nc.hasTypes = len(nc.relTypes) > 0
		}
		r.neighbors = nc
	}
	if l, ok := doc["limit"]; ok {
		n, _ := intOf(l)
		r.limit, r.hasLimit = int(n), true
	}
	if c, ok := doc["cursor"].(map[string]any); ok {
		n, _ := intOf(c["page_size"])
		r.cursor = &cursorCfg{pageSize: int(n)}
		if a, ok := c["after"].(string); ok {
			r.cursor.after, r.cursor.hasAfter = a, true
		}
	}
	r.orderBy = str(doc["order_by"])
	r.aggSort = str(doc["aggregation_sort"])
	if o, ok := doc["options"].(map[string]any); ok {
		r.dynAll = str(o["dynamic_columns"]) == "*"
		r.debugSQL, _ = o["include_debug_sql"].(bool)
	}
	return r, nil
}

// pageSize is cursor.page_size, else limit, else 30.
func (r *request) pageSize() int {
	switch {
	case r.cursor != nil:
		return r.cursor.pageSize
	case r.hasLimit:
		return r.limit
	}
	return 30
}
