package chdb

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
)

// setting is one "key = value" of a SETTINGS clause, the value as SQL text.
type setting struct{ key, text string }

var settingRE = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// limits are what the executor itself adds to every statement.
type limits struct {
	left        time.Duration // time left before the context's deadline; zero or less: none
	queryMemory int64         // cap on max_memory_usage; zero or negative: none
	marker      string        // log_comment naming the statement for KILL QUERY
}

// statementSQL returns q.SQL with the settings it must run with merged into its trailing
// SETTINGS clause, so that the statement and its settings travel in one call.
//
// The SQL's own SETTINGS clause is authoritative: a key of q.Settings that the clause already
// sets is not repeated. Keys it does not set are appended (readonly is skipped: query
// connections already run with readonly = 2, which may not be changed). Then the executor's
// limits: max_execution_time is lowered to the time left before the deadline (seconds, to the
// millisecond, at least 0.001; see [executor.DeadlineSeconds]) with timeout_overflow_mode =
// 'throw', max_memory_usage is lowered to lim.queryMemory when it allows more or nothing, and
// log_comment carries lim.marker. Within one SETTINGS clause the last value of a key wins, so
// appending ", key = value" overrides the clause's earlier value; a second SETTINGS clause
// would not (the SELECT's own clause is applied after the query-level one).
func statementSQL(q *compiler.Query, lim limits) (string, error) {
	body, clause, hasClause := splitSettings(q.SQL)
	have := map[string]string{}
	for _, s := range clause {
		have[s.key] = s.text
	}
	var add []setting
	set := func(key, text string) {
		for i := range add {
			if add[i].key == key {
				add[i].text = text
				return
			}
		}
		add = append(add, setting{key, text})
	}
	for _, s := range q.Settings {
		if !settingRE.MatchString(s.Key) {
			return "", fmt.Errorf("invalid setting name %q", s.Key)
		}
		if s.Key == "readonly" {
			continue
		}
		if _, ok := have[s.Key]; ok {
			continue
		}
		v, err := executor.SettingText(s.Value)
		if err != nil {
			return "", fmt.Errorf("setting %s: %w", s.Key, err)
		}
		set(s.Key, v)
	}
	current := func(key string) (string, bool) {
		for _, s := range add {
			if s.key == key {
				return s.text, true
			}
		}
		v, ok := have[key]
		return v, ok
	}
	if lim.left > 0 {
		left := executor.DeadlineSeconds(lim.left)
		text, ok := current("max_execution_time")
		if n, isNum := number(text); !ok || !isNum || n <= 0 || left < n {
			set("max_execution_time", strconv.FormatFloat(left, 'f', -1, 64))
		}
		// The default, but a statement that reached its limit must fail, never answer
		// with what it had read so far (timeout_overflow_mode = 'break').
		set("timeout_overflow_mode", "'throw'")
	}
	if lim.queryMemory > 0 {
		// Without the key, the connection's own max_memory_usage (the same cap) applies.
		if text, ok := current("max_memory_usage"); ok {
			if n, isNum := number(text); !isNum || n <= 0 || n > float64(lim.queryMemory) {
				set("max_memory_usage", strconv.FormatInt(lim.queryMemory, 10))
			}
		}
	}
	if lim.marker != "" {
		set("log_comment", "'"+lim.marker+"'") // the marker is ours: [a-z0-9-] only
	}
	if len(add) == 0 {
		return q.SQL, nil
	}
	var sb strings.Builder
	sb.WriteString(body)
	if hasClause {
		sb.WriteString(", ")
	} else {
		sb.WriteString("\nSETTINGS ")
	}
	for i, s := range add {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(s.key + " = " + s.text)
	}
	return sb.String(), nil
}

// number parses a numeric setting value.
func number(text string) (float64, bool) {
	f, err := strconv.ParseFloat(text, 64)
	return f, err == nil
}

// splitSettings finds the statement's trailing SETTINGS clause: the last SETTINGS keyword
// outside parentheses, strings, quoted names and comments, followed only by
// "key = value, …" up to the end (and an optional semicolon). It returns the SQL up to the
// clause's last value (trailing blanks and semicolon cut off) and the clause's settings. When
// there is no such clause it returns the SQL without trailing blanks and semicolons, and
// hasClause false.
func splitSettings(sql string) (body string, clause []setting, hasClause bool) {
	trimmed := strings.TrimRight(sql, " \t\r\n;")
	kw := lastTopLevelSettings(trimmed)
	if kw < 0 {
		return trimmed, nil, false
	}
	clause, ok := parseSettingList(trimmed[kw+len("SETTINGS"):])
	if !ok {
		return trimmed, nil, false
	}
	return trimmed, clause, true
}

// lastTopLevelSettings returns the offset of the last SETTINGS keyword at parenthesis depth
// zero, or -1.
func lastTopLevelSettings(sql string) int {
	last, depth := -1, 0
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			i = skipQuoted(sql, i)
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			if j := strings.IndexByte(sql[i:], '\n'); j >= 0 {
				i += j + 1
			} else {
				i = len(sql)
			}
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			if j := strings.Index(sql[i+2:], "*/"); j >= 0 {
				i += j + 4
			} else {
				i = len(sql)
			}
		case c == '(' || c == '[':
			depth++
			i++
		case c == ')' || c == ']':
			depth--
			i++
		case isIdentByte(c):
			j := i
			for j < len(sql) && isIdentByte(sql[j]) {
				j++
			}
			if depth == 0 && strings.EqualFold(sql[i:j], "SETTINGS") && (i == 0 || !isIdentByte(sql[i-1])) {
				last = i
			}
			i = j
		default:
			i++
		}
	}
	return last
}

// skipQuoted returns the offset just past the quoted token starting at sql[i]. A backslash
// escapes the next byte and a doubled quote stands for one.
func skipQuoted(sql string, i int) int {
	q := sql[i]
	for j := i + 1; j < len(sql); j++ {
		switch sql[j] {
		case '\\':
			j++
		case q:
			if j+1 < len(sql) && sql[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(sql)
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// parseSettingList parses "key = value, key = value" (values: numbers, quoted strings or plain
// words) covering all of s.
func parseSettingList(s string) ([]setting, bool) {
	var out []setting
	i := 0
	skip := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++
		}
	}
	for {
		skip()
		j := i
		for j < len(s) && isIdentByte(s[j]) {
			j++
		}
		if j == i {
			return nil, false
		}
		key := strings.ToLower(s[i:j])
		i = j
		skip()
		if i >= len(s) || s[i] != '=' {
			return nil, false
		}
		i++
		skip()
		j = i
		switch {
		case j < len(s) && s[j] == '\'':
			j = skipQuoted(s, j)
		default:
			for j < len(s) && (isIdentByte(s[j]) || s[j] == '.' || s[j] == '-' || s[j] == '+') {
				j++
			}
		}
		if j == i {
			return nil, false
		}
		out = append(out, setting{key, s[i:j]})
		i = j
		skip()
		if i == len(s) {
			return out, true
		}
		if s[i] != ',' {
			return nil, false
		}
		i++
	}
}
