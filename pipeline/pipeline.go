package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/graphwire/graphwire/admission"
	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/tokens"
	"github.com/graphwire/graphwire/ontology"
	"github.com/graphwire/graphwire/redact"
	"github.com/graphwire/graphwire/telemetry"
)

// Auto is the format name that asks the pipeline to choose, per answer,
// the lossless format with the fewest o200k tokens.
const Auto = "auto"

// Options configures a [Pipeline]. Compiler and Ontology are required;
// every other zero field means its documented default.
type Options struct {
	Compiler *compiler.Compiler
	Ontology *ontology.Ontology
	// Registry holds the formats; nil means formatter.Default().
	Registry *formatter.Registry
	// Admission hands out the query slots. Share one controller between
	// the faces of a process (gRPC, MCP) so a caller's limit holds across
	// them; nil means a controller with admission's defaults.
	Admission *admission.Controller
	// GraphSnapshots bounds the gcf-graph graphs remembered for
	// unchanged/delta answers, and GraphSessions the gcf-graph reference
	// sessions (one per client session and authorization); 0 means 1024
	// and 256.
	GraphSnapshots int
	GraphSessions  int
	// GraphSnapshotBytes bounds the memory of the remembered graphs (an
	// estimate from their nodes, edges and strings); 0 means 64 MiB.
	GraphSnapshotBytes int
	// GraphSnapshotsPerCaller and GraphSnapshotBytesPerCaller bound the
	// remembered graphs of one caller (user id, across tokens and
	// sessions), so one caller cannot push out everyone else's delta
	// bases; 0 means an eighth of GraphSnapshots and of
	// GraphSnapshotBytes (at least 1 and 1 byte). Values above the totals
	// are the totals.
	GraphSnapshotsPerCaller     int
	GraphSnapshotBytesPerCaller int
	// GraphSnapshotTTL is how long a remembered graph may serve as a delta
	// base; 0 means 15 min.
	GraphSnapshotTTL time.Duration
	// DSLSchema is the query DSL JSON Schema (config/schemas); DSLVersion
	// its version. [Pipeline.DSL] injects the ontology's enums into it.
	DSLSchema  []byte
	DSLVersion string
	// Metrics records engine and format times, what answers carry,
	// admission refusals and gcf-graph outcomes; nil records nothing.
	Metrics *telemetry.Metrics
	// Logger receives one line per failed query; nil discards.
	Logger *slog.Logger
	// MaxValueBytes is the longest string value an answer in gcf, gcf-graph, gcx, toon,
	// markdown, xml or auto carries whole: a longer one is cut to it, at a code point boundary,
	// and ends with the marker "…[truncated D of N bytes]" (docs/formats.md, "Long
	// values"). json answers stay exact; goon truncates long strings itself, far shorter
	// (its spec's "..." and key_len). 0 means [DefaultMaxValueBytes]; negative, no cap.
	MaxValueBytes int
	// EdgeCache, when set, holds the edge sets path_finding runs on ([executor.RespondOptions]
	// Edges; docs/compiler.md, "Path finding on cached edges"). Set it only when this process
	// is the engine's one writer.
	EdgeCache *executor.EdgeCache
	// SplitKinds is [executor.RespondOptions] SplitKinds: a neighbors lookup or a hydration
	// of at least this many kinds runs as two statements at once when the engine lends an
	// idle second connection (docs/compiler.md, "Lookups in two halves"); 0: never.
	SplitKinds int
	// Redactor, when set, is the redaction authority (docs/redaction.md):
	// after the base statement, every row showing a node the caller may not
	// read is withheld, before hydration and formatting. An authority that
	// cannot decide fails the request (an error wrapping
	// redact.ErrUnavailable). nil redacts nothing.
	Redactor *redact.Authority
}

// Pipeline is the one code path from a request to formatted bytes, shared
// by the gRPC service, the MCP server and the CLI: authorize → compile →
// admission slot → execute → build → (token budget) → format → count. The
// faces own only their transport and how they learn who the caller is. It
// is safe for concurrent use.
type Pipeline struct {
	exec    executor.Runner
	opts    Options
	reg     *formatter.Registry
	tokens  *tokens.Counter
	graphs  *snapshots
	session *sessions
	log     *slog.Logger
	schema  *schemaTexts
}

