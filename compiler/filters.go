package compiler

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Filter operators (docs/dsl.md, "Filters"; the token operators are in docs/compiler.md, "DSL
// differences from Orbit").
var operators = []string{"all_tokens", "any_tokens", "contains", "ends_with", "eq", "gt", "gte", "in", "is_not_null", "is_null", "lt", "lte", "starts_with", "token_match"}

const (
	maxInValues    = 100
	maxOpObjects   = 10
	maxStringValue = 1024
	minPattern     = 3
)

// pred is one typed filter predicate on a scan column.
type pred struct {
	col  string
	op   string // eq gt gte lt lte in contains starts_with ends_with is_null is_not_null
	typ  string // parameter type
	val  any
	vals []any // in
	path string
	// tpath marks a user filter on traversal_path (validated against the caller's scopes).
	tpath bool
}

// filterTarget describes the column a filter key addresses.
type filterTarget struct {
	col      string
	p        *property
	tpath    bool
	longText bool
}

// parseFilters turns one filters object into predicates, checking rule class S7. keys are
// resolved by resolve, which returns nil for an unknown key.
func parseFilters(at string, filters map[string]any, resolve func(string) *filterTarget, unknown func(string) error) ([]*pred, error) {
	var out []*pred
	for _, key := range sortedKeys(filters) {
		ft := resolve(key)
		if ft == nil {
			return nil, unknown(key)
		}
		fat := sub(at, key)
		ps, err := parseFilter(fat, ft, filters[key])
		if err != nil {
			return nil, err
		}
		out = append(out, ps...)
	}
	return out, nil
}

func parseFilter(at string, ft *filterTarget, v any) ([]*pred, error) {
	switch x := v.(type) {
	case map[string]any:
		return parseOps(at, ft, x)
	case []any:
		if len(x) > 0 {
			if _, isObj := x[0].(map[string]any); isObj {
				if len(x) > maxOpObjects {
					return nil, newErr(at, ErrLimitExceeded, "at most "+strconv.Itoa(maxOpObjects)+" operator objects allowed (got "+strconv.Itoa(len(x))+")")
				}
				var out []*pred
				for i, e := range x {
					m, ok := e.(map[string]any)
					if !ok {
						return nil, newErr(sub(at, i), ErrSchemaViolation, "value must be an operator object")
					}
					ps, err := parseOps(sub(at, i), ft, m)
					if err != nil {
						return nil, err
					}
					out = append(out, ps...)
				}
				return out, nil
			}
		}
		p, err := makePred(at, ft, "in", x)
		if err != nil {
			return nil, err
		}
		return []*pred{p}, nil
	default:
		p, err := makePred(at, ft, "eq", x)
		if err != nil {
			return nil, err
		}
		return []*pred{p}, nil
	}
}

func parseOps(at string, ft *filterTarget, m map[string]any) ([]*pred, error) {
	if len(m) == 0 {
		return nil, newErr(at, ErrSchemaViolation, "operator object must not be empty")
	}
	var out []*pred
	for _, op := range sortedKeys(m) {
		oat := sub(at, op)
		if !slices.Contains(operators, op) {
			return nil, newErr(oat, ErrUnknownField, "unknown operator "+strconv.Quote(op)+didYouMean(op, operators), operators...)
		}
		p, err := makePred(oat, ft, op, m[op])
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func opAllowed(ft *filterTarget, op string) bool {
	if ft.tpath {
		return op == "eq" || op == "in" || op == "starts_with"
	}
	p := ft.p
	if p.virtual {
		// Orbit's operators on virtual content (File.content, Definition.content, …).
		switch op {
		case "eq", "contains", "starts_with", "ends_with", "is_null", "is_not_null":
			return true
		}
		return false
	}
	switch op {
	case "is_null", "is_not_null":
		return true
	case "eq", "in":
		return !p.longText
	case "gt", "gte", "lt", "lte":
		if p.longText {
			return false
		}
		switch p.typ {
		case typInt64, typFloat64, typDate32, typDateTime, typString:
			return true
		}
	case "contains", "starts_with", "ends_with":
		return p.typ == typString || (p.typ == typLC && len(p.enum) == 0)
	case "token_match", "all_tokens", "any_tokens":
		return p.tokens
	}
	return false
}

// isTokenOp reports whether op is one of the word-search operators.
func isTokenOp(op string) bool {
	return op == "token_match" || op == "all_tokens" || op == "any_tokens"
}

// splitTokens splits s the way ClickHouse's splitByNonAlpha tokenizer does (the tokenizer of
// hasToken, hasAllTokens and hasAnyTokens and of our text indexes, as in Orbit): a token is
// a maximal run of ASCII letters, ASCII digits and bytes of non-ASCII characters; every other
// ASCII character separates. Matching is case-sensitive.
func splitTokens(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return r < utf8.RuneSelf && !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	})
}

func makePred(at string, ft *filterTarget, op string, v any) (*pred, error) {
	if !opAllowed(ft, op) {
		msg := "operator " + strconv.Quote(op) + " is not allowed on " + strconv.Quote(ft.col)
		if isTokenOp(op) {
			msg += ": it has no word index (Orbit lists the word-searchable properties); use contains, starts_with or ends_with"
		} else if ft.p != nil && ft.p.virtual {
			msg += " (virtual content); use eq, contains, starts_with, ends_with, is_null or is_not_null"
		} else if ft.longText {
			msg += " (long text); use contains, starts_with, ends_with or is_null"
		}
		return nil, newErr(at, ErrOperatorNotAllowed, msg)
	}
	p := &pred{col: ft.col, op: op, path: at, tpath: ft.tpath}
	if ft.tpath {
		p.typ = typString
	} else {
		p.typ = ft.p.paramType()
	}
	switch op {
	case "is_null", "is_not_null":
		b, ok := v.(bool)
		if !ok {
			return nil, newErr(at, ErrValueTypeMismatch, "value must be true or false")
		}
		if !b {
			if op == "is_null" {
				p.op = "is_not_null"
			} else {
				p.op = "is_null"
			}
		}
		return p, nil
	case "in":
		arr, ok := v.([]any)
		if !ok {
			return nil, newErr(at, ErrValueTypeMismatch, "value must be an array")
		}
		if len(arr) == 0 {
			return nil, newErr(at, ErrSchemaViolation, "at least 1 items required (got 0): an empty list would match nothing; leave the filter out, or use is_null")
		}
		if len(arr) > maxInValues {
			return nil, newErr(at, ErrLimitExceeded, "at most "+strconv.Itoa(maxInValues)+" items allowed (got "+strconv.Itoa(len(arr))+")")
		}
		var vals []any
		for i, e := range arr {
			tv, err := typedValue(sub(at, i), ft, e)
			if err != nil {
				return nil, err
			}
			vals = append(vals, tv)
		}
		slices.SortFunc(vals, compareValues)
		vals = slices.CompactFunc(vals, func(a, b any) bool { return compareValues(a, b) == 0 })
		if len(vals) == 1 {
			p.op, p.val = "eq", vals[0]
			return p, nil
		}
		p.vals = vals
		return p, nil
	}
	tv, err := typedValue(at, ft, v)
	if err != nil {
		return nil, err
	}
	if isTokenOp(op) {
		toks := splitTokens(tv.(string))
		switch {
		case len(toks) == 0:
			return nil, newErr(at, ErrValueTypeMismatch, "value must contain a word (a run of letters or digits)")
		case op == "token_match" && (len(toks) != 1 || toks[0] != tv.(string)):
			return nil, newErr(at, ErrValueTypeMismatch, "token_match takes exactly one word without spaces or punctuation; use all_tokens or any_tokens for several words")
		}
	}
	if op == "contains" || op == "starts_with" || op == "ends_with" {
		if !ft.tpath && utf8.RuneCountInString(tv.(string)) < minPattern {
			return nil, newErr(at, ErrPatternTooShort, "pattern must be at least "+strconv.Itoa(minPattern)+" characters long")
		}
	}
	p.val = tv
	return p, nil
}

func compareValues(a, b any) int {
	switch x := a.(type) {
	case int64:
		y := b.(int64)
		return cmpOrdered(x, y)
	case float64:
		return cmpOrdered(x, b.(float64))
	case string:
		return strings.Compare(x, b.(string))
	case bool:
		y := b.(bool)
		if x == y {
			return 0
		}
		if !x {
			return -1
		}
		return 1
	case time.Time:
		return x.Compare(b.(time.Time))
	}
	return 0
}

func cmpOrdered[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// typedValue converts one JSON filter value to the Go value of the column's parameter type.
func typedValue(at string, ft *filterTarget, v any) (any, error) {
	mismatch := func(want string) error {
		return newErr(at, ErrValueTypeMismatch, "value must be "+want)
	}
	if v == nil {
		return nil, newErr(at, ErrValueTypeMismatch, "value must not be null; use {\"is_null\": true} to match missing values")
	}
	if ft.tpath {
		s, ok := v.(string)
		if !ok {
			return nil, mismatch("a string")
		}
		if !validPath(s) {
			return nil, newErr(at, ErrValueTypeMismatch, "traversal_path must look like \"100/\" or \"100/101/\"")
		}
		return s, nil
	}
	p := ft.p
	switch p.typ {
	case typInt64:
		n, ok := intOf(v)
		if !ok {
			return nil, mismatch("an integer in the int64 range (ids and counts are 64-bit signed integers; a larger value can match no row)")
		}
		return n, nil
	case typFloat64:
		num, ok := v.(json.Number)
		if !ok {
			return nil, mismatch("a number")
		}
		f, err := strconv.ParseFloat(string(num), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, mismatch("a finite number")
		}
		return f, nil
	case typBool:
		b, ok := v.(bool)
		if !ok {
			return nil, mismatch("true or false")
		}
		return b, nil
	case typString, typLC:
		s, ok := v.(string)
		if !ok {
			return nil, mismatch("a string")
		}
		if utf8.RuneCountInString(s) > maxStringValue {
			return nil, newErr(at, ErrLimitExceeded, "at most "+strconv.Itoa(maxStringValue)+" characters allowed")
		}
		if len(p.enum) > 0 && !slices.Contains(p.enum, s) {
			opts := slices.Sorted(slices.Values(p.enum))
			return nil, newErr(at, ErrInvalidEnumValue, "unknown value "+strconv.Quote(s)+" for "+strconv.Quote(p.name)+didYouMean(s, opts)+"; the property holds only the labels listed (Orbit would match no row), so use one of them", opts...)
		}
		return s, nil
	case typDate32:
		s, ok := v.(string)
		if !ok {
			return nil, mismatch(`a date "YYYY-MM-DD"`)
		}
		t, err := time.Parse(time.DateOnly, s)
		if err != nil || t.Year() < 1900 || t.Year() > 2299 {
			return nil, mismatch(`a date "YYYY-MM-DD" between 1900 and 2299`)
		}
		return t, nil
	case typDateTime:
		s, ok := v.(string)
		if !ok {
			return nil, mismatch("an RFC 3339 date-time")
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			if t, err = time.Parse(time.DateOnly, s); err != nil {
				return nil, mismatch("an RFC 3339 date-time")
			}
		}
		t = t.UTC().Truncate(time.Microsecond)
		if t.Year() < 1900 || t.Year() > 2299 {
			return nil, mismatch("a date-time between 1900 and 2299")
		}
		return t, nil
	}
	return nil, mismatch("a supported value")
}
