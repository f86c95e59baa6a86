package graphresponse

import (
	"math"
	"strconv"
)

// Kind is the JSON-level kind of a [Value].
type Kind uint8

// The kinds a [Value] can hold. Integers and floats are distinct kinds: an
// aggregation avg of 2.0 is a float, a count of 2 is an integer, and every
// encoder keeps the difference.
const (
	KindNull Kind = iota
	KindBool
	KindInt    // int64
	KindUint   // uint64 above math.MaxInt64
	KindFloat  // float64
	KindString // string
	KindArray  // ordered list of values
	KindObject // ordered list of members with unique keys
)

var kindNames = [...]string{"null", "bool", "int", "uint", "float", "string", "array", "object"}

// String returns the lower-case name of the kind.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is one scalar or composite value of a GraphResponse: a node property,
// a row cell, or (outside the schema, for robustness) an array or object.
//
// The zero Value is null. Values are immutable once built and safe to share
// between goroutines.
type Value struct {
	kind Kind
	n    uint64 // bool (0/1), int64, uint64 or float64 bits
	s    string
	c    *composite
}

type composite struct {
	arr []Value
	obj []Member
}

// Member is one key/value pair of an object, a node's properties or a row.
type Member struct {
	Key   string
	Value Value
}

// Null returns the null value.
func Null() Value { return Value{} }

// Bool returns a boolean value.
func Bool(b bool) Value {
	v := Value{kind: KindBool}
	if b {
		v.n = 1
	}
	return v
}

// Int returns an integer value.
func Int(i int64) Value { return Value{kind: KindInt, n: uint64(i)} }

// Uint returns an unsigned integer value. Values that fit int64 are stored as
// [KindInt], so there is one representation for each integer.
func Uint(u uint64) Value {
	if u <= math.MaxInt64 {
		return Int(int64(u))
	}
	return Value{kind: KindUint, n: u}
}

// Float returns a float value. NaN and ±Inf are kept; the response builder maps
// them to null before any encoder sees them, and encoders treat them as null.
func Float(f float64) Value { return Value{kind: KindFloat, n: math.Float64bits(f)} }

// String returns a string value.
func String(s string) Value { return Value{kind: KindString, s: s} }

// Array returns an array value holding vs (not copied).
func Array(vs ...Value) Value {
	if vs == nil {
		vs = []Value{}
	}
	return Value{kind: KindArray, c: &composite{arr: vs}}
}

// Object returns an object value holding ms in the given order (not copied).
// Keys should be unique; the JSON decoder rejects duplicates.
func Object(ms ...Member) Value {
	if ms == nil {
		ms = []Member{}
	}
	return Value{kind: KindObject, c: &composite{obj: ms}}
}

// Kind reports the kind of v.
func (v Value) Kind() Kind { return v.kind }

// IsNull reports whether v is null.
func (v Value) IsNull() bool { return v.kind == KindNull }

// Bool returns the boolean held by v, false for other kinds.
func (v Value) Bool() bool { return v.kind == KindBool && v.n == 1 }

// Int returns the integer held by a [KindInt] value, 0 for other kinds.
func (v Value) Int() int64 {
	if v.kind != KindInt {
		return 0
	}
	return int64(v.n)
}

// Uint returns the integer held by a [KindUint] value, 0 for other kinds.
func (v Value) Uint() uint64 {
	if v.kind != KindUint {
		return 0
	}
	return v.n
}

// Float returns the float held by a [KindFloat] value, 0 for other kinds.
func (v Value) Float() float64 {
	if v.kind != KindFloat {
		return 0
	}
	return math.Float64frombits(v.n)
}

// Str returns the string held by a [KindString] value, "" for other kinds.
func (v Value) Str() string { return v.s }

// Elems returns the elements of an array value, nil for other kinds. The
// slice must not be modified.
func (v Value) Elems() []Value {
	if v.kind != KindArray {
		return nil
	}
	return v.c.arr
}

// Members returns the members of an object value in order, nil for other
// kinds. The slice must not be modified.
func (v Value) Members() []Member {
	if v.kind != KindObject {
		return nil
	}
	return v.c.obj
}

// Get returns the value of the first member named key of an object value.
func (v Value) Get(key string) (Value, bool) {
	for _, m := range v.Members() {
		if m.Key == key {
			return m.Value, true
		}
	}
	return Value{}, false
}

// Equal reports whether v and w hold the same value. Floats compare by bit
// pattern, so -0 differs from 0 and NaN equals NaN; objects compare member by
// member in order.
func (v Value) Equal(w Value) bool {
	if v.kind != w.kind {
		return false
	}
	switch v.kind {
	case KindNull:
		return true
	case KindString:
		return v.s == w.s
	case KindArray:
		a, b := v.c.arr, w.c.arr
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if !a[i].Equal(b[i]) {
				return false
			}
		}
		return true
	case KindObject:
		return membersEqual(v.c.obj, w.c.obj)
	default:
		return v.n == w.n
	}
}

func membersEqual(a, b []Member) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || !a[i].Value.Equal(b[i].Value) {
			return false
		}
	}
	return true
}

// GoString renders v for test failure messages.
func (v Value) GoString() string {
	return "graphresponse." + v.kind.String() + "(" + string(AppendValueJSON(nil, v)) + ")"
}
