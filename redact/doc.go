// Package redact is graphwire's third authorization layer, after the
// caller's scopes are compiled into every scan: redaction of the answer by
// an external authority (docs/redaction.md). After the base statement, the
// ids of each entity type a page shows are sent, in batches per type, to
// the authority, which answers the ids the caller may read; a row showing
// any other node is withheld, with its nodes and edges unless another row
// shows them, before hydration and before the response is built.
//
// The protocol is one HTTP POST per batch, JSON both ways:
//
//	→ {"version": 1, "caller": {"user_id": "42", "admin": false,
//	     "scopes": [{"path": "1/100/", "access_level": 30}]},
//	   "type": "MergeRequest", "ids": ["7", "9"]}
//	← {"type": "MergeRequest", "allowed": ["9"]}
//
// It fails closed: an authority that cannot be reached, answers late, with
// a status other than 200, with a body that is not that document, with an
// id it was not asked about or a body over the size bound fails the
// request with an [*Error] (never a partial answer). Decisions are cached
// per request and, for a short TTL, per caller (keyed by the caller's
// whole authorization context, never shared between callers).
package redact
