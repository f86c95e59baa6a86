package scorecard

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/internal/tokens"
)

// Options configures [Measure]. The zero value measures sizes and tokens
// only.
type Options struct {
	// Timing turns on the encode/decode speed measurement.
	Timing bool
	// TimingBudget is the time spent looping one operation; 0 means
	// [DefaultTimingBudget].
	TimingBudget time.Duration
	// Progress, when set, is called after each case with its index and
	// name (for a progress line on stderr).
	Progress func(i, n int, name string)
}

// DefaultTimingBudget is the default [Options.TimingBudget].
const DefaultTimingBudget = 50 * time.Millisecond

// Timing is one speed measurement.
type Timing struct {
	NsPerOp     float64
	AllocsPerOp float64
}

// Cell is one (case, format) measurement.
type Cell struct {
	// NA, when not empty, says why the format does not apply (and every
	// other field is zero).
	NA        string
	Bytes     int
	O200k     int // 0 for a binary format
	CL100k    int
	Binary    bool // the format's output is bytes: no tokens
	RoundTrip string
	Encode    *Timing // nil without timing
	Decode    *Timing
}

// Lossy reports whether c carries the case but not its whole content: a
// round-trip verdict other than lossless or canonical (see [Counted]).
// Reports mark such cells †, and summaries leave them out.
func (c Cell) Lossy() bool { return c.NA == "" && !Counted(c.RoundTrip) }

// Row is the measurements of one case, one cell per format.
type Row struct {
	Case  Case
	Cells []Cell // indexed like Result.Formats
}

// Result is a whole measurement.
type Result struct {
	Formats []Format
	Rows    []Row
	Session *SessionResult
	// Agent is the MCP agent session, when one was run.
	Agent  *AgentSessionResult
	Timing bool
	// Budget is the loop time of each timing.
	Budget time.Duration
}

// Measure formats every case in every format and counts bytes and tokens;
// with opts.Timing it also times encode and decode. The result holds no
// map and depends only on cases, except for the Timing fields.
func Measure(cases []Case, formats []Format, opts Options) (*Result, error) {
	counter := tokens.New()
	if opts.TimingBudget == 0 {
		opts.TimingBudget = DefaultTimingBudget
	}
	res := &Result{Formats: formats, Timing: opts.Timing, Budget: opts.TimingBudget}
	for i, c := range cases {
		row := Row{Case: c, Cells: make([]Cell, len(formats))}
		for j, f := range formats {
			cell, err := measureCell(counter, c, f, opts)
			if err != nil {
				return nil, fmt.Errorf("measure %s/%s as %s: %w", c.Group, c.Name, f.Name, err)
			}
			row.Cells[j] = cell
		}
		res.Rows = append(res.Rows, row)
		if opts.Progress != nil {
			opts.Progress(i+1, len(cases), c.Group+"/"+c.Name)
		}
	}
	return res, nil
}

func measureCell(counter *tokens.Counter, c Case, f Format, opts Options) (Cell, error) {
	var (
		out    []byte
		err    error
		encode func() error
		decode func() error
	)
	switch {
	case c.Generic() && f.Value == nil:
		return Cell{NA: "GraphResponse only"}, nil
	case c.Generic():
		if out, err = f.Value(c.Tool, c.JSON); err != nil {
			return Cell{}, err
		}
		encode = func() error { _, err := f.Value(c.Tool, c.JSON); return err }
		decode = func() error { _, err := f.ParseValue(out); return err }
	default:
		out, err = f.Graph(c.Response)
		if errors.Is(err, formatter.ErrUnrepresentable) {
			return Cell{NA: "not representable"}, nil
		}
		if err != nil {
			return Cell{}, err
		}
		encode = func() error { _, err := f.Graph(c.Response); return err }
		decode = func() error { _, err := f.Parse(out); return err }
	}
	cell := Cell{Bytes: len(out), Binary: f.Binary}
	if !f.Binary {
		if cell.O200k, err = counter.Count(tokens.O200k, string(out)); err != nil {
			return Cell{}, err
		}
		if cell.CL100k, err = counter.Count(tokens.CL100k, string(out)); err != nil {
			return Cell{}, err
		}
	}
	if c.Generic() {
		cell.RoundTrip = roundTripValue(f, c.JSON, out)
	} else {
		cell.RoundTrip = roundTripGraph(f, c.Response, out)
	}
	if opts.Timing {
		budget := opts.TimingBudget
		if cell.Encode, err = timeOp(encode, budget); err != nil {
			return Cell{}, err
		}
		if cell.RoundTrip != RoundTripFail && cell.RoundTrip != RoundTripNone {
			if cell.Decode, err = timeOp(decode, budget); err != nil {
				return Cell{}, err
			}
		}
	}
	return cell, nil
}

