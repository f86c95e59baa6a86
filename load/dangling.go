package load

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/graphwire/graphwire/compiler"
)

// ordRowBits is how many low bits of an _ord hold the row (see ord).
const ordRowBits = 40

// danglingEnds records the ends of file i's live edge rows that are no live node (the rows
// of bad with reason "dangling") in the staging table dangling, with the end's kind, the
// edge's path when its type is same_namespace (its ends must be live under it; ” for any
// path), and whether the row is invalid for another reason as well. Whether such an end refuses its
// row is decided once every file is staged, by the row that wins the edge's key
// ([stage.danglingIssues]).
func (s *stage) danglingEnds(ctx context.Context, i int, t *target, raw, bad string) error {
	d := s.prefix + "dangling"
	if !s.dangling {
		if err := s.exec(ctx, "create staging", "CREATE TABLE "+d+" (_ord UInt64, column String, value String, kind String, path String, other Bool) ENGINE = Memory"); err != nil {
			return err
		}
		s.dangling = true
	}
	path := "''"
	if t.rel != nil && t.rel.SameNamespace {
		path = "ifNull(r.traversal_path, '')"
	}
	return s.exec(ctx, "check endpoints", "INSERT INTO "+d+" SELECT "+ord(i)+", b.column, b.value, if(b.column = 'source_id', ifNull(r.source_kind, ''), ifNull(r.target_kind, '')), "+path+","+
		" _row IN (SELECT _row FROM "+bad+" WHERE reason != 'dangling') FROM "+bad+" AS b INNER JOIN "+raw+" AS r USING (_row) WHERE b.reason = 'dangling'")
}

// danglingIssues returns the edge rows refused for an end that is no live node, now that
// every file is staged: the live rows of each edge key whose winning row in the load is live
// (all of them share the key's ends), and the rows invalid for another reason anyway. A
// live row outdated by its edge's own tombstone (later, or at a higher _version) is not
// refused: the edge ends deleted. It returns the rows newly found invalid per file (rows
// invalid for another reason are counted already) and the first MaxIssues issues, each
// saying why its end is no live node. With SkipInvalid the refused rows leave the key and
// delta tables, and the edges' winners are computed again.
func (s *stage) danglingIssues(ctx context.Context, ts []*target) (map[int]int64, []Issue, error) {
	if !s.dangling {
		return nil, nil, nil
	}
	d := s.prefix + "dangling"
	refused := "true"
	table := s.ont.EdgeTable
	keys := s.prefix + "k_" + table
	if s.deltas[table] {
		w, err := s.winners(ctx, table, edgeKey)
		if err != nil {
			return nil, nil, err
		}
		if w != keys {
			refused = "other OR _ord NOT IN (SELECT _ord FROM " + keys + " WHERE (" + edgeKey + ") IN (SELECT " + edgeKey + " FROM " + w + " WHERE _deleted))"
		}
	}
	res, err := s.query(ctx, &compiler.Query{SQL: "SELECT toInt64(bitShiftRight(_ord, " + strconv.Itoa(ordRowBits) + ")), toInt64(uniqExact(_ord)) FROM " + d +
		" WHERE NOT other AND (" + refused + ") GROUP BY 1"})
	if err != nil {
		return nil, nil, fmt.Errorf("load: check endpoints: %w", err)
	}
	perFile := map[int]int64{}
	var newly int64
	for _, r := range res.Rows {
		f, _ := r[0].(int64)
		n, _ := r[1].(int64)
		perFile[int(f)] = n
		newly += n
	}
	res, err = s.query(ctx, &compiler.Query{SQL: "SELECT _ord, column, value, kind, path FROM " + d + " WHERE " + refused + " ORDER BY _ord, column LIMIT " + strconv.Itoa(s.opts.MaxIssues)})
	if err != nil {
		return nil, nil, fmt.Errorf("load: check endpoints: %w", err)
	}
	var issues []Issue
	var ends []danglingEnd
	for _, r := range res.Rows {
		o := asUint(r[0])
		col, _ := r[1].(string)
		val, _ := r[2].(string)
		var end danglingEnd
		end.kind, _ = r[3].(string)
		end.path, _ = r[4].(string)
		end.id, _ = strconv.ParseInt(val, 10, 64)
		is := rowIssue(ts, o)
		is.Column, is.Value, is.Err = col, val, ErrDangling
		issues = append(issues, is)
		ends = append(ends, end)
	}
	if err := s.explainDangling(ctx, ts, issues, ends); err != nil {
		return nil, nil, err
	}
	if newly > 0 && s.opts.SkipInvalid && s.deltas[table] {
		if err := s.dropRefused(ctx, refused); err != nil {
			return nil, nil, err
		}
	}
	return perFile, issues, nil
}

