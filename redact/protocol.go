package redact

// ProtocolVersion is the version of the authority protocol, sent in every
// request (docs/redaction.md, "Protocol").
const ProtocolVersion = 1

// Request is the body of one authority call: who asks, and which ids of
// one entity type the answer would show. Ids are decimal strings, as in
// graphwire's raw JSON, so that no id loses digits in a JSON number.
type Request struct {
	Version int      `json:"version"`
	Caller  Caller   `json:"caller"`
	Type    string   `json:"type"`
	IDs     []string `json:"ids"`
}

// Caller is the verified caller as the authority sees it: the user id and
// admin flag of the token and its traversal-path scopes.
type Caller struct {
	UserID string  `json:"user_id"`
	Admin  bool    `json:"admin"`
	Scopes []Scope `json:"scopes"`
	// key is the whole authorization context (auth.Claims.Fingerprint),
	// which keys the per-caller cache; it is not sent.
	key string
}

// Scope is one traversal-path prefix and the access level on it.
type Scope struct {
	Path        string `json:"path"`
	AccessLevel int    `json:"access_level"`
}

// NewCaller returns the caller with the given identity. key must identify
// the whole authorization context (user, admin flag and every scope), for
// example auth.Claims.Fingerprint: it keys the per-caller cache, so two
// callers with one key would share decisions.
func NewCaller(key, userID string, admin bool, scopes []Scope) Caller {
	return Caller{UserID: userID, Admin: admin, Scopes: append([]Scope{}, scopes...), key: key}
}

// Response is the authority's answer: the type asked about and the ids of
// the request the caller may read, in any order. An id not asked about
// makes the answer malformed.
type Response struct {
	Type    string    `json:"type"`
	Allowed *[]string `json:"allowed"`
}
