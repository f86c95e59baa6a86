package gcf

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// line is one content line after §2.1 preprocessing.
type line struct {
	num    int    // physical line number, 1-based (header = 1)
	spaces int    // leading spaces
	level  int    // spaces / 2
	text   string // text after the indentation, trailing blanks removed
	raw    bool   // had leading whitespace (graph profile rejects it)
	tab    bool   // a tab in the leading whitespace
	odd    bool   // an odd number of leading spaces
}

func synErr(num, col int, sentinel error, detail string) *SyntaxError {
	if col < 1 {
		col = 1
	}
	return &SyntaxError{Line: num, Column: col, Err: sentinel, Detail: detail}
}

func (ln line) err(off int, sentinel error, detail string) *SyntaxError {
	return synErr(ln.num, ln.spaces+off+1, sentinel, detail)
}

// validateUTF8 checks the whole input (§2.1 rule 1).
func validateUTF8(data string) error {
	if utf8.ValidString(data) {
		return nil
	}
	lineNo, col := 1, 1
	for i := 0; i < len(data); {
		c := data[i]
		if c < utf8.RuneSelf {
			if c == '\n' {
				lineNo++
				col = 1
			} else {
				col++
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(data[i:])
		if r == utf8.RuneError && n <= 1 {
			if c == 0xED && i+1 < len(data) && data[i+1] >= 0xA0 && data[i+1] <= 0xBF {
				return synErr(lineNo, col, ErrInvalidSurrogate, "encoded surrogate code point")
			}
			return synErr(lineNo, col, ErrInvalidUTF8, "malformed UTF-8")
		}
		i += n
		col += n
	}
	return nil
}

func validUTF8(s string) bool { return utf8.ValidString(s) }

// splitInput validates and splits the input into the header line and the
// content lines, dropping blank lines and comments.
func splitInput(data string, lim Limits) (string, []line, error) {
	if len(data) > lim.MaxInputSize {
		return "", nil, synErr(1, 1, ErrLimit, "input larger than "+strconv.Itoa(lim.MaxInputSize)+" bytes")
	}
	if err := validateUTF8(data); err != nil {
		return "", nil, err
	}
	s := data
	var header string
	// One line per LF at most; the cap keeps a run of blank lines from
	// reserving much more than the lines it will hold.
	lines := make([]line, 0, min(strings.Count(data, "\n"), 1<<16))
	num := 0
	for len(s) > 0 || num == 0 {
		num++
		var t string
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			t, s = s[:i], s[i+1:]
		} else {
			t, s = s, ""
		}
		if len(t) > lim.MaxLineLength {
			return "", nil, synErr(num, 1, ErrLimit, "line longer than "+strconv.Itoa(lim.MaxLineLength)+" bytes")
		}
		t = strings.TrimSuffix(t, "\r")
		for len(t) > 0 && (t[len(t)-1] == ' ' || t[len(t)-1] == '\t') {
			t = t[:len(t)-1]
		}
		if num == 1 {
			header = t
			continue
		}
		if t == "" {
			continue
		}
		sp := 0
		for sp < len(t) && t[sp] == ' ' {
			sp++
		}
		body := t[sp:]
		for len(body) > 0 && (body[0] == ' ' || body[0] == '\t') {
			body = body[1:]
		}
		if body == "#" || strings.HasPrefix(body, "# ") {
			continue
		}
		ln := line{num: num, spaces: sp, level: sp / 2, text: t[sp:], raw: sp > 0}
		if len(body) != len(t)-sp {
			// A tab inside the leading whitespace.
			ln.raw = true
			ln.text = body
			ln.tab = true
		} else if sp%2 != 0 {
			ln.odd = true
		}
		lines = append(lines, ln)
	}
	return header, lines, nil
}

// Field is one header key=value pair.
type Field struct {
	Key, Value string
}

// Header is a decoded header line.
type Header struct {
	Profile string  // "generic" or "graph"
	Fields  []Field // every pair after profile=, in order
}

// Get returns the value of key.
func (h *Header) Get(key string) (string, bool) {
	for _, f := range h.Fields {
		if f.Key == key {
			return f.Value, true
		}
	}
	return "", false
}

// isKnown reports whether key is a header key the profile defines (§2.2); a
// key known only to the other profile is unknown.
func isKnown(profile, key string) bool {
	switch key {
	case "tool", "tokens", "pack_root", "delta", "unchanged", "base_root", "new_root", "savings":
		return true
	case "budget", "symbols", "edges", "session":
		return profile == "graph"
	case "key", "count":
		return profile == "generic"
	}
	return false
}

func isCountValue(v string) bool {
	if v == "0" {
		return true
	}
	if v == "" || v[0] < '1' || v[0] > '9' || len(v) > 18 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !isDigit(v[i]) {
			return false
		}
	}
	return true
}