// dropRefused removes the live edge rows refused as dangling from the key and delta tables
// of the edges, and forgets the edges' winners, which they may have been.
func (s *stage) dropRefused(ctx context.Context, refused string) error {
	table := s.ont.EdgeTable
	keys := s.prefix + "k_" + table
	gone := s.prefix + "dangling_refused"
	if err := s.exec(ctx, "skip dangling", "CREATE TABLE "+gone+" ENGINE = Memory AS SELECT _ord FROM "+s.prefix+"dangling WHERE NOT other AND ("+refused+")"); err != nil {
		return err
	}
	// Every live row of a refused key is refused (they share its ends); its tombstones stay.
	if err := s.exec(ctx, "skip dangling", "ALTER TABLE "+s.prefix+"d_"+table+" DELETE WHERE _deleted = false AND ("+edgeKey+") IN (SELECT "+edgeKey+" FROM "+keys+
		" WHERE _ord IN (SELECT _ord FROM "+gone+")) SETTINGS mutations_sync = 2"); err != nil {
		return err
	}
	if err := s.exec(ctx, "skip dangling", "ALTER TABLE "+keys+" DELETE WHERE _ord IN (SELECT _ord FROM "+gone+") SETTINGS mutations_sync = 2"); err != nil {
		return err
	}
	if w := s.won[table]; w != keys {
		if err := s.exec(ctx, "skip dangling", "DROP TABLE "+w+" SYNC"); err != nil {
			return err
		}
	}
	delete(s.won, table)
	return nil
}

// rowIssue is the issue of the row an _ord names, without column, value or reason.
func rowIssue(ts []*target, o uint64) Issue {
	f, row := int(o>>ordRowBits), int64(o&(1<<ordRowBits-1))
	is := Issue{Row: row}
	if f < len(ts) {
		is.File = ts[f].src.Path
		if fl := ts[f].src.Format.firstLine(); fl > 0 {
			is.Line = row + fl
		}
	}
	return is
}

// danglingEnd is the end of an edge row that is no live node: its kind and id, and the
// edge's path when its type binds its ends to it (” for any path).
type danglingEnd struct {
	kind, path string
	id         int64
}

// explainDangling says, in each issue's Detail, why its end (ends[i]) is no live node: a
// tombstone of the load wins its key (naming the file and row), the graph holds it deleted,
// or neither holds it (under the edge's path, for a same_namespace type). Ends are matched
// as the check matches them: by kind and id, and by path when the edge's type binds.
func (s *stage) explainDangling(ctx context.Context, ts []*target, issues []Issue, ends []danglingEnd) error {
	ids := map[string][]int64{}
	for _, e := range ends {
		ids[e.kind] = append(ids[e.kind], e.id)
	}
	inLoad := map[danglingEnd]Issue{}
	inGraph := map[danglingEnd]bool{}
	// note records a node of kind (path tp, id) under its own path and under any path.
	note := func(kind, tp string, id int64, f func(danglingEnd)) {
		f(danglingEnd{kind, "", id})
		if tp != "" {
			f(danglingEnd{kind, tp, id})
		}
	}
	for _, kind := range sortedKeys(ids) {
		ent, ok := s.ont.Entity(kind)
		if !ok {
			continue
		}
		tp := "''"
		if ent.Namespaced() {
			tp = "traversal_path"
		}
		p := []compiler.Param{{Name: "p0", Type: "Array(Int64)", Value: ids[kind]}}
		if s.deltas[ent.Table] {
			w, err := s.winners(ctx, ent.Table, entityKey(ent))
			if err != nil {
				return err
			}
			res, err := s.query(ctx, &compiler.Query{SQL: "SELECT " + tp + ", id, min(_ord) FROM " + w + " WHERE _deleted AND has({p0:Array(Int64)}, id) GROUP BY 1, 2 ORDER BY 3", Params: p})
			if err != nil {
				return fmt.Errorf("load: explain dangling ends: %w", err)
			}
			for _, r := range res.Rows {
				path, _ := r[0].(string)
				id, _ := r[1].(int64)
				at := rowIssue(ts, asUint(r[2]))
				note(kind, path, id, func(e danglingEnd) {
					if _, ok := inLoad[e]; !ok {
						inLoad[e] = at
					}
				})
			}
		}
		key := entityKey(ent)
		res, err := s.query(ctx, &compiler.Query{SQL: "SELECT DISTINCT " + tp + ", id FROM (SELECT " + key + ", argMax(_deleted, (_version, _deleted)) AS gone FROM " + ent.Table +
			" WHERE has({p0:Array(Int64)}, id) GROUP BY " + key + ") WHERE gone", Params: p})
		if err != nil {
			return fmt.Errorf("load: explain dangling ends: %w", err)
		}
		for _, r := range res.Rows {
			path, _ := r[0].(string)
			id, _ := r[1].(int64)
			note(kind, path, id, func(e danglingEnd) { inGraph[e] = true })
		}
	}
	for i, e := range ends {
		why := "neither in the load nor in the graph"
		if e.path != "" {
			why += " under " + e.path
		}
		if at, ok := inLoad[e]; ok {
			why = "deleted by this load at " + at.where()
		} else if inGraph[e] {
			why = "deleted in the graph"
		}
		issues[i].Detail = fmt.Sprintf("%s %d is %s", e.kind, e.id, why)
	}
	return nil
}

// sortIssues orders issues by file (in the order the load staged them), row and column,
// keeping the order of equal ones.
func sortIssues(ts []*target, issues []Issue) {
	file := map[string]int{}
	for i, t := range ts {
		file[t.src.Path] = i
	}
	slices.SortStableFunc(issues, func(a, b Issue) int {
		return cmp.Or(cmp.Compare(file[a.File], file[b.File]), cmp.Compare(a.Row, b.Row), cmp.Compare(a.Column, b.Column))
	})
}
