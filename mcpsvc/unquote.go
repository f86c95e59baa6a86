package mcpsvc

import (
	"errors"
	"fmt"

	"github.com/graphwire/graphwire/internal/jsonread"
)

// unquoteQuery reads the query argument given as a JSON string. Unlike encoding/json, which
// reads invalid UTF-8 and a lone surrogate escape (\ud800 without its pair) as U+FFFD, it
// refuses both, with the byte offset in the argument, so the query that runs is always the
// one the client wrote (the DSL text is checked the same way by the compiler).
func unquoteQuery(q []byte) (string, error) {
	r := jsonread.New(q, jsonread.Options{RejectLoneSurrogates: true})
	text, err := r.String()
	var je *jsonread.Error
	switch {
	case err == nil && r.Offset() == len(q):
		return text, nil
	case errors.As(err, &je) && je.Kind == jsonread.KindUTF8:
		return "", &argError{msg: fmt.Sprintf("query: invalid UTF-8 (byte 0x%02x) at byte %d of the query string: the query must be UTF-8 text", q[je.Offset], je.Offset), pointer: "/query"}
	case errors.As(err, &je) && je.Kind == jsonread.KindLoneSurrogate:
		esc := q[je.Offset:min(je.Offset+6, len(q))]
		return "", &argError{msg: fmt.Sprintf("query: lone surrogate escape %s at byte %d of the query string: an escape of U+D800 to U+DFFF must be one half of a pair, as it encodes no character", esc, je.Offset), pointer: "/query"}
	}
	return "", &argError{msg: "query is not a valid JSON string", pointer: "/query"}
}
