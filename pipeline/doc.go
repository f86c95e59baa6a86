// Package pipeline is the one code path from a graph query request to
// formatted bytes, shared by every face of graphwire: the gRPC service
// (grpcsvc), the MCP server (mcpsvc) and the CLI. A face verifies who the
// caller is and speaks its transport; everything between is here:
//
//	authorize → compile → admission slot → execute (+ hydrate) → build
//	→ token budget → format (or auto) → count o200k tokens
//
// plus the descriptions agents read before they query (the compact graph
// schema, the DSL reference with the ontology's enums).
//
// [Pipeline.Run] holds the caller's admission slot until the answer is
// formatted, since auto, budgets and gcf-graph format an answer several
// times; [Pipeline.Stream] formats under the slot too, then gives it back
// before writing, so a slow reader never holds one.
//
//	p, _ := pipeline.New(engine, pipeline.Options{Compiler: c, Ontology: o})
//	a, err := p.Run(ctx, pipeline.Request{Query: dsl, Claims: claims, Format: "auto", MaxTokens: 2000})
//	// a.Text, a.Format ("goon"), a.Tokens (≤ 2000), a.HasMore, a.NextCursor
//
// # Token budgets
//
// With MaxTokens set, an answer whose text would exceed it is cut after the
// last whole row that fits: the prefix is rebuilt from the engine's own
// rows as if the page had ended there, so it carries has_more and a cursor
// made from that row's sort keys (the compiler's keyset cursor, bound to
// the query's hash), wrapped with the rows of the page still to send.
// Passing it back as Cursor continues exactly after that row; the pages
// together are the rows of the uncut answer, none dropped, none repeated.
//
// # Format auto
//
// Auto renders the answer in goon, gcf, gcx, toon and json, keeps those
// that parse back to the same response (the scorecard's lossless class,
// scorecard.Lossless) and chooses the one with the fewest o200k tokens.
//
// # Sessions
//
// gcf-graph answers remember the graph sent per caller (keyed by the whole
// authorization context, bounded LRU with a TTL), so a client echoing its
// pack_root gets "unchanged" or a delta. Within a client session
// (Request.Session) nodes already sent become reference lines.
package pipeline
