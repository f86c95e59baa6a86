package load

import (
	"errors"
	"strings"
)

// ErrUTF8 refuses a text value that is not valid UTF-8 (docs/loading.md, "Checks"). The
// graph's answers are UTF-8 text in every format, so such a value is refused at the door,
// with its file, row and column, rather than stored and repaired in every later answer.
var ErrUTF8 = errors.New("value is not valid UTF-8")

// utf8Check returns the check that refuses a raw value of c that is not valid UTF-8, for a
// column of a text type; ok is false for the columns whose values another check of
// [stage.checks] already holds to ASCII (typed columns, traversal_path, enums), so one bad
// byte there is reported once. The engine reads every value as raw bytes: a JSON string's
// bytes or escapes, a CSV field or a Parquet value alike, and a lone surrogate escape such
// as \ud800 in JSON reads as bytes that are not valid UTF-8 either.
func utf8Check(c column) (chk check, ok bool) {
	if !strings.Contains(baseType(c.typ), "String") || c.name == "traversal_path" || len(c.enum) > 0 {
		return check{}, false
	}
	v := ident(c.name)
	return check{col: c.name, reason: "utf8", cond: v + " IS NOT NULL AND NOT isValidUTF8(" + v + ")"}, true
}
