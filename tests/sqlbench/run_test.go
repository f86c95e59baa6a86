package sqlbench_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/internal/cputime"
)

// pair is the two statements of one case, ready to run.
type pair struct {
	compiled  *compiler.Query
	reference *compiler.Query // a two-step case's first statement
	steps     *steps          // nil unless the case is a two-step plan (steps_test.go)
}

// prepare compiles the case's DSL for its caller and reads its reference statement, binding
// the question's values and the caller's scope prefixes to the file's placeholders.
func prepare(c benchCase) (pair, error) {
	p, err := prepareCompiled(c)
	if err != nil {
		return pair{}, err
	}
	text, err := os.ReadFile(filepath.Join("testdata", c.file))
	if err != nil {
		return pair{}, err
	}
	params, err := bind(string(text), c.values())
	if err != nil {
		return pair{}, fmt.Errorf("%s: %w", c.file, err)
	}
	p.reference = &compiler.Query{SQL: string(text), Params: params, Settings: p.compiled.Settings}
	return p, nil
}

// prepareCompiled is the compiled side of prepare alone (runCompiled runs it).
func prepareCompiled(c benchCase) (pair, error) {
	comp, err := env.compiler.Compile([]byte(c.q.dsl), c.caller.caller)
	if err != nil {
		return pair{}, fmt.Errorf("compile %s: %w", c.name, err)
	}
	p := pair{compiled: comp}
	if c.q.steps {
		if p.steps, err = prepareSteps(c, comp); err != nil {
			return pair{}, err
		}
	}
	return p, nil
}

// values is what a hand-written statement of the case may bind: the question's values and
// the caller's scope values.
func (c benchCase) values() map[string]any {
	values := maps.Clone(c.q.params)
	maps.Copy(values, scopeParams(c.caller.caller))
	return values
}

