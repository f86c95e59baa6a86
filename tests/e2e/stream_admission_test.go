package e2e

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/graphwire/graphwire/admission"
	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/config"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/grpcsvc"
	"github.com/graphwire/graphwire/pipeline"
	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
)

// gatedFormatter wraps a formatter: each Format call reports that it has
// started, then waits for the gate to open, so a test can count the
// answers in formatting at once (a stand-in for the CPU formatting costs).
// A non-empty name registers it under that name beside the wrapped one.
type gatedFormatter struct {
	formatter.Formatter
	name    string
	entered chan<- struct{}
	gate    <-chan struct{}
}

func (g gatedFormatter) Name() string {
	if g.name != "" {
		return g.name
	}
	return g.Formatter.Name()
}

func (g gatedFormatter) Format(w io.Writer, r *graphresponse.Response) error {
	g.entered <- struct{}{}
	<-g.gate
	return g.Formatter.Format(w, r)
}

// TestStreamFloodFormatsWithinCallerLimit: one caller opens six streams at
// once while formatting is held shut. With two slots per caller (and two
// more waiting, the rest refused), exactly two answers are in formatting,
// each holding its slot, while two wait in admission: the flood cannot run
// more formatting at once than its per-caller limit. Before, a stream gave
// its slot back when its statements returned and was formatted outside
// admission, so the waiting streams took the freed slots and a third
// answer entered formatting.
//
// The state the test waits for is one the old code cannot reach: two in
// formatting and two waiting means the two formatting hold both of the
// caller's slots (admission hands a freed slot to a waiter at once), and
// two refused means four were admitted or waiting when they were refused.
func TestStreamFloodFormatsWithinCallerLimit(t *testing.T) {
	const (
		perCaller = 2
		streams   = 6
	)
	adm, err := admission.New(admission.Options{MaxConcurrent: 4, MaxPerCaller: perCaller, MaxQueued: 16, Wait: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	entered := make(chan struct{}, streams)
	gate := make(chan struct{})
	var open sync.Once
	openGate := func() { open.Do(func() { close(gate) }) }
	t.Cleanup(openGate)
	var fs []formatter.Formatter
	for _, f := range formatter.Default().Formatters() {
		if f.Name() == formatter.GOON {
			f = gatedFormatter{Formatter: f, entered: entered, gate: gate}
		}
		fs = append(fs, f)
	}
	reg, err := formatter.New(fs...)
	if err != nil {
		t.Fatal(err)
	}
	exec := engine(t)
	pipe, err := pipeline.New(exec, pipeline.Options{Compiler: env.comp, Ontology: env.ont, Registry: reg, Admission: adm,
		DSLSchema: config.GraphQuerySchema(), DSLVersion: config.QueryDSLVersion()})
	if err != nil {
		t.Fatal(err)
	}
	c := server(t, exec, func(o *grpcsvc.Options) { o.Pipeline = pipe; o.Admission = adm })

	// The unary answer, through a server with the plain formatters.
	req := &pb.ExecuteQueryRequest{Query: queries["search"], Format: pb.ResponseFormat_RESPONSE_FORMAT_LLM, LlmFormat: pb.FormatName_FORMAT_NAME_GOON}
	unary, err := server(t, exec, nil).ExecuteQuery(as(t, admin), req)
	if err != nil {
		t.Fatal(err)
	}
	want := unary.GetFormattedText()

	type result struct {
		text string
		err  error
	}
	results := make(chan result, streams)
	ctx := as(t, auth.Claims{UserID: 77, Admin: true})
	for range streams {
		go func() {
			s, err := c.ExecuteQueryStream(ctx, req)
			if err != nil {
				results <- result{err: err}
				return
			}
			var b bytes.Buffer
			for {
				ch, err := s.Recv()
				if errors.Is(err, io.EOF) {
					results <- result{text: b.String()}
					return
				}
				if err != nil {
					results <- result{err: err}
					return
				}
				b.Write(ch.GetData())
			}
		}()
	}

	// Wait, polling admission's counts, until the flood settles: two in
	// formatting, two waiting, two refused. A third answer in formatting
	// fails the test at once.
	formatting, refused := 0, 0
	var done []result
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(time.Minute)
	for settled := false; !settled; {
		select {
		case <-entered:
			if formatting++; formatting > perCaller {
				openGate()
				t.Fatalf("%d of one caller's streams in formatting at once, want at most %d (its slots); admission %+v",
					formatting, perCaller, adm.Stats())
			}
		case r := <-results:
			if status.Code(r.err) != codes.ResourceExhausted {
				openGate()
				t.Fatalf("a stream ended before the gate opened: %q, %v", r.text, r.err)
			}
			refused++
		case <-tick.C:
			st := adm.Stats()
			settled = formatting == perCaller && refused == streams-2*perCaller && st.Running == perCaller && st.Waiting == perCaller
		case <-deadline:
			openGate()
			t.Fatalf("the flood did not settle: %d formatting, %d refused, admission %+v", formatting, refused, adm.Stats())
		}
	}

	openGate()
	for len(done) < 2*perCaller {
		select {
		case <-entered:
			formatting++
		case r := <-results:
			done = append(done, r)
		case <-deadline:
			t.Fatalf("the admitted streams did not finish: %d of %d", len(done), 2*perCaller)
		}
	}
	for _, r := range done {
		if r.err != nil || r.text != want {
			t.Errorf("admitted stream: %v, %d bytes; want the unary answer's %d bytes", r.err, len(r.text), len(want))
		}
	}
	if st := adm.Stats(); st != (admission.Stats{}) {
		t.Errorf("admission after the flood: %+v, want nothing held or waiting", st)
	}
}
