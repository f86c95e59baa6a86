package compiler

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/graphwire/graphwire/internal/editdist"
)

// schemaID is the $id of config/schemas/graph_query.schema.json; its major must equal the
// major of config/QUERY_DSL_VERSION.
const schemaID = "urn:graphwire:schema:graph_query:v12"

// validator is the derived JSON Schema (docs/compiler.md, "Stages"): the static file with
// the ontology's entity and relationship names injected. It is immutable and safe for
// concurrent use.
type validator struct {
	schema *jsonschema.Schema
}

// newValidator deep-copies the static schema, injects the catalog's enums and compiles it.
func newValidator(static []byte, cat *catalog) (*validator, error) {
	d := json.NewDecoder(bytes.NewReader(static))
	d.UseNumber()
	var doc map[string]any
	if err := d.Decode(&doc); err != nil {
		return nil, fmt.Errorf("read query schema: %w", err)
	}
	if id, _ := doc["$id"].(string); id != schemaID {
		return nil, fmt.Errorf("query schema $id is %q, want %q", id, schemaID)
	}
	defs, _ := doc["$defs"].(map[string]any)
	if defs == nil {
		return nil, errors.New("query schema has no $defs")
	}
	setEnum := func(def string, names []string) error {
		m, _ := defs[def].(map[string]any)
		if m == nil {
			return fmt.Errorf("query schema has no $defs.%s", def)
		}
		vals := make([]any, len(names))
		for i, n := range names {
			vals[i] = n
		}
		m["enum"] = vals
		return nil
	}
	if err := setEnum("EntityType", cat.entityNames); err != nil {
		return nil, err
	}
	if err := setEnum("RelationshipTypeName", append(slices.Clone(cat.relNames), "*")); err != nil {
		return nil, err
	}
	// The schema's closed operator list and the compiler's must agree, or one of them would
	// refuse what the other accepts.
	var ops []string
	if m, _ := defs["FilterOperator"].(map[string]any); m != nil {
		vals, _ := m["enum"].([]any)
		for _, v := range vals {
			s, _ := v.(string)
			ops = append(ops, s)
		}
	}
	slices.Sort(ops)
	if !slices.Equal(ops, operators) {
		return nil, fmt.Errorf("query schema $defs.FilterOperator lists %v, the compiler knows %v", ops, operators)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schemaID, doc); err != nil {
		return nil, fmt.Errorf("load query schema: %w", err)
	}
	s, err := c.Compile(schemaID)
	if err != nil {
		return nil, fmt.Errorf("compile query schema: %w", err)
	}
	return &validator{schema: s}, nil
}

// validate checks the generic request against the schema and translates the first failure
// (by JSON Pointer) into an [*Error] (docs/dsl.md, "Errors").
func (v *validator) validate(doc map[string]any, cat *catalog) error {
	err := v.schema.Validate(any(doc))
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return newErr("", ErrSchemaViolation, "the query does not match the schema")
	}
	var out []*Error
	missing := map[*Error]bool{}
	collect(ve, doc, cat, &out, missing)
	if len(out) == 0 {
		return newErr("", ErrSchemaViolation, "the query does not match the schema")
	}
	slices.SortStableFunc(out, func(a, b *Error) int { return strings.Compare(a.Path, b.Path) })
	// A missing required field next to an unknown one is most likely the same field
	// misspelt ({"Query_Type": …}): report the unknown field, which points at the culprit.
	if first := out[0]; missing[first] {
		for _, e := range out[1:] {
			if errors.Is(e, ErrUnknownField) && parentPtr(e.Path) == first.Path {
				return e
			}
		}
	}
	return out[0]
}

// filtersWithKey returns the pointer of the first "filters" object, depth tokens below the
// root in document order, that has key; the schema uses propertyNames only on filters.
func filtersWithKey(doc map[string]any, key string, depth int) string {
	return objectWithKey(doc, key, depth, func(toks []any) bool { return len(toks) > 0 && toks[len(toks)-1] == "filters" })
}