// timeOp runs op once to size the loop, then loops it for about budget and
// reports the mean time and allocations per call.
func timeOp(op func() error, budget time.Duration) (*Timing, error) {
	start := time.Now()
	if err := op(); err != nil {
		return nil, err
	}
	one := max(time.Since(start), time.Microsecond)
	n := int(min(max(budget/one, 1), 1_000_000))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start = time.Now()
	for range n {
		if err := op(); err != nil {
			return nil, err
		}
	}
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	return &Timing{
		NsPerOp:     float64(elapsed.Nanoseconds()) / float64(n),
		AllocsPerOp: float64(after.Mallocs-before.Mallocs) / float64(n),
	}, nil
}

// Saving is the token saving of n against the baseline base, in percent
// (positive: fewer tokens).
func Saving(n, base int) float64 {
	if base == 0 {
		return 0
	}
	return 100 * float64(base-n) / float64(base)
}

// Median returns the median of xs (the mean of the middle two for an even
// count) and false when xs is empty.
func Median(xs []float64) (float64, bool) {
	if len(xs) == 0 {
		return 0, false
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m], true
	}
	return (s[m-1] + s[m]) / 2, true
}

// Tokenizer selects a token count of a [Cell].
type Tokenizer struct {
	Name  string
	Count func(Cell) int
}

// Tokenizers returns the two encodings, o200k_base first.
func Tokenizers() []Tokenizer {
	return []Tokenizer{
		{tokens.O200k, func(c Cell) int { return c.O200k }},
		{tokens.CL100k, func(c Cell) int { return c.CL100k }},
	}
}

// Summary is the median saving of one format against compact JSON, over
// the cases where its round trip is lossless or canonical ([Counted]).
type Summary struct {
	Format string
	Cases  int       // counted cases: lossless or canonical
	Median []float64 // per tokenizer, in [Tokenizers] order, over the counted cases
	Bytes  float64   // median byte saving over the counted cases
	Wins   int       // counted cases won on o200k_base tokens
	// Lossy counts the cases the format carries with loss (marked †), NA
	// those it cannot carry; neither enters Median, Bytes or Wins.
	// LossyMedian is the median o200k_base saving over the lossy cases
	// alone, for reference only.
	Lossy       int
	LossyMedian float64
	NA          int
	Eligible    bool // the format can win (gcf-graph cannot: topology only)
	Binary      bool // bytes only: Median and LossyMedian are 0, not measured
}

// CanWin reports whether format name competes for the per-case win:
// gcf-graph carries topology only, so its smaller output is not a fair win.
func CanWin(name string) bool { return name != formatter.GCFGraph }

// Winner returns the index of the format with the fewest tokens of t in
// row (ties: the earlier format), among the formats that [CanWin] and whose
// round trip for the case is lossless or canonical, or -1.
func (r *Result) Winner(row Row, t Tokenizer) int {
	best := -1
	for j, c := range row.Cells {
		if c.NA != "" || c.Lossy() || c.Binary || !CanWin(r.Formats[j].Name) {
			continue
		}
		if best < 0 || t.Count(c) < t.Count(row.Cells[best]) {
			best = j
		}
	}
	return best
}

// Summaries returns one [Summary] per format, in format order, over the
// rows selected by keep (nil: all rows). Medians and wins count only the
// cells whose round trip is lossless or canonical.
func (r *Result) Summaries(keep func(Row) bool) []Summary {
	out := make([]Summary, len(r.Formats))
	for j, f := range r.Formats {
		s := Summary{Format: f.Name, Median: make([]float64, len(Tokenizers())), Eligible: CanWin(f.Name) && !f.Binary, Binary: f.Binary}
		per := make([][]float64, len(Tokenizers()))
		var byteSavings, lossy []float64
		for _, row := range r.Rows {
			if keep != nil && !keep(row) {
				continue
			}
			c, base := row.Cells[j], row.Cells[0]
			switch {
			case c.NA != "":
				s.NA++
				continue
			case c.Lossy():
				s.Lossy++
				if !c.Binary {
					lossy = append(lossy, Saving(c.O200k, base.O200k))
				}
				continue
			}
			s.Cases++
			byteSavings = append(byteSavings, Saving(c.Bytes, base.Bytes))
			if c.Binary {
				continue
			}
			for k, t := range Tokenizers() {
				per[k] = append(per[k], Saving(t.Count(c), t.Count(base)))
			}
			if r.Winner(row, Tokenizers()[0]) == j {
				s.Wins++
			}
		}
		for k := range Tokenizers() {
			s.Median[k], _ = Median(per[k])
		}
		s.Bytes, _ = Median(byteSavings)
		s.LossyMedian, _ = Median(lossy)
		out[j] = s
	}
	return out
}
