// Package goon encodes GraphResponses as GOON (Graph Object Output Notation),
// the line-oriented text format for language models that is byte-compatible
// with GitLab Orbit's GOON 4.0.1 encoder. The normative description is
// shared/specs/goon.md.
//
// A document is a header block followed by nodes grouped by type, edges
// grouped by relationship (or, for path finding, one line per path) and, for
// aggregations, one line per bucket:
//
//	@header
//	query_type:traversal
//	goon_version:4.0.1
//	nodes:2
//	edges:1
//	@nodes
//	Group(1):
//	100 full_path=acme/platform
//	User(1):
//	2 name="Bob \"the Builder\"" username=bob
//	@edges
//	MEMBER_OF(1):
//	User:2 --> Group:100 depth=1
//
// GOON is lossy on purpose: long strings are truncated (with a key_len
// breadcrumb), null and empty properties vanish, duplicate edges collapse and
// path ids and steps are not printed. The encoder is a pure function of the
// response and [Options.Version]: the same input gives the same bytes. The one
// deliberate divergence from the reference is datetime handling (spec §3.8):
// only canonical ClickHouse datetimes are rewritten, and every other string
// that contains a space or a non-ASCII character is quoted.
//
// The [Decoder] reads GOON back into a response as far as GOON carries it;
// its documentation lists what is lost.
package goon