// relFilterKeys lists the filter keys of the relationship at rel (its pointer,
// "/relationships/i"): the edge columns every relationship has, then the edge properties
// (project_id, branch) when every type it may match declares them, as the semantic pass
// decides (validate.go). The types come from the raw document, so a malformed relationship
// just gets the common keys.
func relFilterKeys(doc map[string]any, rel string, cat *catalog) []string {
	keys := []string{"source_id", "target_id", "traversal_path"}
	i, err := strconv.Atoi(strings.TrimPrefix(rel, "/relationships/"))
	rels := asArray(doc["relationships"])
	if err != nil || cat == nil || i < 0 || i >= len(rels) {
		return keys
	}
	r, _ := rels[i].(map[string]any)
	entity := func(alias any) string {
		for _, n := range asArray(doc["nodes"]) {
			if nm, _ := n.(map[string]any); nm != nil && nm["id"] == alias {
				s, _ := nm["entity"].(string)
				return s
			}
		}
		return ""
	}
	var types []string
	star := false
	switch t := r["type"].(type) {
	case string:
		star = t == "*"
		types = []string{t}
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				star = star || s == "*"
				types = append(types, s)
			}
		}
	}
	direction, _ := r["direction"].(string)
	if direction == "" {
		direction = "outgoing"
	}
	maxHops := 1
	if h := asArray(r["hops"]); len(h) == 2 {
		if n, ok := h[1].(json.Number); ok {
			if v, err := strconv.Atoi(n.String()); err == nil && v > 1 {
				maxHops = v
			}
		}
	}
	from, to := entity(r["from"]), entity(r["to"])
	if from == "" || to == "" {
		return keys
	}
	return append(keys, edgePropsOf(cat, concreteTypes(cat, types, star, direction, from, to, maxHops))...)
}

// parentPtr is the pointer of the object or array that holds the value at p.
func parentPtr(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

func locPtr(loc []string) string {
	toks := make([]any, len(loc))
	for i, s := range loc {
		toks[i] = s
	}
	return ptr(toks...)
}

// typeMismatch reports whether a branch failed because the instance had the wrong JSON type.
func typeMismatch(e *jsonschema.ValidationError, loc []string) bool {
	if _, ok := e.ErrorKind.(*kind.Type); ok && slices.Equal(e.InstanceLocation, loc) {
		return true
	}
	if _, ok := e.ErrorKind.(*kind.Const); ok && slices.Equal(e.InstanceLocation, loc) && len(e.Causes) == 0 {
		return false
	}
	for _, c := range e.Causes {
		if slices.Equal(c.InstanceLocation, loc) && typeMismatch(c, loc) {
			return true
		}
	}
	return false
}

// collect appends the leaf failures of e to out, marking missing-field ones in missing.
func collect(e *jsonschema.ValidationError, doc map[string]any, cat *catalog, out *[]*Error, missing map[*Error]bool) {
	switch e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		var live []*jsonschema.ValidationError
		for _, c := range e.Causes {
			if !typeMismatch(c, e.InstanceLocation) {
				live = append(live, c)
			}
		}
		if len(live) == 1 {
			collect(live[0], doc, cat, out, missing)
			return
		}
		*out = append(*out, newErr(locPtr(e.InstanceLocation), ErrSchemaViolation, "value has an unexpected shape"))
		return
	}
	if k, ok := e.ErrorKind.(*kind.PropertyNames); ok {
		// The causes point at the object, not at the offending key; name the key instead.
		// The validator's InstanceLocation for this kind aliases a buffer it reuses for
		// later siblings, so only its length is reliable: the object is found in doc.
		// Operator objects lie one or two levels below a filters object
		// (/nodes/0/filters/state, /nodes/0/filters/added_lines/1), filters objects at 3.
		if depth := len(e.InstanceLocation); depth >= 4 {
			at := opObjectWithKey(doc, k.Property, depth)
			*out = append(*out, newErr(sub(at, k.Property), ErrUnknownField, "unknown operator "+strconv.Quote(k.Property)+didYouMean(k.Property, operators), operators...))
			return
		}
		at := filtersWithKey(doc, k.Property, len(e.InstanceLocation))
		if strings.HasPrefix(at, "/relationships/") {
			*out = append(*out, newErr(sub(at, k.Property), ErrUnknownField, "unknown relationship filter "+strconv.Quote(k.Property), relFilterKeys(doc, parentPtr(at), cat)...))
			return
		}
		*out = append(*out, newErr(sub(at, k.Property), ErrUnknownField, "filter key "+strconv.Quote(k.Property)+" is not a valid name (lower-case letters, digits and _, at most 64 characters)"))
		return
	}
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			collect(c, doc, cat, out, missing)
		}
		return
	}
	te := translate(e, doc, cat)
	if _, ok := e.ErrorKind.(*kind.Required); ok {
		missing[te] = true
	}
	*out = append(*out, te)
}

