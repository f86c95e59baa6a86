package gcx

import (
	"maps"
	"slices"

	"github.com/graphwire/graphwire/graphresponse"
)

// AppendJSON appends the JSON form of sections, as used by the CLI's
// `convert --from gcx --to json` and by the conformance *.decoded.json
// files: one array holding, per section in payload order, an object
//
//	{"tool":"…","fields":["…"],"meta":{"k":"v"},"rows":[["cell",…],…]}
//
// with meta keys sorted in byte order, meta {} when there is none, rows []
// when there is none, and every cell a JSON string (GCX1 has no types).
// The output is compact, ends without a newline and escapes no HTML.
// Invalid UTF-8 becomes U+FFFD.
func AppendJSON(dst []byte, sections ...Section) []byte {
	dst = append(dst, '[')
	for i := range sections {
		s := &sections[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"tool":`...)
		dst = graphresponse.AppendQuotedJSON(dst, s.Tool)
		dst = append(dst, `,"fields":`...)
		dst = appendStrings(dst, s.Fields)
		dst = append(dst, `,"meta":{`...)
		for j, k := range slices.Sorted(maps.Keys(s.Meta)) {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = graphresponse.AppendQuotedJSON(dst, k)
			dst = append(dst, ':')
			dst = graphresponse.AppendQuotedJSON(dst, s.Meta[k])
		}
		dst = append(dst, `},"rows":[`...)
		for j, row := range s.Rows {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = appendStrings(dst, row)
		}
		dst = append(dst, "]}"...)
	}
	return append(dst, ']')
}

func appendStrings(dst []byte, list []string) []byte {
	dst = append(dst, '[')
	for i, s := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = graphresponse.AppendQuotedJSON(dst, s)
	}
	return append(dst, ']')
}