// New returns a pipeline that runs queries on exec.
func New(exec executor.Runner, opts Options) (*Pipeline, error) {
	switch {
	case exec == nil:
		return nil, errors.New("pipeline: an executor is required")
	case opts.Compiler == nil || opts.Ontology == nil:
		return nil, errors.New("pipeline: Options.Compiler and Ontology are required")
	case opts.Redactor != nil && !opts.Compiler.Redacted():
		// Redaction cannot see inside an aggregation's buckets: the compiler must refuse the
		// aggregations whose values it would leak (compiler.Options.Redacted).
		return nil, errors.New("pipeline: a Redactor needs a compiler built with compiler.Options.Redacted")
	}
	if opts.Registry == nil {
		opts.Registry = formatter.Default()
	}
	if opts.GraphSnapshots == 0 {
		opts.GraphSnapshots = 1024
	}
	if opts.GraphSnapshotBytes == 0 {
		opts.GraphSnapshotBytes = 64 << 20
	}
	if opts.GraphSnapshotsPerCaller == 0 {
		opts.GraphSnapshotsPerCaller = max(1, opts.GraphSnapshots/8)
	}
	if opts.GraphSnapshotBytesPerCaller == 0 {
		opts.GraphSnapshotBytesPerCaller = max(1, opts.GraphSnapshotBytes/8)
	}
	opts.GraphSnapshotsPerCaller = min(opts.GraphSnapshotsPerCaller, opts.GraphSnapshots)
	opts.GraphSnapshotBytesPerCaller = min(opts.GraphSnapshotBytesPerCaller, opts.GraphSnapshotBytes)
	if opts.MaxValueBytes == 0 {
		opts.MaxValueBytes = DefaultMaxValueBytes
	}
	if opts.GraphSessions == 0 {
		opts.GraphSessions = 256
	}
	if opts.GraphSnapshotTTL == 0 {
		opts.GraphSnapshotTTL = 15 * time.Minute
	}
	if opts.Admission == nil {
		ctl, err := admission.New(admission.Options{})
		if err != nil {
			return nil, fmt.Errorf("pipeline: admission: %w", err)
		}
		opts.Admission = ctl
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	tc := tokens.New()
	st, err := newSchemaTexts(opts.Ontology, opts.DSLSchema, opts.DSLVersion, tc)
	if err != nil {
		return nil, err
	}
	return &Pipeline{exec: exec, opts: opts, reg: opts.Registry, tokens: tc,
		graphs: newSnapshots(snapshotLimits{max: opts.GraphSnapshots, maxBytes: opts.GraphSnapshotBytes,
			perCaller: opts.GraphSnapshotsPerCaller, perCallerBytes: opts.GraphSnapshotBytesPerCaller}, opts.GraphSnapshotTTL), session: newSessions(opts.GraphSessions),
		log: log, schema: st}, nil
}

// Admission returns the controller that hands out the query slots.
func (p *Pipeline) Admission() *admission.Controller { return p.opts.Admission }

// CursorKeys returns the keys that sign the cursors of its answers (the
// compiler's).
func (p *Pipeline) CursorKeys() *compiler.CursorKeys { return p.opts.Compiler.CursorKeys() }

// Registry returns the formats the pipeline serves.
func (p *Pipeline) Registry() *formatter.Registry { return p.reg }

// Ontology returns the ontology queries are compiled against.
func (p *Pipeline) Ontology() *ontology.Ontology { return p.opts.Ontology }

// MaxQueryBytes returns the bound of a query's DSL text, which the compiler
// enforces (compiler.Options.MaxQueryBytes), so that a face can bound what
// it reads around the query.
func (p *Pipeline) MaxQueryBytes() int { return p.opts.Compiler.MaxQueryBytes() }

// Request is one query as a face received it.
type Request struct {
	// Query is the DSL document (UTF-8 JSON).
	Query []byte
	// Claims is the verified caller; required.
	Claims *auth.Claims
	// Format is a formatter name (json, goon, gcf, gcf-graph, gcx, toon)
	// or [Auto]; "" means goon.
	Format string
	// Cursor continues an answer that stopped early: the next_cursor of an
	// earlier answer to the same query (a budget cursor or the compiler's).
	Cursor string
	// PackRoot is the gcf-graph pack_root the client holds, for unchanged
	// and delta answers.
	PackRoot string
	// MaxTokens bounds the o200k tokens of the formatted text; 0 means no
	// bound. An answer that would exceed it is cut after the last whole
	// row that fits, with has_more and a cursor.
	MaxTokens int
	// Session names the client session (an MCP session), "" for none. A
	// gcf-graph answer within a session sends references for the nodes the
	// session already holds. Session state is keyed by the session and the
	// whole authorization context together.
	Session string
}

// Answer is a formatted answer with what the faces report about it.
type Answer struct {
	Text []byte
	// Binary reports that Text is bytes, not text (gcb1): a face sends it
	// as bytes or not at all, never as text.
	Binary  bool
	Format  string // the format that produced Text (the chosen one for auto)
	Version string
	// Altered counts the values whose text the answer changed: those the
	// format's text-safety substitution changed, the Capped ones, and the
	// strings from the engine that were not valid UTF-8 and were repaired
	// ([graphresponse.Response.Repaired], the same in every format).
	Altered int
	// Capped counts the string values cut to Options.MaxValueBytes.
	Capped int
	// QueryType is the DSL query type.
	QueryType string
	// Rows is the number of result rows in this answer (after a budget
	// cut); EngineRows what the base statement returned.
	Rows, EngineRows int64
	// Tokens is the o200k token count of Text.
	Tokens int
	// HasMore reports that more rows follow: pass NextCursor as the
	// request's Cursor to get them. Truncated reports that a token budget
	// cut this answer.
	HasMore    bool
	Truncated  bool
	NextCursor string
	// PackRoot and Outcome (full, delta, unchanged) are set for gcf-graph.
	PackRoot, Outcome string
	// Debug reports whether the query asked for its statements
	// (options.include_debug_sql); Executed lists them.
	Debug    bool
	Executed executor.Executed
	// Considered lists, for auto, the lossless formats and their tokens.
	Considered []Candidate
	// Redacted reports that the redaction authority screened the answer
	// and Withheld how many of the engine's page rows it withheld; such a
	// page may hold fewer rows than its size while has_more is set.
	Redacted bool
	Withheld int
}

// Candidate is one format auto considered.
type Candidate struct {
	Format string `json:"format"`
	Tokens int    `json:"tokens"`
}

// CallerOf is the compiler's view of verified claims.
func CallerOf(c *auth.Claims) *compiler.Caller {
	scopes := make([]compiler.Scope, len(c.Scopes))
	for i, s := range c.Scopes {
		scopes[i] = compiler.Scope{Path: s.Path, Level: s.Level}
	}
	return &compiler.Caller{Subject: strconv.FormatInt(c.UserID, 10), Admin: c.Admin, Scopes: scopes}
}

// Run answers one request. The caller's admission slot is held until the
// answer is formatted: auto, a token budget and gcf-graph format an answer
// several times over and count its tokens, which costs far more CPU than
// the statement itself, so that work counts against the caller's limit
// too. Otherwise one caller could keep any number of answers in formatting
// at once, each having passed admission for its brief engine part, and
// take the machine's CPU from everyone else.
func (p *Pipeline) Run(ctx context.Context, req Request) (*Answer, error) {
	x, release, err := p.execute(ctx, req)
	if err != nil {
		return nil, err
	}
	defer release()
	// The deadline holds after the engine too: every stage below looks at ctx. A codec
	// that writes as it goes (goon, toon) stops within 64 KiB of output once it ends; one
	// that builds its text in memory first fails when it is done (formatter.ContextWriter).
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	start := time.Now()
	capped := p.capValues(x)
	// full is the answer rendered whole: auto has rendered its choice
	// already; otherwise it is a trial when a budget may yet cut it (see
	// render.final).
	var full rendered
	auto := x.f == nil
	if auto {
		if x.f, x.a.Considered, full, err = p.pickAuto(ctx, x.resp); err != nil {
			return nil, err
		}
	}
	r := &render{ctx: ctx, p: p, f: x.f, req: req, authz: p.authzKey(req), caller: strconv.FormatInt(req.Claims.UserID, 10)}
	if !auto {
		if full, err = r.run(x.resp, req.MaxTokens == 0); err != nil {
			return nil, err
		}
	}
	if err := p.fit(r, x.q, x.a.Executed, x.resp, full, x.page, x.a); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a := x.a
	a.Binary = formatter.IsBinary(x.f)
	a.Capped = capped
	a.Altered += capped
	p.opts.Metrics.Answer(a.Format, time.Since(start), a.Rows, a.Tokens, len(a.Text))
	if a.Outcome != "" {
		p.opts.Metrics.GraphAnswer(a.Outcome)
	}
	return a, nil
}

// Stream writes the answer to w. A request that needs the whole text
// counted (a token budget, auto, a gcf-graph session or pack_root) is
// answered by [Pipeline.Run] and then written. Any other is formatted once,
// without counting its tokens, into memory while the caller's admission
// slot is held, and written after the slot is given back: formatting is
// CPU that counts against the caller's limit, as in Run, so a flood of
// streams from one caller formats no more answers at once than its slots,
// while a slow reader holds only its own stream and never a slot. The text
// is the unary answer's, so memory is bounded as for Run. The returned
// Answer has no Text and, for an answer formatted here, no Tokens.
func (p *Pipeline) Stream(ctx context.Context, req Request, w io.Writer) (*Answer, error) {
	if req.MaxTokens > 0 || req.Format == Auto || req.Session != "" || req.PackRoot != "" {
		a, err := p.Run(ctx, req)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(a.Text); err != nil {
			return nil, err
		}
		a.Text = nil
		return a, nil
	}
	x, release, err := p.execute(ctx, req)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	capped := p.capValues(x)
	var text bytes.Buffer
	altered, err := formatter.FormatCountContext(ctx, x.f, &text, x.resp)
	release()
	if err != nil {
		return nil, err
	}
	a := x.a
	rows := pageRows(x.q, a.Executed)
	rows -= int64(withheldIn(a.Executed.Base, int(rows)))
	a.Format, a.Version, a.Altered, a.Rows = x.f.Name(), x.f.Version(), altered+capped+x.resp.Repaired, rows
	a.Capped, a.Binary = capped, formatter.IsBinary(x.f)
	p.opts.Metrics.Answer(a.Format, time.Since(start), a.Rows, 0, text.Len())
	if pg := x.resp.Pagination; pg != nil {
		a.HasMore = pg.HasMore
		if pg.NextCursor != nil {
			a.NextCursor = *pg.NextCursor
		}
	}
	if _, err := w.Write(text.Bytes()); err != nil {
		return nil, err
	}
	return a, nil
}

// capValues cuts the long string values of an answer in an LLM format and returns how many
// it cut. json stays exact, and goon cuts every long string far shorter itself (its spec's
// "..." and key_len breadcrumb, which then names the value's whole length).
func (p *Pipeline) capValues(x *executed) int {
	// gcb1 (binary) is a transport like json: exact, never read by a model.
	if x.f != nil && (x.f.Name() == formatter.JSON || x.f.Name() == formatter.GOON || formatter.IsBinary(x.f)) {
		return 0
	}
	return capValues(x.resp, p.opts.MaxValueBytes)
}

// executed is a request run on the engine, before formatting.
type executed struct {
	f    formatter.Formatter // nil for auto
	q    *compiler.Query
	resp *graphresponse.Response
	page *page
	a    *Answer
}

// execute authorizes, compiles and runs a request under an admission
// slot of the caller. It returns the function that gives the slot back,
// which the caller calls once its work on the answer has ended; on an error
// the slot is already given back and the function does nothing.
func (p *Pipeline) execute(ctx context.Context, req Request) (*executed, func(), error) {
	none := func() {}
	if req.Claims == nil {
		return nil, none, ErrUnauthenticated
	}
	if req.MaxTokens < 0 {
		return nil, none, &RequestError{Field: "max_tokens", Reason: "INVALID_ARGUMENT", Message: "max_tokens must not be negative"}
	}
	name := req.Format
	if name == "" {
		name = formatter.DefaultLLM
	}
	x := &executed{}
	if name != Auto {
		var err error
		if x.f, err = p.reg.Lookup(name); err != nil {
			return nil, none, err
		}
		if formatter.IsBinary(x.f) && req.MaxTokens > 0 {
			return nil, none, &RequestError{Field: "max_tokens", Reason: "INVALID_ARGUMENT", Message: "max_tokens bounds the tokens of a text format; " + x.f.Name() + " is binary"}
		}
	}
	doc, page, err := p.paged(req)
	if err != nil {
		return nil, none, err
	}
	q, err := p.opts.Compiler.Compile(doc, CallerOf(req.Claims))
	if err != nil {
		return nil, none, err
	}
	queryType := q.Plan.Build.QueryType
	if c := telemetry.CallFrom(ctx); c != nil {
		c.QueryType = queryType
	}
	// The slot is per user: tokens of one user with different scopes share
	// the user's limit.
	release, err := p.opts.Admission.Acquire(ctx, strconv.FormatInt(req.Claims.UserID, 10))
	if err != nil {
		if be := (*admission.BusyError)(nil); errors.As(err, &be) {
			p.opts.Metrics.Rejected(string(be.Limit))
		}
		return nil, none, err
	}
	start := time.Now()
	var scr *redact.Screener
	if p.opts.Redactor != nil {
		scr = p.opts.Redactor.For(redactCaller(req.Claims))
	}
	resp, ex, q, err := p.respond(ctx, req, doc, q, scr)
	p.opts.Metrics.Engine(queryType, time.Since(start))
	if err != nil {
		// A statement the engine has not let go of yet (the caller is answered at its
		// deadline, see executor.Error.Ended) keeps the caller's slot until it has, so
		// that abandoning statements never gives a caller more of the engine than its
		// slots.
		if ended := executor.Ended(err); ended != nil {
			go func() {
				<-ended
				release()
			}()
		} else {
			release()
		}
		// Log the class of the failure only: engine messages can quote
		// parameter values, which never go to the log.
		p.log.WarnContext(ctx, "query_failed", "query_type", queryType, "kind", errorKind(err))
		return nil, none, err
	}
	if page != nil {
		page.finish(resp)
	}
	x.q, x.resp, x.page = q, resp, page
	x.a = &Answer{QueryType: resp.QueryType, EngineRows: ex.Rows, Debug: q.Plan.Debug(), Executed: ex}
	if scr != nil {
		x.a.Redacted, x.a.Withheld = true, scr.Withheld()
	}
	return x, release, nil
}

// MaxWithheldPages bounds the engine pages one answer reads past while
// redaction withholds every row of them (docs/redaction.md).
const MaxWithheldPages = 64

// respond runs q (compiled from doc) and builds its response, screened by
// scr when it is not nil. A paginated page whose every row redaction
// withheld, with more rows after it, has no row its cursor may anchor on
// (a withheld row's sort keys must not leave the server), so respond reads
// on from its last row, server-side, until a page shows a row or the engine
// has no more, at most [MaxWithheldPages] pages. It returns the query that
// produced the response.
func (p *Pipeline) respond(ctx context.Context, req Request, doc []byte, q *compiler.Query, scr *redact.Screener) (*graphresponse.Response, executor.Executed, *compiler.Query, error) {
	var s executor.Screen
	if scr != nil {
		s = scr // a nil *Screener must not become a non-nil interface
	}
	resp, ex, err := executor.RespondWith(ctx, p.exec, p.opts.Compiler, q, executor.RespondOptions{Screen: s, Edges: p.opts.EdgeCache, SplitKinds: p.opts.SplitKinds})
	for round := 0; err == nil && scr != nil; round++ {
		after, more, xerr := q.Plan.Build.Exhausted(ex.Base)
		if xerr != nil || !more {
			return resp, ex, q, xerr
		}
		if round == MaxWithheldPages {
			return nil, ex, q, &RequestError{Field: "cursor", Reason: "REDACTED_WINDOW",
				Message: fmt.Sprintf("redaction withheld every row of the next %d pages; narrow the query", MaxWithheldPages)}
		}
		if doc, err = withAfter(doc, after); err != nil {
			return nil, ex, q, err
		}
		if q, err = p.opts.Compiler.Compile(doc, CallerOf(req.Claims)); err != nil {
			return nil, ex, q, err
		}
		resp, ex, err = executor.RespondWith(ctx, p.exec, p.opts.Compiler, q, executor.RespondOptions{Screen: scr, Edges: p.opts.EdgeCache, SplitKinds: p.opts.SplitKinds})
	}
	return resp, ex, q, err
}

// withAfter sets the cursor position of a DSL document that has a cursor member.
func withAfter(doc []byte, after string) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, fmt.Errorf("pipeline: re-read the query: %w", err)
	}
	c, ok := m["cursor"].(map[string]any)
	if !ok {
		return nil, errors.New("pipeline: a paginated query without a cursor member")
	}
	c["after"] = after
	out, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("pipeline: re-encode the query: %w", err)
	}
	return out, nil
}