// shapeRule names the per-query-type rule of the schema ($defs/TraversalShape, …) that e
// comes from, or "".
func shapeRule(e *jsonschema.ValidationError) string {
	_, frag, _ := strings.Cut(e.SchemaURL, "#/$defs/")
	name, _, _ := strings.Cut(frag, "/")
	if strings.HasSuffix(name, "Shape") {
		return name
	}
	return ""
}

// translateShape turns a failure of a per-query-type rule into the reason and message the
// semantic pass would give, so that a query breaking one reads the same whichever layer
// catches it. It returns nil for failures that need no special wording.
func translateShape(e *jsonschema.ValidationError, doc map[string]any) *Error {
	loc := e.InstanceLocation
	qt, _ := doc["query_type"].(string)
	if _, ok := e.ErrorKind.(*kind.FalseSchema); ok && len(loc) == 1 {
		return newErr(locPtr(loc), ErrFieldNotAllowed, "field "+strconv.Quote(loc[0])+" is not allowed in "+withArticle(qt)+" query")
	}
	switch shapeRule(e) {
	case "TraversalShape":
		if len(loc) == 1 && (loc[0] == "nodes" || loc[0] == "relationships") {
			n := len(asArray(doc["nodes"]))
			if n == 1 {
				return newErr("/relationships", ErrInvalidShape, "a single-node traversal must not have a relationships field")
			}
			return newErr("/relationships", ErrInvalidShape, "the query needs exactly "+strconv.Itoa(n-1)+" relationships to connect "+strconv.Itoa(n)+" nodes as a tree")
		}
	case "AggregationShape":
		if len(loc) == 3 && loc[0] == "relationships" && loc[2] == "direction" {
			return newErr(locPtr(loc), ErrInvalidShape, "aggregations allow only outgoing or incoming relationships (as in Orbit); split a both-ways count into one query per direction")
		}
	case "PathFindingShape":
		if len(loc) == 1 && loc[0] == "nodes" {
			return newErr("/nodes", ErrInvalidShape, "path finding needs exactly 2 nodes (the two ends of the path)")
		}
	case "NeighborsShape":
		if len(loc) == 1 && loc[0] == "nodes" {
			return newErr("/nodes", ErrInvalidShape, "neighbors needs exactly 1 node (the center)")
		}
	}
	return nil
}

// withArticle prefixes a query type with its indefinite article: "an aggregation".
func withArticle(qt string) string {
	if qt == qAggregation {
		return "an " + qt
	}
	return "a " + qt
}

func asArray(v any) []any {
	a, _ := v.([]any)
	return a
}

// opObjectWithKey returns the pointer of the first operator object, depth tokens below the
// root in document order, that has key: an object under /nodes/i/filters or
// /relationships/i/filters.
func opObjectWithKey(doc map[string]any, key string, depth int) string {
	return objectWithKey(doc, key, depth, func(toks []any) bool { return toks[2] == "filters" })
}

// objectWithKey returns the pointer of the first object exactly depth tokens below the root,
// in document order (object keys sorted), that has key and whose path tokens satisfy at.
func objectWithKey(doc map[string]any, key string, depth int, at func(toks []any) bool) string {
	var find func(v any, toks []any) (string, bool)
	find = func(v any, toks []any) (string, bool) {
		if len(toks) > depth {
			return "", false
		}
		switch x := v.(type) {
		case map[string]any:
			if _, ok := x[key]; ok && len(toks) == depth && at(toks) {
				return ptr(toks...), true
			}
			for _, k := range slices.Sorted(maps.Keys(x)) {
				if p, ok := find(x[k], append(slices.Clip(toks), k)); ok {
					return p, true
				}
			}
		case []any:
			for i, e := range x {
				if p, ok := find(e, append(slices.Clip(toks), i)); ok {
					return p, true
				}
			}
		}
		return "", false
	}
	p, _ := find(doc, nil)
	return p
}

