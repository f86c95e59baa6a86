package load

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/loadstate"
	"github.com/graphwire/graphwire/ontology"
)

// MaxVersion is the highest _version a row may carry explicitly: 2^62 (4611686018427387904),
// which leaves room for nanosecond timestamps until the year 2116. A higher one is refused
// with [ErrVersion]. The versions between it and maxLoadVersion are headroom for the loads
// after such a row: each load's own version is one above the highest in the graph, and a
// version that wrapped around to 0 would lose to every row already stored.
const MaxVersion uint64 = 1 << 62

// maxLoadVersion is the highest version a load gives its rows: the greatest signed 64-bit
// integer, so that every version stays exact as an Int64 too (the load's parameters, and
// readers that take UInt64 as signed).
const maxLoadVersion uint64 = 1<<63 - 1

// Sentinels of the version rules; compare with errors.Is.
var (
	// ErrVersion marks an explicit _version above [MaxVersion].
	ErrVersion = errors.New("_version is above the highest allowed, " + strconv.FormatUint(MaxVersion, 10))
	// ErrShadowed marks rows that would lose to a higher _version already in the graph; a
	// [*ShadowError] wraps it.
	ErrShadowed = errors.New("rows would lose to a higher _version already in the graph")
	// ErrVersionSpace marks a graph whose highest _version leaves no version for a load.
	ErrVersionSpace = errors.New("no _version left for a load")
)

// nextVersion returns the version of a load into a graph whose highest _version is highest:
// one above it. It never wraps: a graph holding a version at or above maxLoadVersion (written
// by hand or by a loader that allowed any UInt64) leaves no version that would win, and is an
// error.
func nextVersion(highest uint64) (uint64, error) {
	if highest >= maxLoadVersion {
		return 0, fmt.Errorf("%w: the graph's highest _version is %d, and a load's version must be above it and at most %d",
			ErrVersionSpace, highest, maxLoadVersion)
	}
	return highest + 1, nil
}

// versionChecks returns the rule that refuses an explicit _version above [MaxVersion]; a
// value that is no UInt64 at all fails the type check instead.
func versionChecks(present map[string]bool) []check {
	if !present["_version"] {
		return nil
	}
	v := ident("_version")
	return []check{{col: "_version", reason: "version", cond: v + " IS NOT NULL AND " + v + " != '' AND ifNull(accurateCastOrNull(" + v +
		", 'UInt64') > " + strconv.FormatUint(MaxVersion, 10) + ", false)"}}
}

// ShadowError refuses a load some of whose rows would lose to a higher _version the graph
// already holds for their key: written, they would change nothing a read sees. Nothing was
// written. Table, Key, Version and Stored describe the first such row (in table and key
// order). It wraps [ErrShadowed].
type ShadowError struct {
	Count   int64  // rows that would lose, in all
	Table   string // graph table of the first
	Key     string // its key, as the engine prints a tuple: ('1/10/',900201)
	Version uint64 // its _version
	Stored  uint64 // the higher _version in the graph
}

func (e *ShadowError) Error() string {
	return fmt.Sprintf("load: %d rows would lose to a higher _version already in the graph, nothing written (first: %s key %s, _version %d, stored %d)",
		e.Count, e.Table, e.Key, e.Version, e.Stored)
}

func (e *ShadowError) Unwrap() error { return ErrShadowed }

// shadowed counts the rows of the deltas that a higher _version in the graph would hide, and
// describes the first. Only tables a file with a _version column wrote to are read: every
// other row carries the load's version, which is above all the graph holds. A key repeated in
// the deltas counts once, by its highest version; a stored version equal to the row's loses
// to it, being written earlier.
func (s *stage) shadowed(ctx context.Context) (*ShadowError, error) {
	se := &ShadowError{}
	for _, table := range s.order {
		if !s.versioned[table] || s.empty[table] {
			continue
		}
		key := edgeKey
		if ent := s.entityOfTable(table); ent != nil {
			key = entityKey(ent)
		}
		d := s.prefix + "d_" + table
		sql := "SELECT toString(k), v, gv, count() OVER () FROM (SELECT tuple(" + key + ") AS k, max(_version) AS v FROM " + d + " GROUP BY k) AS l" +
			" INNER JOIN (SELECT tuple(" + key + ") AS k, max(_version) AS gv FROM " + table + " WHERE (" + key + ") IN (SELECT " + key + " FROM " + d + ") GROUP BY k) AS g" +
			" USING (k) WHERE gv > v ORDER BY k LIMIT 1"
		res, err := s.query(ctx, &compiler.Query{SQL: sql})
		if err != nil {
			return nil, fmt.Errorf("load: compare versions with %s: %w", table, err)
		}
		if len(res.Rows) == 0 {
			continue
		}
		r := res.Rows[0]
		if se.Count == 0 {
			se.Table, se.Key = table, fmt.Sprint(r[0])
			se.Version, se.Stored = asUint(r[1]), asUint(r[2])
		}
		se.Count += int64(asUint(r[3]))
	}
	if se.Count == 0 {
		return nil, nil
	}
	return se, nil
}

func asUint(v any) uint64 {
	switch n := v.(type) {
	case uint64:
		return n
	case int64:
		return uint64(n)
	}
	return 0
}

// loadVersion returns the version of a new load: one above the graph's highest, or an error
// naming the table that leaves no room.
func loadVersion(ctx context.Context, e Engine, ont *ontology.Ontology) (uint64, error) {
	highest, table, err := loadstate.HighestVersion(ctx, e, ont)
	if err != nil {
		return 0, fmt.Errorf("load: %w", err)
	}
	v, err := nextVersion(highest)
	if err != nil {
		return 0, fmt.Errorf("load: %w (in %s; explicit versions must be at most %d)", err, table, MaxVersion)
	}
	return v, nil
}

// markVersioned notes the graph table t wrote to when its file has a _version column.
func (s *stage) markVersioned(t *target, present map[string]bool) {
	if !present["_version"] {
		return
	}
	if s.versioned == nil {
		s.versioned = map[string]bool{}
	}
	if t.entity != nil {
		s.versioned[t.entity.Table] = true
	} else {
		s.versioned[s.ont.EdgeTable] = true
	}
}
