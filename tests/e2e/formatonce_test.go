package e2e

import (
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/config"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/pipeline"
)

// formatLog records every answer a pipeline formats, by format and node
// count.
type formatLog struct {
	mu    sync.Mutex
	calls map[string]int // "format/nodes" → times formatted
}

func (l *formatLog) add(name string, r *graphresponse.Response) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls[fmt.Sprintf("%s/%d", name, len(r.Nodes))]++
}

func (l *formatLog) take() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.calls
	l.calls = map[string]int{}
	return c
}

// loggedFormatter is a formatter that records each answer it formats; it
// keeps the wrapped formatter's text-safety count and parser.
type loggedFormatter struct {
	formatter.Formatter
	log *formatLog
}

func (f loggedFormatter) Format(w io.Writer, r *graphresponse.Response) error {
	_, err := f.FormatCount(w, r)
	return err
}

func (f loggedFormatter) FormatCount(w io.Writer, r *graphresponse.Response) (int, error) {
	f.log.add(f.Name(), r)
	return formatter.FormatCount(f.Formatter, w, r)
}

func (f loggedFormatter) Parse(data []byte) (*graphresponse.Response, error) {
	return f.Formatter.(formatter.Parser).Parse(data)
}

// TestEachAnswerFormattedOnce: the pipeline formats each answer it
// considers once per format. Before, auto formatted and counted the chosen
// candidate a second time, and a token budget formatted the answer it sent
// again after finding that it fits.
func TestEachAnswerFormattedOnce(t *testing.T) {
	log := &formatLog{calls: map[string]int{}}
	var fs []formatter.Formatter
	for _, f := range formatter.Default().Formatters() {
		if _, ok := f.(formatter.Parser); ok && f.Name() != formatter.GCFGraph {
			f = loggedFormatter{Formatter: f, log: log}
		}
		fs = append(fs, f)
	}
	reg, err := formatter.New(fs...)
	if err != nil {
		t.Fatal(err)
	}
	pipe, err := pipeline.New(engine(t), pipeline.Options{Compiler: env.comp, Ontology: env.ont, Registry: reg,
		DSLSchema: config.GraphQuerySchema(), DSLVersion: config.QueryDSLVersion()})
	if err != nil {
		t.Fatal(err)
	}
	q := []byte(`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","id_range":{"start":1,"end":100000}}],"limit":40}`)
	caller := &auth.Claims{UserID: 1, Admin: true}
	tests := []struct {
		name      string
		format    string
		maxTokens int
		truncated bool
	}{
		{"auto", pipeline.Auto, 0, false},
		{"auto within a budget", pipeline.Auto, 1 << 20, false},
		{"goon within a budget", formatter.GOON, 1 << 20, false},
		{"goon cut by a budget", formatter.GOON, 600, true},
		{"json cut by a budget", formatter.JSON, 600, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := pipe.Run(t.Context(), pipeline.Request{Query: q, Claims: caller, Format: tt.format, MaxTokens: tt.maxTokens})
			if err != nil {
				t.Fatal(err)
			}
			if a.Truncated != tt.truncated {
				t.Fatalf("truncated %v, want %v (%d tokens)", a.Truncated, tt.truncated, a.Tokens)
			}
			calls := log.take()
			if len(calls) == 0 {
				t.Fatal("no answer was formatted through the logged formatters")
			}
			for k, n := range calls {
				if n != 1 {
					t.Errorf("answer %s formatted %d times, want once", k, n)
				}
			}
			if tt.format == pipeline.Auto {
				if len(calls) != len(a.Considered) {
					t.Errorf("auto formatted %v, considered %v", calls, a.Considered)
				}
			}
		})
	}
}