// redactCaller is the caller as the redaction authority sees it, keyed by
// the whole authorization context.
func redactCaller(c *auth.Claims) redact.Caller {
	scopes := make([]redact.Scope, len(c.Scopes))
	for i, s := range c.Scopes {
		scopes[i] = redact.Scope{Path: s.Path, AccessLevel: s.Level}
	}
	return redact.NewCaller(c.Fingerprint(), strconv.FormatInt(c.UserID, 10), c.Admin, scopes)
}

// withheldIn counts the rows of the first n engine rows that redaction withheld.
func withheldIn(base graphresponse.Rows, n int) int {
	k := 0
	for i := 0; i < n && i < len(base.Withheld); i++ {
		if base.Withheld[i] {
			k++
		}
	}
	return k
}

// pageRows is the number of result rows of the engine's page (without the
// probe row).
func pageRows(q *compiler.Query, ex executor.Executed) int64 {
	n := len(ex.Base.Values)
	if ps := q.Plan.Build.PageSize; ps > 0 && n > ps {
		n = ps
	}
	return int64(n)
}

// paged rewrites the DSL for a budget or a cursor: it adds a cursor member
// so the engine returns the sort keys a continuation needs, with the page
// size of the query, and the position to resume after. Without either it
// returns the query unchanged and a nil page.
func (p *Pipeline) paged(req Request) ([]byte, *page, error) {
	if req.MaxTokens == 0 && req.Cursor == "" {
		return req.Query, nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(req.Query))
	d.UseNumber()
	var doc map[string]any
	if err := d.Decode(&doc); err != nil || doc == nil {
		// Let the compiler report where the document is broken.
		return req.Query, nil, nil
	}
	pg := &page{size: 30, keys: p.opts.Compiler.CursorKeys(), caller: CallerOf(req.Claims)}
	cur, hasCursor := doc["cursor"].(map[string]any)
	pg.explicit = hasCursor
	switch {
	case hasCursor:
		if n, err := jsonInt(cur["page_size"]); err == nil {
			pg.size = n
		}
	case doc["limit"] != nil:
		if n, err := jsonInt(doc["limit"]); err == nil {
			pg.size = n
		}
	}
	c := map[string]any{}
	if hasCursor {
		for k, v := range cur {
			c[k] = v
		}
	}
	if req.Cursor != "" {
		bc, err := pg.decode(req.Cursor)
		if err != nil {
			return nil, nil, err
		}
		c["after"] = bc.After
		if bc.Left > 0 {
			pg.size = bc.Left
		}
	}
	c["page_size"] = pg.size
	doc["cursor"] = c
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, nil, fmt.Errorf("pipeline: re-encode the query: %w", err)
	}
	return out, pg, nil
}

func jsonInt(v any) (int, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, errors.New("not a number")
	}
	i, err := n.Int64()
	return int(i), err
}

// errorKind is the class of a failure for the log.
func errorKind(err error) string {
	switch {
	case errors.Is(err, redact.ErrUnavailable):
		return "redaction"
	case errors.Is(err, executor.ErrTimeout), errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return "timeout"
	case errors.Is(err, executor.ErrResourceExhausted):
		return "resource_exhausted"
	case errors.Is(err, executor.ErrUnavailable):
		return "unavailable"
	case errors.Is(err, executor.ErrCanceled), errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, executor.ErrInvalidQuery):
		return "invalid_query"
	}
	return "internal"
}
