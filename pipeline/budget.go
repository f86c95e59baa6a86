package pipeline

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/graphresponse"
)

// page is how a budgeted or continued request was paged: the page size the
// statement ran with, whether the query had its own cursor member, and
// what signs the cursors handed out (the compiler's keys, for the caller).
type page struct {
	size     int
	explicit bool
	keys     *compiler.CursorKeys
	caller   *compiler.Caller
}

// finish fixes the pagination of the engine's full page: a cursor the
// pipeline added only for the budget is not part of the answer the query
// asked for, so it is dropped; the query's own cursor is handed back in
// the pipeline's form.
func (pg *page) finish(resp *graphresponse.Response) {
	p := resp.Pagination
	if p == nil || p.NextCursor == nil {
		return
	}
	if !pg.explicit {
		p.NextCursor = nil
		return
	}
	tok := pg.encode(budgetCursor{After: *p.NextCursor})
	p.NextCursor = &tok
}

// budgetPrefix is the budget cursor prefix; a cursor without it is the
// compiler's own token. (gwc1., the unsigned form before it, is refused.)
const budgetPrefix = "gwc2."

// budgetCursor continues an answer: After is the compiler's keyset token
// of the last row sent (bound to the query's hash), Left the rows of the
// original page still to send (0: the query's own page size).
type budgetCursor struct {
	After string `json:"a"`
	Left  int    `json:"n,omitempty"`
}

// encode signs c for the page's caller, as the compiler signs its own
// tokens, so that neither part can be altered.
func (pg *page) encode(c budgetCursor) string {
	b, _ := json.Marshal(c) // two plain fields: cannot fail
	return budgetPrefix + pg.keys.Sign(pg.caller, b)
}

func (pg *page) decode(s string) (budgetCursor, error) {
	rest, ok := strings.CutPrefix(s, budgetPrefix)
	if !ok {
		return budgetCursor{After: s}, nil // the compiler checks its own token
	}
	bad := &RequestError{Field: "cursor", Reason: "INVALID_CURSOR", Message: "the cursor is malformed or was altered; restart without cursor"}
	raw, ok := pg.keys.Open(pg.caller, rest)
	if !ok {
		return budgetCursor{}, bad
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	var c budgetCursor
	if err := d.Decode(&c); err != nil || c.After == "" || c.Left < 0 || c.Left > 1000 {
		return budgetCursor{}, bad
	}
	return c, nil
}

// fit puts into a the answer full, the rendering of resp (a trial when
// there is a budget, see [render.final]), or, when it exceeds the token
// budget, the longest prefix of resp's rows that fits. A prefix is built
// from the engine's own rows, as if the page had ended there: whole rows
// only, with has_more and a cursor made from the last row's sort keys, so
// the next request resumes exactly after it.
func (p *Pipeline) fit(r *render, q *compiler.Query, ex executor.Executed, resp *graphresponse.Response, full rendered, pg *page, a *Answer) error {
	plan := q.Plan.Build
	rows := int(pageRows(q, ex))
	max := r.req.MaxTokens
	if max == 0 || full.tokens <= max {
		out, err := r.final(resp, full, max != 0)
		if err != nil {
			return err
		}
		a.fill(out, resp, int64(rows-withheldIn(ex.Base, rows)), false)
		return nil
	}
	if pg == nil || !plan.Paginate || rows <= 1 {
		return &BudgetError{MaxTokens: max, Needed: full.tokens}
	}
	prefix := func(k int) (*graphresponse.Response, error) {
		bp := *plan
		bp.PageSize = k
		base := graphresponse.Rows{Columns: ex.Base.Columns, Values: ex.Base.Values[:k+1]}
		if w := ex.Base.Withheld; w != nil {
			// Rows redaction withheld stay withheld in every prefix.
			base.Withheld = w[:min(k+1, len(w))]
		}
		pr, err := graphresponse.Build(&bp, base, ex.Hydration)
		if err != nil {
			return nil, err
		}
		if ex.Derived != nil {
			if err := bp.ApplyDerived(pr, *ex.Derived); err != nil {
				return nil, err
			}
		}
		if pr.Pagination != nil && pr.Pagination.NextCursor != nil {
			tok := pg.encode(budgetCursor{After: *pr.Pagination.NextCursor, Left: pg.size - k})
			pr.Pagination.NextCursor = &tok
		}
		return pr, nil
	}
	// Binary search for the largest k in [1, rows) whose answer fits. When
	// none does, the search has tried k = 1 last, and first holds its
	// tokens.
	lo, hi, best, first := 1, rows-1, 0, 0
	var bestResp *graphresponse.Response
	var bestOut rendered
	for lo <= hi {
		k := (lo + hi) / 2
		pr, err := prefix(k)
		if err != nil {
			return err
		}
		o, err := r.run(pr, false)
		if err != nil {
			return err
		}
		if k == 1 {
			first = o.tokens
		}
		if o.tokens <= max {
			best, bestResp, bestOut, lo = k, pr, o, k+1
		} else {
			hi = k - 1
		}
	}
	if best == 0 {
		return &BudgetError{MaxTokens: max, Needed: first}
	}
	if fv := firstShown(ex.Base, rows); best <= fv {
		// Every row of the prefix that fits was withheld by redaction: not even the
		// first row shown fits.
		if fv+1 >= rows {
			return &BudgetError{MaxTokens: max, Needed: full.tokens}
		}
		pr, err := prefix(fv + 1)
		if err != nil {
			return err
		}
		o, err := r.run(pr, false)
		if err != nil {
			return err
		}
		return &BudgetError{MaxTokens: max, Needed: o.tokens}
	}
	out, err := r.final(bestResp, bestOut, true)
	if err != nil {
		return err
	}
	a.fill(out, bestResp, int64(best-withheldIn(ex.Base, best)), true)
	return nil
}

// firstShown is the index of the first of the n page rows redaction did not
// withhold (0 without redaction, n when it withheld them all).
func firstShown(base graphresponse.Rows, n int) int {
	for i := 0; i < n; i++ {
		if i >= len(base.Withheld) || !base.Withheld[i] {
			return i
		}
	}
	return n
}

func (a *Answer) fill(o rendered, resp *graphresponse.Response, rows int64, truncated bool) {
	a.Text, a.Format, a.Version, a.Altered, a.Tokens = o.out.Bytes, o.out.Name, o.out.Version, o.out.Altered+resp.Repaired, o.tokens
	a.PackRoot, a.Outcome = o.root, o.outcome
	a.Rows, a.Truncated = rows, truncated
	if pg := resp.Pagination; pg != nil {
		a.HasMore = pg.HasMore
		if pg.NextCursor != nil {
			a.NextCursor = *pg.NextCursor
		}
	}
}
