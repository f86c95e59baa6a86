package pipeline

import (
	"bytes"
	"context"
	"fmt"

	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/gcf"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/tokens"
	"github.com/graphwire/graphwire/scorecard"
)

// render formats answers of one request.
type render struct {
	ctx    context.Context // the request's: rendering stops when it ends
	p      *Pipeline
	f      formatter.Formatter
	req    Request
	authz  string // the key of the caller's gcf-graph state
	caller string // the user id, whose share of the snapshot store it uses

	// The caller's gcf-graph state, looked up once, at the request's first
	// gcf-graph render: the delta base its pack_root names (nil when not
	// remembered) and its session (nil without one). Every trial render
	// and the committed one use the same, so the answer committed is the
	// one measured against the budget, even when the store expires or
	// pushes out the base, or forgets the session, meanwhile.
	looked bool
	base   *gcf.Graph
	sess   *gcf.Session
}

// graphState looks up the caller's gcf-graph state on first use.
func (r *render) graphState() {
	if r.looked {
		return
	}
	r.looked = true
	if r.req.PackRoot != "" {
		r.base = r.p.graphs.get(r.authz, r.req.PackRoot)
	}
	if r.req.Session != "" {
		r.sess = r.p.session.get(r.authz)
	}
}

// rendered is one formatted answer with its token count.
type rendered struct {
	out           formatter.Stamped
	tokens        int
	root, outcome string
}

// run formats resp and counts its tokens. For gcf-graph, commit says
// whether the answer is the one sent: only then does the caller's session
// and snapshot state change, so trial renders of a budget search leave it
// as it was.
func (r *render) run(resp *graphresponse.Response, commit bool) (rendered, error) {
	var o rendered
	if r.f.Name() == formatter.GCFGraph {
		r.graphState()
		sess := r.sess
		if sess != nil && !commit {
			sess = sess.Clone()
		}
		if commit && r.req.PackRoot != "" {
			r.p.opts.Metrics.SnapshotLookup(r.base != nil)
		}
		b, root, outcome, err := r.p.respondGraph(r.ctx, r.caller, r.authz, sess, r.base, resp, r.req.PackRoot, commit)
		if err := r.ctx.Err(); err != nil {
			return o, err
		}
		if err != nil {
			return o, fmt.Errorf("%w: %w", formatter.ErrUnrepresentable, err)
		}
		o.out = formatter.Stamped{Bytes: b, Name: r.f.Name(), Version: r.f.Version()}
		o.root, o.outcome = root, outcome
	} else {
		var err error
		if o.out, err = formatter.StampContext(r.ctx, r.f, resp); err != nil {
			return o, err
		}
	}
	if formatter.IsBinary(r.f) {
		return o, nil // bytes, not text: no tokens to count
	}
	n, err := r.p.tokens.Count(tokens.O200k, string(o.out.Bytes))
	if err != nil {
		return o, err
	}
	o.tokens = n
	return o, nil
}

// final returns the answer to send for resp, given o, its rendering; trial
// says whether o was rendered as a trial (commit unset). Only gcf-graph
// renders differently when committing (it changes the caller's session and
// snapshot state), so only a gcf-graph trial is rendered again; any other
// trial is the answer itself.
func (r *render) final(resp *graphresponse.Response, o rendered, trial bool) (rendered, error) {
	if !trial || r.f.Name() != formatter.GCFGraph {
		return o, nil
	}
	return r.run(resp, true)
}

// autoCandidates are the formats auto may choose, in the order that
// breaks a tie in token count. gcf-graph is not one: it carries the
// topology only.
var autoCandidates = []string{formatter.GOON, formatter.GCF, formatter.GCX, formatter.TOON, formatter.JSON}