var placeholderRE = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*):([^{}]+)\}`)

// bind is bindAll that also refuses a value no placeholder uses, so a file and its case cannot
// drift apart silently. The scope values are the exception: a statement uses the floors it
// reads (scope20_1, …), but then every prefix of that floor, lest it drop one of the caller's
// scopes.
func bind(sql string, values map[string]any) ([]compiler.Param, error) {
	params, err := bindAll(sql, values)
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	usedFloor := map[string]bool{}
	for _, p := range params {
		used[p.Name] = true
		if floor, _, ok := strings.Cut(p.Name, "_"); ok && strings.HasPrefix(floor, "scope") {
			usedFloor[floor] = true
		}
	}
	for _, name := range slices.Sorted(maps.Keys(values)) {
		if used[name] {
			continue
		}
		if floor, _, _ := strings.Cut(name, "_"); strings.HasPrefix(name, "scope") && !usedFloor[floor] {
			continue
		}
		return nil, fmt.Errorf("value %s has no placeholder", name)
	}
	return params, nil
}

// bindAll returns the parameters of sql's {name:Type} placeholders, in order of first use, with
// their values from values. A placeholder without a value and a name used with two types are
// errors; values no placeholder uses are not (see bind). A scope placeholder past the caller's
// prefixes of its floor (scope10_3 when the floor admits two) takes the floor's last prefix
// again: the reference files OR up to 3 prefixes at floor 10, 2 at 20 and 1 at 25, and a prefix
// twice in an OR admits what it admits once.
func bindAll(sql string, values map[string]any) ([]compiler.Param, error) {
	var params []compiler.Param
	types := map[string]string{}
	for _, m := range placeholderRE.FindAllStringSubmatch(sql, -1) {
		name, typ := m[1], m[2]
		if prev, ok := types[name]; ok {
			if prev != typ {
				return nil, fmt.Errorf("placeholder %s used as %s and as %s", name, prev, typ)
			}
			continue
		}
		v, ok := values[name]
		if !ok {
			v, ok = lastPrefix(name, values)
		}
		if !ok {
			return nil, fmt.Errorf("placeholder {%s:%s} has no value", name, typ)
		}
		types[name] = typ
		params = append(params, compiler.Param{Name: name, Type: typ, Value: v})
	}
	return params, nil
}

var scopeNameRE = regexp.MustCompile(`^(scope[0-9]+)_([0-9]+)$`)

// lastPrefix is, for a scope placeholder scope<floor>_<i> without a value, the value of the
// highest scope<floor>_<j>, j < i; none when the floor has no prefix at all.
func lastPrefix(name string, values map[string]any) (any, bool) {
	m := scopeNameRE.FindStringSubmatch(name)
	if m == nil {
		return nil, false
	}
	i, err := strconv.Atoi(m[2])
	if err != nil {
		return nil, false
	}
	for j := i - 1; j >= 1; j-- {
		if v, ok := values[m[1]+"_"+strconv.Itoa(j)]; ok {
			return v, true
		}
	}
	return nil, false
}

// outcome is one run of one statement.
type outcome struct {
	columns []executor.Column
	rows    []string // canonical rows, sorted
	digest  string   // hex SHA-256 over the column header and the sorted rows
	stats   executor.Stats
	wall    time.Duration // Run to the last row decoded
	cpu     time.Duration // process CPU time over the same span (0 where it cannot be read)
}

// execute runs q and reads every row. The engine runs in the process and the statements run
// one at a time, so the process CPU time around a statement is the CPU it took.
func execute(ctx context.Context, e executor.Executor, q *compiler.Query) (*outcome, error) {
	start := time.Now()
	cpu0, _ := cputime.Process()
	rows, err := e.Run(ctx, q)
	if err != nil {
		return nil, err
	}
	res, err := executor.Collect(rows)
	if err != nil {
		return nil, err
	}
	wall := time.Since(start)
	cpu1, _ := cputime.Process()
	return newOutcome(res.Columns, res.Rows, res.Stats, wall, cpu1-cpu0), nil
}

// newOutcome is the outcome of a run that returned rows with columns.
func newOutcome(columns []executor.Column, rows [][]any, stats executor.Stats, wall, cpu time.Duration) *outcome {
	o := &outcome{columns: columns, stats: stats, wall: wall, cpu: cpu}
	o.rows = make([]string, len(rows))
	for i, r := range rows {
		o.rows[i] = canonicalRow(r)
	}
	slices.Sort(o.rows)
	h := sha256.New()
	for _, c := range o.columns {
		fmt.Fprintf(h, "%s %s\n", strconv.Quote(c.Name), c.Type)
	}
	h.Write([]byte{'\n'})
	for _, r := range o.rows {
		h.Write([]byte(r))
		h.Write([]byte{'\n'})
	}
	o.digest = hex.EncodeToString(h.Sum(nil))
	return o
}

// canonicalRow encodes one row of the executor's value model as one line: values separated
// by TAB, each tagged with its Go type, strings quoted, so two rows have the same line exactly
// when every value is equal.
func canonicalRow(r []any) string {
	var b []byte
	for i, v := range r {
		if i > 0 {
			b = append(b, '\t')
		}
		b = appendCanonical(b, v)
	}
	return string(b)
}

func appendCanonical(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(append(b, "b:"...), x)
	case int64:
		return strconv.AppendInt(append(b, "i:"...), x, 10)
	case uint64:
		return strconv.AppendUint(append(b, "u:"...), x, 10)
	case float64:
		return strconv.AppendFloat(append(b, "f:"...), x, 'g', -1, 64)
	case string:
		return strconv.AppendQuote(append(b, "s:"...), x)
	case executor.Date:
		return append(append(b, "d:"...), x.String()...)
	case time.Time:
		return x.UTC().AppendFormat(append(b, "t:"...), time.RFC3339Nano)
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCanonical(b, e)
		}
		return append(b, ']')
	}
	return fmt.Appendf(b, "%T:%#v", v, v)
}

// header is the column list as one line, for messages.
func header(cols []executor.Column) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c.Name + " " + c.Type
	}
	return strings.Join(parts, ", ")
}

// difference describes how got (reference) differs from want (compiled): the column
// header, or up to five rows only one side has.
func difference(want, got *outcome) string {
	if hw, hg := header(want.columns), header(got.columns); hw != hg {
		return fmt.Sprintf("columns differ:\n  compiled:  %s\n  reference: %s", hw, hg)
	}
	onlyWant, onlyGot := multisetMinus(want.rows, got.rows), multisetMinus(got.rows, want.rows)
	var sb strings.Builder
	fmt.Fprintf(&sb, "compiled %d rows, reference %d rows; %d only in compiled, %d only in reference",
		len(want.rows), len(got.rows), len(onlyWant), len(onlyGot))
	for _, side := range []struct {
		name string
		rows []string
	}{{"compiled", onlyWant}, {"reference", onlyGot}} {
		for i, r := range side.rows {
			if i == 5 {
				fmt.Fprintf(&sb, "\n  … %d more only in %s", len(side.rows)-5, side.name)
				break
			}
			fmt.Fprintf(&sb, "\n  only in %s: %s", side.name, r)
		}
	}
	return sb.String()
}

// multisetMinus returns the rows of a (sorted) that b (sorted) does not account for.
func multisetMinus(a, b []string) []string {
	var out []string
	j := 0
	for _, r := range a {
		for j < len(b) && b[j] < r {
			j++
		}
		if j < len(b) && b[j] == r {
			j++
			continue
		}
		out = append(out, r)
	}
	return out
}
