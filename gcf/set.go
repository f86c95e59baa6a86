package gcf

import (
	"bytes"
	"crypto/sha256"
	"slices"
	"strconv"
	"strings"
)

// Set is a keyed set (§2.11): one named table whose rows are identified by
// the field Key.
type Set struct {
	Name, Key string
	Fields    []string
	Rows      []*Object
}

// SetDelta is a keyed-set delta payload.
type SetDelta struct {
	Tool, Key, BaseRoot, NewRoot string
	Fields                       []string
	Added, Changed               []*Object
	Removed                      []any // identity values
	DeltaTokens, FullTokens      int
}

// ReanchorPolicy decides when a [SetSession] sends a full payload instead of
// a delta. FixedN (0 means 15) sends a full payload every n-th turn;
// SizeGuard sends one when the deltas since the last full payload would
// outweigh it.
type ReanchorPolicy struct {
	FixedN    int
	SizeGuard bool
}

// setRecord returns the pack-root record of one row.
func setRecord(dst []byte, row *Object, sorted []string) ([]byte, error) {
	dst = append(dst, 'R')
	for _, f := range sorted {
		dst = append(dst, '\t')
		dst = append(dst, f...)
		dst = append(dst, '\t')
		v, ok := row.Get(f)
		var err error
		if dst, err = appendRootValue(dst, v, ok); err != nil {
			return dst, err
		}
	}
	return append(dst, '\n'), nil
}

// SetPackRoot returns the row-based root of s: sorted per-row records over
// the declared fields, hashed with SHA-256. Row order never matters.
func SetPackRoot(s *Set) (string, error) {
	sorted := slices.Clone(s.Fields)
	slices.Sort(sorted)
	recs := make([][]byte, 0, len(s.Rows))
	var buf []byte
	for i, r := range s.Rows {
		start := len(buf)
		var err error
		if buf, err = setRecord(buf, r, sorted); err != nil {
			return "", newOpError("set pack root", errSentinel(err), "row "+strconv.Itoa(i))
		}
		recs = append(recs, buf[start:len(buf):len(buf)])
	}
	slices.SortFunc(recs, bytes.Compare)
	h := sha256.New()
	for _, r := range recs {
		h.Write(r)
	}
	return formatRoot(h.Sum(nil)), nil
}

func identOf(row *Object, key string) (string, bool) {
	v, ok := row.Get(key)
	if !ok || v == nil {
		return "", false
	}
	b, err := appendRootValue(nil, v, true)
	if err != nil {
		return "", false
	}
	return string(b), true
}

func identIndex(fields []string, key string) int {
	return slices.Index(fields, key)
}

// appendSetRows writes "## name [N]{@key,…}" and the rows.
func appendSetRows(dst []byte, name string, fields []string, key string, rows []*Object) ([]byte, error) {
	ident := identIndex(fields, key)
	if ident < 0 {
		return dst, encErr(ErrInvalidToken, "key field "+strconv.Quote(key)+" is not declared")
	}
	dst = append(dst, "## "...)
	dst = appendKey(dst, name)
	dst = append(dst, " ["...)
	dst = strconv.AppendInt(dst, int64(len(rows)), 10)
	dst = append(dst, ']')
	dst = appendFieldList(dst, fields, ident)
	dst = append(dst, '\n')
	for i, r := range rows {
		for j, f := range fields {
			if j > 0 {
				dst = append(dst, '|')
			}
			v, ok := r.Get(f)
			if !ok {
				dst = append(dst, '~')
				continue
			}
			var err error
			if dst, err = appendScalar(dst, v); err != nil {
				return dst, atPath(atIndex(atPath(err, f), i), name)
			}
		}
		dst = append(dst, '\n')
	}
	return dst, nil
}

func appendSet(dst []byte, s *Set, tool string, lim Limits) ([]byte, error) {
	root, err := SetPackRoot(s)
	if err != nil {
		return dst, err
	}
	if !isToken(s.Key) {
		return dst, &EncodeError{Path: "/key", Err: ErrInvalidToken}
	}
	dst = append(dst, "GCF profile=generic"...)
	if tool != "" {
		dst = appendHeaderStr(dst, "tool", tool)
	}
	dst = appendHeaderStr(dst, "pack_root", root)
	dst = appendHeaderStr(dst, "key", s.Key)
	dst = append(dst, '\n')
	return appendSetRows(dst, s.Name, s.Fields, s.Key, s.Rows)
}