// PickAuto is format [Auto] for a response from elsewhere (graphwire format
// --to auto): the format of reg with the fewest o200k tokens among goon,
// gcf, gcx, toon and json (the first on a tie) that carries resp
// losslessly, its text of resp, and every lossless candidate with its
// count, as a [Request] with Format [Auto] chooses for an answer. json is
// always lossless, so there is a choice when reg holds json. It is safe for
// concurrent use.
func PickAuto(ctx context.Context, reg *formatter.Registry, resp *graphresponse.Response) (formatter.Formatter, []byte, []Candidate, error) {
	f, considered, chosen, err := pickAuto(ctx, reg, tokens.New(), resp)
	if err != nil {
		return nil, nil, nil, err
	}
	return f, chosen.out.Bytes, considered, nil
}

// pickAuto returns the format with the fewest o200k tokens among those
// that carry resp losslessly (scorecard.Lossless: the answer parses back
// to resp), every lossless candidate with its count, and the chosen
// format's rendering of resp. json is always lossless, so there is always
// a choice.
func (p *Pipeline) pickAuto(ctx context.Context, resp *graphresponse.Response) (formatter.Formatter, []Candidate, rendered, error) {
	return pickAuto(ctx, p.reg, p.tokens, resp)
}

// pickAuto is [Pipeline.pickAuto] with the registry and the counter given.
func pickAuto(ctx context.Context, reg *formatter.Registry, counter *tokens.Counter, resp *graphresponse.Response) (formatter.Formatter, []Candidate, rendered, error) {
	var best formatter.Formatter
	var chosen rendered
	var considered []Candidate
	for _, name := range autoCandidates {
		f, err := reg.Lookup(name)
		if err != nil {
			continue
		}
		parser, ok := f.(formatter.Parser)
		if !ok {
			continue
		}
		out, err := formatter.StampContext(ctx, f, resp)
		// StampContext looks at ctx before it formats and fails with ctx's error after; a
		// candidate that fails is skipped, so an ended ctx is told apart here.
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, nil, rendered{}, ctxErr
		}
		if err != nil || out.Altered > 0 {
			continue
		}
		back, err := parser.Parse(out.Bytes)
		if err != nil || !scorecard.Lossless(resp, back) {
			continue
		}
		n, err := counter.Count(tokens.O200k, string(out.Bytes))
		if err != nil {
			return nil, nil, rendered{}, err
		}
		considered = append(considered, Candidate{Format: name, Tokens: n})
		if best == nil || n < chosen.tokens {
			best, chosen = f, rendered{out: out, tokens: n}
		}
	}
	if best == nil {
		return nil, nil, rendered{}, fmt.Errorf("pipeline: auto: no lossless format for this answer")
	}
	return best, considered, chosen, nil
}

// authzKey keys a caller's gcf-graph state: the whole authorization
// context, and the client session when there is one, so state is never
// shared across sessions or across callers.
func (p *Pipeline) authzKey(req Request) string {
	fp := req.Claims.Fingerprint()
	if req.Session == "" {
		return fp
	}
	return "session:" + req.Session + "\n" + fp
}

// respondGraph renders resp as gcf-graph for a caller (the user id, whose
// share of the snapshot store a new snapshot uses), with gcf-graph state
// keyed by authz, for a client that may hold an earlier graph under
// clientRoot: unchanged when it holds this one, a delta against base (the
// graph remembered under clientRoot for the same authz, or nil) when the
// delta is worth it, the full graph otherwise — with reference lines for
// the nodes sess (nil for none) already holds; sess records the nodes
// sent. When commit is set, the graph sent is remembered for the next call.
func (p *Pipeline) respondGraph(ctx context.Context, caller, authz string, sess *gcf.Session, base *gcf.Graph, resp *graphresponse.Response, clientRoot string, commit bool) ([]byte, string, string, error) {
	cur, err := gcf.ToGraph(resp, gcf.GraphOptions{})
	if err != nil {
		return nil, "", "", err
	}
	var out bytes.Buffer
	outcome, err := gcf.Respond(formatter.NewContextWriter(ctx, &out), cur, gcf.GraphState{Session: sess, ClientRoot: clientRoot, Base: base}, gcf.Options{Profile: gcf.ProfileGraph})
	if err != nil {
		return nil, "", "", err
	}
	if commit {
		p.graphs.put(caller, authz, cur)
	}
	return out.Bytes(), cur.PackRoot, outcome.String(), nil
}