// parseHeader parses the first line (§2.2).
func parseHeader(h string) (Header, error) {
	tok, rest, _ := strings.Cut(h, " ")
	if tok != "GCF" {
		return Header{}, synErr(1, 1, ErrMissingHeader, "first token must be GCF")
	}
	var fields []Field
	col := 5
	for _, p := range strings.Split(rest, " ") {
		if p == "" {
			col++
			continue
		}
		k, v, ok := strings.Cut(p, "=")
		if !ok || !isBareKey(k) || v == "" {
			return Header{}, synErr(1, col, ErrMalformedHeaderField, "bad header pair "+strconv.Quote(p))
		}
		for i := 0; i < len(v); i++ {
			if v[i] < 0x21 || v[i] > 0x7E {
				return Header{}, synErr(1, col, ErrMalformedHeaderField, "header value must be printable ASCII")
			}
		}
		for _, f := range fields {
			if f.Key == k {
				return Header{}, synErr(1, col, ErrDuplicateHeaderField, "header key "+k+" repeated")
			}
		}
		fields = append(fields, Field{Key: k, Value: v})
		col += len(p) + 1
	}
	if len(fields) == 0 || fields[0].Key != "profile" {
		return Header{}, synErr(1, 5, ErrMissingProfile, "header must start with profile=")
	}
	prof := fields[0].Value
	if prof != "generic" && prof != "graph" {
		return Header{}, synErr(1, 5, ErrUnknownProfile, "unknown profile "+prof)
	}
	hd := Header{Profile: prof, Fields: fields[1:]}
	for _, f := range hd.Fields {
		if !isKnown(prof, f.Key) {
			continue
		}
		switch f.Key {
		case "budget", "tokens", "symbols", "edges", "count":
			if !isCountValue(f.Value) {
				return Header{}, synErr(1, 1, ErrMalformedHeaderField, f.Key+" must be a decimal count")
			}
		case "session", "delta", "unchanged":
			if f.Value != "true" && f.Value != "false" {
				return Header{}, synErr(1, 1, ErrMalformedHeaderField, f.Key+" must be true or false")
			}
		}
	}
	return hd, nil
}

// summary is a parsed ##! summary trailer.
type summary struct {
	ln     line
	fields []Field
}

func (s *summary) get(k string) (string, bool) {
	for _, f := range s.fields {
		if f.Key == k {
			return f.Value, true
		}
	}
	return "", false
}

// takeTrailer removes a final ##! line; a ##! line elsewhere is an error.
func takeTrailer(lines []line) ([]line, *summary, error) {
	for i, ln := range lines {
		if !strings.HasPrefix(ln.text, "##!") {
			continue
		}
		if i != len(lines)-1 {
			return nil, nil, ln.err(0, ErrSyntax, "content after the ##! summary trailer")
		}
		rest, ok := strings.CutPrefix(ln.text, "##! summary")
		if !ok || (rest != "" && rest[0] != ' ') {
			return nil, nil, ln.err(0, ErrSyntax, "malformed trailer")
		}
		s := &summary{ln: ln}
		for _, p := range strings.Fields(rest) {
			k, v, _ := strings.Cut(p, "=")
			s.fields = append(s.fields, Field{Key: k, Value: v})
		}
		return lines[:i], s, nil
	}
	return lines, nil, nil
}
