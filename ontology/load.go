package ontology

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

var (
	entityNameRE = regexp.MustCompile(`^[A-Z][A-Za-z0-9]{0,63}$`)
	relNameRE    = regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,63}$`)
	tableRE      = regexp.MustCompile(`^[a-z][a-z0-9_]{0,62}$`)
	propNameRE   = regexp.MustCompile(`^[a-z][a-z0-9_]{0,62}$`)
	generatedRE  = regexp.MustCompile(`^[a-z][0-9]+(_.*)?$|^[a-z]$`)
	// sqlKeywords are refused as property names. "when" is not among them: ClickHouse takes it as
	// a bare column name in every position the DDL and the compiler write one (t.when, AS when,
	// a CREATE TABLE column), and Orbit's Job has a property of that name.
	sqlKeywords    = strings.Fields("all and array as asc between by case cast desc distinct else end false final from global group having in inner interval is join left like limit not null offset on or order prewhere right sample select settings then true union using where with")
	propertyTypes  = []string{"Int64", "Float64", "Bool", "String", "LowCardinality(String)", "Date32", "DateTime64(0, 'UTC')"}
	accessLevels   = []int{10, 15, 20, 25, 30, 40, 50}
	indexKinds     = []string{"none", "bloom", "ngram", "set"}
	reservedFields = []string{"id", "type", "traversal_path", "_version", "_deleted"}
)

// Load reads and validates an ontology directory: ontology.yaml, entities/*.yaml and
// relationships/*.yaml in fsys. The first problem found is returned as an [*Error].
func Load(fsys fs.FS) (*Ontology, error) {
	l := &loader{fsys: fsys, hash: sha256.New()}
	o, err := l.load()
	if err != nil {
		return nil, err
	}
	o.Fingerprint = "sha256:" + hex.EncodeToString(l.hash.Sum(nil))
	return o, nil
}

type loader struct {
	fsys fs.FS
	hash hash.Hash
	// entityAt records the file of each entity, for errors found after parsing.
	entityAt map[string]loc
}

type loc struct {
	file string
	line int
}

func (l *loader) load() (*Ontology, error) {
	o := &Ontology{}
	if err := l.global(o); err != nil {
		return nil, err
	}
	l.entityAt = map[string]loc{}
	files, err := l.list("entities")
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		e, err := l.entity(f, o)
		if err != nil {
			return nil, err
		}
		if prev, dup := l.entityAt[e.Name]; dup {
			return nil, errAt(f, 1, 1, ErrDuplicate, "entity %s is also declared in %s", e.Name, prev.file)
		}
		l.entityAt[e.Name] = loc{f, 1}
		o.Entities = append(o.Entities, e)
	}
	tables := map[string]string{}
	for _, e := range o.Entities {
		if other, dup := tables[e.Table]; dup {
			return nil, errAt(l.entityAt[e.Name].file, 0, 0, ErrDuplicate, "table %s is used by %s and %s", e.Table, other, e.Name)
		}
		tables[e.Table] = e.Name
	}
	slices.SortFunc(o.Entities, func(a, b *Entity) int { return cmpString(a.Name, b.Name) })

	files, err = l.list("relationships")
	if err != nil {
		return nil, err
	}
	relAt := map[string]string{}
	for _, f := range files {
		r, err := l.relationship(f, o)
		if err != nil {
			return nil, err
		}
		if prev, dup := relAt[r.Name]; dup {
			return nil, errAt(f, 1, 1, ErrDuplicate, "relationship %s is also declared in %s", r.Name, prev)
		}
		relAt[r.Name] = f
		o.Relationships = append(o.Relationships, r)
	}
	slices.SortFunc(o.Relationships, func(a, b *Relationship) int { return cmpString(a.Name, b.Name) })
	if len(o.Entities) == 0 {
		return nil, errAt("entities", 0, 0, ErrInvalid, "no entities")
	}
	return o, nil
}

// list returns the .yaml files of dir in sorted order.
func (l *loader) list(dir string) ([]string, error) {
	entries, err := fs.ReadDir(l.fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("ontology: read %s: %w", dir, err)
	}
	var files []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".yaml") {
			files = append(files, path.Join(dir, e.Name()))
		}
	}
	slices.Sort(files)
	return files, nil
}

// read parses file into its root mapping node and feeds the fingerprint.
func (l *loader) read(file string) (*yaml.Node, error) {
	data, err := fs.ReadFile(l.fsys, file)
	if err != nil {
		return nil, fmt.Errorf("ontology: read %s: %w", file, err)
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		line := 0
		if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		return nil, errAt(file, line, 0, ErrSyntax, "%v", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errAt(file, doc.Line, doc.Column, ErrSyntax, "want a mapping at the top level")
	}
	// The fingerprint covers the file name and the content with comments stripped, so it
	// changes exactly when the ontology does.
	canon, err := yaml.Marshal(stripComments(doc.Content[0]))
	if err != nil {
		return nil, fmt.Errorf("ontology: canonicalize %s: %w", file, err)
	}
	fmt.Fprintf(l.hash, "%s\n%d\n", file, len(canon))
	l.hash.Write(canon)
	return doc.Content[0], nil
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

func stripComments(n *yaml.Node) *yaml.Node {
	c := *n
	c.HeadComment, c.LineComment, c.FootComment = "", "", ""
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, k := range n.Content {
		c.Content[i] = stripComments(k)
	}
	return &c
}

// fields checks that n is a mapping with only the allowed keys, each at most once, and that
// every required key is present.
func fields(file string, n *yaml.Node, allowed, required []string) (map[string]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, errAt(file, n.Line, n.Column, ErrSyntax, "want a mapping")
	}
	m := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !slices.Contains(allowed, k.Value) {
			return nil, errAt(file, k.Line, k.Column, ErrUnknownField, "%q (allowed: %s)", k.Value, strings.Join(allowed, ", "))
		}
		if _, dup := m[k.Value]; dup {
			return nil, errAt(file, k.Line, k.Column, ErrDuplicate, "key %q appears twice", k.Value)
		}
		m[k.Value] = v
	}
	for _, r := range required {
		if _, ok := m[r]; !ok {
			return nil, errAt(file, n.Line, n.Column, ErrInvalid, "missing required key %q", r)
		}
	}
	return m, nil
}

func str(file string, n *yaml.Node) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", errAt(file, n.Line, n.Column, ErrSyntax, "want a string")
	}
	return n.Value, nil
}

func integer(file string, n *yaml.Node) (int, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		return 0, errAt(file, n.Line, n.Column, ErrSyntax, "want an integer")
	}
	v, err := strconv.Atoi(n.Value)
	if err != nil {
		return 0, errAt(file, n.Line, n.Column, ErrSyntax, "want an integer")
	}
	return v, nil
}

func boolean(file string, n *yaml.Node) (bool, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		return false, errAt(file, n.Line, n.Column, ErrSyntax, "want true or false")
	}
	return n.Value == "true", nil
}

func description(file string, n *yaml.Node) (string, error) {
	s, err := str(file, n)
	if err != nil {
		return "", err
	}
	if len([]rune(s)) > 200 {
		return "", errAt(file, n.Line, n.Column, ErrInvalid, "description longer than 200 characters")
	}
	return s, nil
}

func (l *loader) global(o *Ontology) error {
	const file = "ontology.yaml"
	root, err := l.read(file)
	if err != nil {
		return err
	}
	keys := []string{"format", "version", "table_prefix", "edge_table", "edge_table_by_target", "default_min_access_level"}
	m, err := fields(file, root, keys, keys)
	if err != nil {
		return err
	}
	if o.Format, err = integer(file, m["format"]); err != nil {
		return err
	}
	if o.Format != 1 {
		return errAt(file, m["format"].Line, m["format"].Column, ErrInvalid, "format %d, want 1", o.Format)
	}
	if o.Version, err = integer(file, m["version"]); err != nil {
		return err
	}
	if o.Version < 1 {
		return errAt(file, m["version"].Line, m["version"].Column, ErrInvalid, "version must be positive")
	}
	for key, dst := range map[string]*string{"table_prefix": &o.TablePrefix, "edge_table": &o.EdgeTable, "edge_table_by_target": &o.EdgeTableByTarget} {
		if *dst, err = str(file, m[key]); err != nil {
			return err
		}
		if !tableRE.MatchString(*dst) && !(key == "table_prefix" && *dst == "") {
			return errAt(file, m[key].Line, m[key].Column, ErrInvalid, "%s %q is not a valid table name", key, *dst)
		}
	}
	if o.DefaultMinAccessLevel, err = integer(file, m["default_min_access_level"]); err != nil {
		return err
	}
	if !slices.Contains(accessLevels, o.DefaultMinAccessLevel) {
		n := m["default_min_access_level"]
		return errAt(file, n.Line, n.Column, ErrInvalid, "access level %d is not one of %v", o.DefaultMinAccessLevel, accessLevels)
	}
	return nil
}

// snake converts MergeRequest to merge_request and HAS_NOTE to has_note.
func snake(name string) string {
	var b strings.Builder
	for i, r := range name {
		if r >= 'A' && r <= 'Z' {
			if i > 0 && name[i-1] >= 'a' && name[i-1] <= 'z' || i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (l *loader) entity(file string, o *Ontology) (*Entity, error) {
	root, err := l.read(file)
	if err != nil {
		return nil, err
	}
	m, err := fields(file, root,
		[]string{"entity", "description", "table", "scope", "min_access_level", "label", "properties"},
		[]string{"entity", "description", "scope", "properties"})
	if err != nil {
		return nil, err
	}
	e := &Entity{}
	n := m["entity"]
	if e.Name, err = str(file, n); err != nil {
		return nil, err
	}
	if !entityNameRE.MatchString(e.Name) {
		return nil, errAt(file, n.Line, n.Column, ErrInvalid, "entity name %q does not match %s", e.Name, entityNameRE)
	}
	if want := "entities/" + snake(e.Name) + ".yaml"; want != file {
		return nil, errAt(file, n.Line, n.Column, ErrInvalid, "entity %s must be in %s", e.Name, want)
	}
	if e.Description, err = description(file, m["description"]); err != nil {
		return nil, err
	}
	e.Table = o.TablePrefix + snake(e.Name)
	if t, ok := m["table"]; ok {
		if e.Table, err = str(file, t); err != nil {
			return nil, err
		}
		if !tableRE.MatchString(e.Table) {
			return nil, errAt(file, t.Line, t.Column, ErrInvalid, "table %q does not match %s", e.Table, tableRE)
		}
	}
	if e.Table == o.EdgeTable || e.Table == o.EdgeTableByTarget {
		return nil, errAt(file, n.Line, n.Column, ErrDuplicate, "table %s is an edge table", e.Table)
	}
	s := m["scope"]
	if e.Scope, err = str(file, s); err != nil {
		return nil, err
	}
	if e.Scope != ScopeNamespaced && e.Scope != ScopeGlobal {
		return nil, errAt(file, s.Line, s.Column, ErrInvalid, "scope %q, want namespaced or global", e.Scope)
	}
	if a, ok := m["min_access_level"]; ok {
		if !e.Namespaced() {
			return nil, errAt(file, a.Line, a.Column, ErrInvalid, "min_access_level only applies to namespaced entities")
		}
		if e.MinAccessLevel, err = integer(file, a); err != nil {
			return nil, err
		}
		if !slices.Contains(accessLevels, e.MinAccessLevel) {
			return nil, errAt(file, a.Line, a.Column, ErrInvalid, "access level %d is not one of %v", e.MinAccessLevel, accessLevels)
		}
	} else if e.Namespaced() {
		e.MinAccessLevel = o.DefaultMinAccessLevel
	}
	props := m["properties"]
	if props.Kind != yaml.SequenceNode || len(props.Content) == 0 {
		return nil, errAt(file, props.Line, props.Column, ErrInvalid, "properties must be a non-empty list")
	}
	seen := map[string]bool{}
	hasDefault := false
	for _, pn := range props.Content {
		p, err := property(file, pn)
		if err != nil {
			return nil, err
		}
		if seen[p.Name] {
			return nil, errAt(file, pn.Line, pn.Column, ErrDuplicate, "property %s appears twice", p.Name)
		}
		seen[p.Name] = true
		hasDefault = hasDefault || p.Default
		e.Properties = append(e.Properties, p)
	}
	if !hasDefault {
		return nil, errAt(file, props.Line, props.Column, ErrInvalid, "entity %s has no default property", e.Name)
	}
	if lb, ok := m["label"]; ok {
		if e.Label, err = str(file, lb); err != nil {
			return nil, err
		}
		if !seen[e.Label] {
			return nil, errAt(file, lb.Line, lb.Column, ErrDangling, "label %q is not a property", e.Label)
		}
		if p, _ := e.Property(e.Label); p.AdminOnly || p.Virtual {
			return nil, errAt(file, lb.Line, lb.Column, ErrInvalid, "label %q is admin_only or virtual; every reader must see the label", e.Label)
		}
	}
	return e, nil
}

func property(file string, n *yaml.Node) (Property, error) {
	m, err := fields(file, n,
		[]string{"name", "type", "nullable", "enum", "filterable", "default", "long_text", "index", "description", "admin_only", "virtual", "stored", "tokens"},
		[]string{"name", "type"})
	if err != nil {
		return Property{}, err
	}
	p := Property{Filterable: true, Index: "none"}
	nn := m["name"]
	if p.Name, err = str(file, nn); err != nil {
		return p, err
	}
	if !propNameRE.MatchString(p.Name) || slices.Contains(reservedFields, p.Name) || strings.HasPrefix(p.Name, "_") ||
		generatedRE.MatchString(p.Name) || slices.Contains(sqlKeywords, p.Name) {
		return p, errAt(file, nn.Line, nn.Column, ErrInvalid, "property name %q is invalid or reserved", p.Name)
	}
	tn := m["type"]
	if p.Type, err = str(file, tn); err != nil {
		return p, err
	}
	if !slices.Contains(propertyTypes, p.Type) {
		return p, errAt(file, tn.Line, tn.Column, ErrInvalid, "type %q is not one of %s", p.Type, strings.Join(propertyTypes, ", "))
	}
	for key, dst := range map[string]*bool{"nullable": &p.Nullable, "filterable": &p.Filterable, "default": &p.Default, "long_text": &p.LongText, "admin_only": &p.AdminOnly, "virtual": &p.Virtual, "stored": &p.Stored, "tokens": &p.Tokens} {
		if v, ok := m[key]; ok {
			if *dst, err = boolean(file, v); err != nil {
				return p, err
			}
		}
	}
	if v, ok := m["index"]; ok {
		if p.Index, err = str(file, v); err != nil {
			return p, err
		}
		if !slices.Contains(indexKinds, p.Index) {
			return p, errAt(file, v.Line, v.Column, ErrInvalid, "index %q is not one of %s", p.Index, strings.Join(indexKinds, ", "))
		}
	}
	if v, ok := m["description"]; ok {
		if p.Description, err = description(file, v); err != nil {
			return p, err
		}
	}
	if v, ok := m["enum"]; ok {
		if p.Type != "LowCardinality(String)" {
			return p, errAt(file, v.Line, v.Column, ErrInvalid, "enum needs type LowCardinality(String)")
		}
		if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
			return p, errAt(file, v.Line, v.Column, ErrInvalid, "enum must be a non-empty list")
		}
		for _, ln := range v.Content {
			label, err := str(file, ln)
			if err != nil {
				return p, err
			}
			if label == "" || len(label) > 64 {
				return p, errAt(file, ln.Line, ln.Column, ErrInvalid, "enum label must have 1 to 64 characters")
			}
			if slices.Contains(p.Enum, label) {
				return p, errAt(file, ln.Line, ln.Column, ErrDuplicate, "enum label %q appears twice", label)
			}
			p.Enum = append(p.Enum, label)
		}
	}
	if err := propertyRules(file, m, p); err != nil {
		return p, err
	}
	if p.Virtual {
		// A virtual value is fetched after the rows are read, so no filter can use it.
		p.Filterable = false
	}
	return p, nil
}

// propertyRules checks the combinations of admin_only and virtual with the other keys. Each
// error points at the key that conflicts.
func propertyRules(file string, m map[string]*yaml.Node, p Property) error {
	if p.AdminOnly && p.Default {
		n := m["default"]
		return errAt(file, n.Line, n.Column, ErrInvalid, "property %s is admin_only and cannot be a default column", p.Name)
	}
	if p.Tokens && ((p.Type != "String" && p.Type != "LowCardinality(String)") || len(p.Enum) > 0 || p.Virtual) {
		n := m["tokens"]
		return errAt(file, n.Line, n.Column, ErrInvalid, "property %s has tokens but is not a free-text String (tokens needs String or LowCardinality(String) without enum, not virtual)", p.Name)
	}
	if !p.Virtual {
		if p.Stored {
			n := m["stored"]
			return errAt(file, n.Line, n.Column, ErrInvalid, "property %s is stored but not virtual; stored applies only to virtual properties", p.Name)
		}
		return nil
	}
	v := m["virtual"]
	switch {
	case p.Type != "String":
		return errAt(file, v.Line, v.Column, ErrInvalid, "virtual property %s must have type String, not %s", p.Name, p.Type)
	case !p.Nullable:
		return errAt(file, v.Line, v.Column, ErrInvalid, "virtual property %s must be nullable: the repository service may have no value", p.Name)
	case p.Default:
		n := m["default"]
		return errAt(file, n.Line, n.Column, ErrInvalid, "virtual property %s cannot be a default column", p.Name)
	case m["filterable"] != nil && p.Filterable:
		n := m["filterable"]
		return errAt(file, n.Line, n.Column, ErrInvalid, "virtual property %s cannot be filterable", p.Name)
	case p.Index != "none":
		n := m["index"]
		return errAt(file, n.Line, n.Column, ErrInvalid, "virtual property %s cannot have an index", p.Name)
	}
	return nil
}

func (l *loader) relationship(file string, o *Ontology) (*Relationship, error) {
	root, err := l.read(file)
	if err != nil {
		return nil, err
	}
	m, err := fields(file, root, []string{"relationship", "description", "same_namespace", "edge_properties", "pairs"}, []string{"relationship", "description", "pairs"})
	if err != nil {
		return nil, err
	}
	r := &Relationship{}
	n := m["relationship"]
	if r.Name, err = str(file, n); err != nil {
		return nil, err
	}
	if !relNameRE.MatchString(r.Name) {
		return nil, errAt(file, n.Line, n.Column, ErrInvalid, "relationship name %q does not match %s", r.Name, relNameRE)
	}
	if want := "relationships/" + strings.ToLower(r.Name) + ".yaml"; want != file {
		return nil, errAt(file, n.Line, n.Column, ErrInvalid, "relationship %s must be in %s", r.Name, want)
	}
	if r.Description, err = description(file, m["description"]); err != nil {
		return nil, err
	}
	sameNS := m["same_namespace"]
	if sameNS != nil {
		if r.SameNamespace, err = boolean(file, sameNS); err != nil {
			return nil, err
		}
	}
	if ep := m["edge_properties"]; ep != nil {
		if ep.Kind != yaml.SequenceNode || len(ep.Content) == 0 {
			return nil, errAt(file, ep.Line, ep.Column, ErrInvalid, "edge_properties must be a list of %s", strings.Join(EdgeProperties, ", "))
		}
		for _, vn := range ep.Content {
			name, err := str(file, vn)
			if err != nil {
				return nil, err
			}
			if !slices.Contains(EdgeProperties, name) {
				return nil, errAt(file, vn.Line, vn.Column, ErrInvalid, "edge property %q: an edge carries only %s", name, strings.Join(EdgeProperties, ", "))
			}
			if slices.Contains(r.EdgeProperties, name) {
				return nil, errAt(file, vn.Line, vn.Column, ErrDuplicate, "edge property %q appears twice", name)
			}
			r.EdgeProperties = append(r.EdgeProperties, name)
		}
	}
	pairs := m["pairs"]
	if pairs.Kind != yaml.SequenceNode || len(pairs.Content) == 0 || len(pairs.Content) > 32 {
		return nil, errAt(file, pairs.Line, pairs.Column, ErrInvalid, "pairs must be a list of 1 to 32 items")
	}
	for _, pn := range pairs.Content {
		pm, err := fields(file, pn, []string{"from", "to", "fk", "description"}, []string{"from", "to"})
		if err != nil {
			return nil, err
		}
		var p Pair
		ends := map[string]*Entity{}
		for _, side := range []string{"from", "to"} {
			sn := pm[side]
			name, err := str(file, sn)
			if err != nil {
				return nil, err
			}
			e, ok := o.Entity(name)
			if !ok {
				return nil, errAt(file, sn.Line, sn.Column, ErrDangling, "%s: no entity %q", side, name)
			}
			ends[side] = e
		}
		p.From, p.To = ends["from"].Name, ends["to"].Name
		if !ends["from"].Namespaced() && !ends["to"].Namespaced() {
			return nil, errAt(file, pn.Line, pn.Column, ErrInvalid, "pair %s→%s connects two global entities", p.From, p.To)
		}
		if r.SameNamespace && (!ends["from"].Namespaced() || !ends["to"].Namespaced()) {
			return nil, errAt(file, pn.Line, pn.Column, ErrInvalid, "pair %s→%s has a global end, but the relationship is same_namespace", p.From, p.To)
		}
		if slices.ContainsFunc(r.Pairs, func(q Pair) bool { return q.From == p.From && q.To == p.To }) {
			return nil, errAt(file, pn.Line, pn.Column, ErrDuplicate, "pair %s→%s appears twice", p.From, p.To)
		}
		if fn, ok := pm["fk"]; ok {
			if p.FK, err = str(file, fn); err != nil {
				return nil, err
			}
			side, prop, ok := strings.Cut(p.FK, ".")
			e := ends[side]
			if !ok || e == nil {
				return nil, errAt(file, fn.Line, fn.Column, ErrInvalid, "fk %q must be from.<property> or to.<property>", p.FK)
			}
			pp, ok := e.Property(prop)
			if !ok {
				return nil, errAt(file, fn.Line, fn.Column, ErrDangling, "fk %q: %s has no property %q", p.FK, e.Name, prop)
			}
			if pp.Type != "Int64" {
				return nil, errAt(file, fn.Line, fn.Column, ErrInvalid, "fk %q: property %s.%s is %s, want Int64", p.FK, e.Name, prop, pp.Type)
			}
		}
		if dn, ok := pm["description"]; ok {
			if p.Description, err = description(file, dn); err != nil {
				return nil, err
			}
		}
		r.Pairs = append(r.Pairs, p)
	}
	return r, nil
}