func translate(e *jsonschema.ValidationError, doc map[string]any, cat *catalog) *Error {
	if se := translateShape(e, doc); se != nil {
		return se
	}
	at := locPtr(e.InstanceLocation)
	loc := e.InstanceLocation
	switch k := e.ErrorKind.(type) {
	case *kind.Enum:
		got := fmt.Sprint(k.Got)
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = fmt.Sprint(w)
		}
		slices.Sort(want)
		switch {
		case len(loc) == 3 && loc[0] == "nodes" && loc[2] == "entity":
			return newErr(at, ErrUnknownEntity, "unknown entity "+strconv.Quote(got)+didYouMean(got, cat.entityNames), cat.entityNames...)
		case isRelTypeLoc(loc):
			return newErr(at, ErrUnknownRelationship, "unknown relationship type "+strconv.Quote(got)+didYouMean(got, cat.relNames), cat.relNames...)
		}
		return newErr(at, ErrSchemaViolation, "unknown value "+strconv.Quote(got), want...)
	case *kind.AdditionalProperties:
		field := k.Properties[0]
		return newErr(sub(at, field), ErrUnknownField, "unknown field "+strconv.Quote(field))
	case *kind.Required:
		return newErr(at, ErrSchemaViolation, "missing required field "+strconv.Quote(k.Missing[0]))
	case *kind.MaxItems:
		return newErr(at, ErrLimitExceeded, fmt.Sprintf("at most %d items allowed (got %d)", k.Want, k.Got))
	case *kind.MinItems:
		return newErr(at, ErrSchemaViolation, fmt.Sprintf("at least %d items required (got %d)", k.Want, k.Got))
	case *kind.MaxProperties:
		return newErr(at, ErrLimitExceeded, fmt.Sprintf("at most %d fields allowed (got %d)", k.Want, k.Got))
	case *kind.MinProperties:
		if len(loc) == 2 && loc[0] == "group_by" {
			return newErr(at, ErrSchemaViolation, "a group_by object needs truncate or as besides key (as in Orbit); write the plain string \"alias.property\" otherwise")
		}
		return newErr(at, ErrSchemaViolation, fmt.Sprintf("at least %d fields required (got %d)", k.Want, k.Got))
	case *kind.Maximum:
		return newErr(at, ErrLimitExceeded, "value must be at most "+k.Want.RatString())
	case *kind.Minimum:
		return newErr(at, ErrLimitExceeded, "value must be at least "+k.Want.RatString())
	case *kind.MaxLength:
		return newErr(at, ErrLimitExceeded, fmt.Sprintf("at most %d characters allowed (got %d)", k.Want, k.Got))
	case *kind.Type:
		return newErr(at, ErrSchemaViolation, "value is "+article(k.Got)+", expected "+strings.Join(articles(k.Want), " or "))
	case *kind.Const:
		return newErr(at, ErrSchemaViolation, "value must be "+fmt.Sprint(k.Want))
	case *kind.Pattern:
		if len(loc) == 3 && loc[0] == "aggregations" {
			if loc[2] == "count" {
				return newErr(at, ErrSchemaViolation, "the target must be \"alias\" or \"alias.property\"")
			}
			return newErr(at, ErrSchemaViolation, loc[2]+" needs a property target \"alias.property\"")
		}
		return newErr(at, ErrSchemaViolation, "value has an invalid format")
	}
	return newErr(at, ErrSchemaViolation, "value does not match the schema")
}

func isRelTypeLoc(loc []string) bool {
	n := len(loc)
	switch {
	case n >= 3 && loc[0] == "relationships" && loc[2] == "type":
		return true
	case n >= 2 && (loc[0] == "path" || loc[0] == "neighbors") && loc[1] == "rel_types":
		return true
	}
	return false
}

func article(t string) string {
	switch t {
	case "integer", "object", "array":
		return "an " + t
	case "null":
		return "null"
	}
	return "a " + t
}

func articles(ts []string) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = article(t)
	}
	return out
}

// didYouMean suggests the one option within Damerau–Levenshtein distance 2 of got.
func didYouMean(got string, options []string) string {
	best, n := "", 0
	for _, o := range options {
		if editdist.OSA(strings.ToLower(got), strings.ToLower(o)) <= 2 {
			best, n = o, n+1
		}
	}
	if n != 1 {
		return ""
	}
	return " (did you mean " + strconv.Quote(best) + "?)"
}
