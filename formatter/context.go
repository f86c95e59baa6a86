package formatter

import (
	"bytes"
	"context"
	"io"

	"github.com/graphwire/graphwire/graphresponse"
)

// checkEvery is how many bytes a [ContextWriter] passes on between two looks at its context.
const checkEvery = 64 << 10

// ContextWriter passes writes on to W until its context ends: it looks at the context before
// the first write and again after every 64 KiB, and from then on every write fails with the
// context's error. A codec's first write error sticks, so an answer being formatted when
// the deadline passes stops within 64 KiB of output instead of running to its end; the
// error matches context.DeadlineExceeded or context.Canceled.
type ContextWriter struct {
	ctx     context.Context
	w       io.Writer
	pending int // bytes written since the last look
	err     error
}

// NewContextWriter returns a writer that passes writes on to w while ctx lasts.
func NewContextWriter(ctx context.Context, w io.Writer) *ContextWriter {
	return &ContextWriter{ctx: ctx, w: w, pending: checkEvery}
}

// Write writes p to the underlying writer unless the context has ended.
func (c *ContextWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if c.pending >= checkEvery {
		c.pending = 0
		if err := c.ctx.Err(); err != nil {
			c.err = err
			return 0, err
		}
	}
	n, err := c.w.Write(p)
	c.pending += n
	return n, err
}

// FormatCountContext is [FormatCount] that stops, with ctx's error, when ctx ends while the
// answer is being written (see [ContextWriter]).
func FormatCountContext(ctx context.Context, f Formatter, w io.Writer, r *graphresponse.Response) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	cw := NewContextWriter(ctx, w)
	n, err := FormatCount(f, cw, r)
	if cw.err != nil {
		return n, cw.err // the codec may have wrapped it, or reported it as its own failure
	}
	if err != nil {
		return n, err
	}
	// A codec that builds its text in memory (gcf, gcx, json, markdown, xml) writes it in one piece at the
	// end: a deadline that passed meanwhile is reported here.
	return n, ctx.Err()
}

// StampContext is [Stamp] that stops, with ctx's error, when ctx ends while the answer is
// being written.
func StampContext(ctx context.Context, f Formatter, r *graphresponse.Response) (Stamped, error) {
	var b bytes.Buffer
	altered, err := FormatCountContext(ctx, f, &b, r)
	if err != nil {
		return Stamped{}, err
	}
	return Stamped{Bytes: b.Bytes(), Name: f.Name(), Version: f.Version(), Altered: altered}, nil
}
