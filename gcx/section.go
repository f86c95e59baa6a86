package gcx

// Section is one GCX1 section: a header (tool, fields, meta) and its rows.
// Every cell is a string; after decoding each row has exactly len(Fields)
// cells and Meta is non-nil. Meta never holds "tool" or "fields". A Section
// is a plain value and safe to share once built.
type Section struct {
	Tool   string
	Fields []string
	Meta   map[string]string
	Rows   [][]string
}