func appendSetDelta(dst []byte, d *SetDelta, lim Limits) ([]byte, error) {
	if !isToken(d.Key) || !isToken(d.BaseRoot) || !isToken(d.NewRoot) || (d.Tool != "" && !isToken(d.Tool)) {
		return dst, &EncodeError{Err: ErrInvalidToken, Detail: "delta header values must be printable ASCII"}
	}
	dst = append(dst, "GCF profile=generic"...)
	if d.Tool != "" {
		dst = appendHeaderStr(dst, "tool", d.Tool)
	}
	dst = append(dst, " delta=true"...)
	dst = appendHeaderStr(dst, "base_root", d.BaseRoot)
	dst = appendHeaderStr(dst, "new_root", d.NewRoot)
	dst = appendHeaderStr(dst, "key", d.Key)
	if d.FullTokens > 0 {
		dst = appendSavings(dst, d.DeltaTokens, d.FullTokens)
	}
	dst = append(dst, '\n')
	var err error
	if len(d.Added) > 0 {
		if dst, err = appendSetRows(dst, "added", d.Fields, d.Key, d.Added); err != nil {
			return dst, err
		}
	}
	if len(d.Changed) > 0 {
		if dst, err = appendSetRows(dst, "changed", d.Fields, d.Key, d.Changed); err != nil {
			return dst, err
		}
	}
	if len(d.Removed) > 0 {
		rows := make([]*Object, len(d.Removed))
		for i, v := range d.Removed {
			rows[i] = &Object{}
			rows[i].add(d.Key, v)
		}
		if dst, err = appendSetRows(dst, "removed", []string{d.Key}, d.Key, rows); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// decodeSetDelta decodes a generic delta payload.
func decodeSetDelta(h *Header, lines []line, lim Limits) (*SetDelta, error) {
	d := &SetDelta{}
	var haveBase, haveNew bool
	for _, f := range h.Fields {
		switch f.Key {
		case "tool":
			d.Tool = f.Value
		case "key":
			d.Key = f.Value
		case "base_root":
			d.BaseRoot, haveBase = f.Value, true
		case "new_root":
			d.NewRoot, haveNew = f.Value, true
		}
	}
	if d.Key == "" || !haveBase || !haveNew {
		return nil, synErr(1, 1, ErrMalformedDelta, "generic delta needs key, base_root and new_root")
	}
	lines, _, err := takeTrailer(lines)
	if err != nil {
		return nil, err
	}
	gd := genDecoder{lines: lines, lim: lim, identKey: d.Key}
	if err := gd.checkIndent(); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for gd.pos < len(gd.lines) {
		ln := gd.lines[gd.pos]
		if ln.level != 0 {
			return nil, ln.err(0, ErrInvalidIndent, "indented delta line")
		}
		rest, ok := strings.CutPrefix(ln.text, "## ")
		if !ok {
			return nil, ln.err(0, ErrMalformedDelta, "expected a delta section")
		}
		name, after, _ := strings.Cut(rest, " ")
		if name != "added" && name != "changed" && name != "removed" {
			return nil, ln.err(3, ErrMalformedDelta, "unknown delta section "+strconv.Quote(name))
		}
		if seen[name] {
			return nil, ln.err(3, ErrMalformedDelta, "repeated delta section "+name)
		}
		seen[name] = true
		b, err := gd.parseBracket(ln, after, len(name)+4)
		if err != nil {
			return nil, err
		}
		if !b.hasFields || b.keyed || b.ident < 0 {
			return nil, ln.err(0, ErrMalformedDelta, "delta section needs {@"+d.Key+",…}")
		}
		if name == "removed" && len(b.fields) != 1 {
			return nil, ln.err(0, ErrMalformedDelta, "removed declares only the identity")
		}
		gd.pos++
		v, err := gd.table(ln, b, 0, 1, ctxRoot)
		if err != nil {
			return nil, err
		}
		rows := v.([]any)
		objs := make([]*Object, len(rows))
		for i, r := range rows {
			objs[i] = r.(*Object)
		}
		switch name {
		case "added":
			d.Added = objs
			d.Fields = b.fields
		case "changed":
			d.Changed = objs
			d.Fields = b.fields
		case "removed":
			for _, o := range objs {
				id, _ := o.Get(d.Key)
				d.Removed = append(d.Removed, id)
			}
		}
	}
	return d, nil
}

// DiffSets computes the delta from base to next. Both must share the key and
// the field list, and every row must carry a unique identity.
func DiffSets(base, next *Set) (*SetDelta, error) {
	if base.Key != next.Key || !slices.Equal(base.Fields, next.Fields) {
		return nil, newOpError("diff sets", ErrDeltaConflict, "key or field list changed")
	}
	bIdx, err := setIndex(base)
	if err != nil {
		return nil, err
	}
	nIdx, err := setIndex(next)
	if err != nil {
		return nil, err
	}
	d := &SetDelta{Key: next.Key, Fields: slices.Clone(next.Fields)}
	if d.BaseRoot, err = SetPackRoot(base); err != nil {
		return nil, err
	}
	if d.NewRoot, err = SetPackRoot(next); err != nil {
		return nil, err
	}
	sorted := slices.Clone(next.Fields)
	slices.Sort(sorted)
	for _, r := range next.Rows {
		id, _ := identOf(r, next.Key)
		bi, ok := bIdx[id]
		if !ok {
			d.Added = append(d.Added, r)
			continue
		}
		a, _ := setRecord(nil, base.Rows[bi], sorted)
		b, _ := setRecord(nil, r, sorted)
		if !bytes.Equal(a, b) {
			d.Changed = append(d.Changed, r)
		}
	}
	for _, r := range base.Rows {
		id, _ := identOf(r, base.Key)
		if _, ok := nIdx[id]; !ok {
			v, _ := r.Get(base.Key)
			d.Removed = append(d.Removed, v)
		}
	}
	return d, nil
}

func setIndex(s *Set) (map[string]int, error) {
	idx := make(map[string]int, len(s.Rows))
	for i, r := range s.Rows {
		id, ok := identOf(r, s.Key)
		if !ok {
			return nil, newOpError("diff sets", ErrDeltaConflict, "row "+strconv.Itoa(i)+" has no identity")
		}
		if _, dup := idx[id]; dup {
			return nil, newOpError("diff sets", ErrDeltaConflict, "identity "+id+" appears twice")
		}
		idx[id] = i
	}
	return idx, nil
}

// ApplySetDelta applies d to a copy of base and checks the result against
// wantRoot (compared as a string). It returns the new set and its root.
func ApplySetDelta(base *Set, d *SetDelta, wantRoot string) (*Set, string, error) {
	root, err := SetPackRoot(base)
	if err != nil {
		return nil, "", err
	}
	if root != d.BaseRoot {
		return nil, "", newOpError("apply set delta", ErrBaseMismatch, "base root "+root+" differs from "+d.BaseRoot)
	}
	key := d.Key
	if key == "" {
		key = base.Key
	}
	idx := map[string]int{}
	for i, r := range base.Rows {
		if id, ok := identOf(r, key); ok {
			idx[id] = i
		}
	}
	for _, r := range d.Added {
		id, _ := identOf(r, key)
		if _, ok := idx[id]; ok {
			return nil, "", newOpError("apply set delta", ErrDeltaConflict, "added identity "+id+" already exists")
		}
	}
	changed := map[int]*Object{}
	for _, r := range d.Changed {
		id, _ := identOf(r, key)
		i, ok := idx[id]
		if !ok {
			return nil, "", newOpError("apply set delta", ErrDeltaConflict, "changed identity "+id+" does not exist")
		}
		changed[i] = r
	}
	removed := map[int]bool{}
	for _, v := range d.Removed {
		b, err := appendRootValue(nil, v, true)
		if err != nil {
			return nil, "", newOpError("apply set delta", ErrDeltaConflict, "bad removed identity")
		}
		i, ok := idx[string(b)]
		if !ok {
			return nil, "", newOpError("apply set delta", ErrDeltaConflict, "removed identity "+string(b)+" does not exist")
		}
		removed[i] = true
	}
	out := &Set{Name: base.Name, Key: base.Key, Fields: slices.Clone(base.Fields)}
	for i, r := range base.Rows {
		if removed[i] {
			continue
		}
		if c, ok := changed[i]; ok {
			r = c
		}
		out.Rows = append(out.Rows, r)
	}
	out.Rows = append(out.Rows, d.Added...)
	got, err := SetPackRoot(out)
	if err != nil {
		return nil, "", err
	}
	if got != wantRoot {
		return nil, "", newOpError("apply set delta", ErrRootMismatch, "result root "+got+" differs from "+wantRoot)
	}
	return out, got, nil
}

// SetSession is a re-anchoring producer session for one keyed set. It is not
// safe for concurrent use.
type SetSession struct {
	base   *Set
	tool   string
	policy ReanchorPolicy
	turns  int
	sum    int
	lim    Limits
}

// NewSetSession starts a session on base and returns the initial full
// payload.
func NewSetSession(base *Set, tool string, p ReanchorPolicy) (*SetSession, []byte, error) {
	s := &SetSession{base: base, tool: tool, policy: p, lim: Limits{}.withDefaults()}
	full, err := appendSet(nil, base, tool, s.lim)
	if err != nil {
		return nil, nil, err
	}
	return s, full, nil
}

// Next returns the payload for update: a full payload (full true) or a delta
// against the previous set. update becomes the new base.
func (s *SetSession) Next(update *Set) (full bool, wire []byte, err error) {
	sendFull := func() (bool, []byte, error) {
		b, err := appendSet(nil, update, s.tool, s.lim)
		if err != nil {
			return false, nil, err
		}
		s.turns, s.sum = 0, 0
		s.base = update
		return true, b, nil
	}
	if !slices.Equal(s.base.Fields, update.Fields) || s.base.Key != update.Key {
		return sendFull()
	}
	d, err := DiffSets(s.base, update)
	if err != nil {
		return false, nil, err
	}
	wire, err = appendSetDelta(nil, d, s.lim)
	if err != nil {
		return false, nil, err
	}
	if s.policy.SizeGuard {
		fullWire, err := appendSet(nil, update, s.tool, s.lim)
		if err != nil {
			return false, nil, err
		}
		if s.sum+len(wire) >= len(fullWire) {
			return sendFull()
		}
		s.sum += len(wire)
	} else {
		n := s.policy.FixedN
		if n <= 0 {
			n = 15
		}
		s.turns++
		if s.turns >= n {
			return sendFull()
		}
	}
	s.base = update
	return false, wire, nil
}
