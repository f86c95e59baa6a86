package pipeline_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/config"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/internal/tokens"
	"github.com/graphwire/graphwire/ontology"
	"github.com/graphwire/graphwire/pipeline"
	"github.com/graphwire/graphwire/redact"
)

// refuse is an engine that must not be reached.
type refuse struct{ t *testing.T }

func (r refuse) Run(context.Context, *compiler.Query) (executor.Rows, error) {
	r.t.Error("the engine was reached")
	return nil, executor.ErrUnavailable
}

func newPipeline(t *testing.T) *pipeline.Pipeline {
	return newPipelineOn(t, refuse{t}, 0)
}

// newPipelineOn is a pipeline over e whose compiler reads queries of up to maxQuery bytes
// (0: the default).
func newPipelineOn(t *testing.T, e executor.Runner, maxQuery int) *pipeline.Pipeline {
	t.Helper()
	o, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		t.Fatal(err)
	}
	c, err := compiler.New(o, compiler.Options{MaxQueryBytes: maxQuery})
	if err != nil {
		t.Fatal(err)
	}
	p, err := pipeline.New(e, pipeline.Options{Compiler: c, Ontology: o, DSLSchema: config.GraphQuerySchema(), DSLVersion: config.QueryDSLVersion()})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRejectedBeforeTheEngine: request faults are classified errors and
// never reach the engine.
func TestRejectedBeforeTheEngine(t *testing.T) {
	p := newPipeline(t)
	admin := &auth.Claims{UserID: 1, Admin: true}
	q := []byte(`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1]}]}`)
	tests := []struct {
		name   string
		req    pipeline.Request
		reason string
	}{
		{"malformed budget cursor", pipeline.Request{Query: q, Claims: admin, Cursor: "gwc2.%%%"}, "INVALID_CURSOR"},
		{"budget cursor with unknown member", pipeline.Request{Query: q, Claims: admin, Cursor: "gwc2." + p.CursorKeys().Sign(pipeline.CallerOf(admin), []byte(`{"x":1}`))}, "INVALID_CURSOR"},
		{"budget cursor with its count edited", pipeline.Request{Query: q, Claims: admin, Cursor: "gwc2." + edited(p.CursorKeys().Sign(pipeline.CallerOf(admin), []byte(`{"a":"x","n":3}`)), `{"a":"x","n":900}`)}, "INVALID_CURSOR"},
		{"budget cursor of another caller", pipeline.Request{Query: q, Claims: admin, Cursor: "gwc2." + p.CursorKeys().Sign(pipeline.CallerOf(&auth.Claims{UserID: 1, Scopes: []auth.Scope{{Path: "1/", Level: 30}}}), []byte(`{"a":"x","n":3}`))}, "INVALID_CURSOR"},
		{"negative budget", pipeline.Request{Query: q, Claims: admin, MaxTokens: -1}, "INVALID_ARGUMENT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := p.Run(t.Context(), tt.req)
			var re *pipeline.RequestError
			if !errors.As(err, &re) || re.Reason != tt.reason {
				t.Errorf("err %v, want reason %s", err, tt.reason)
			}
		})
	}
	if _, err := p.Run(t.Context(), pipeline.Request{Query: q}); !errors.Is(err, pipeline.ErrUnauthenticated) {
		t.Errorf("no caller: %v", err)
	}
	var ue *formatter.UnknownFormatError
	if _, err := p.Run(t.Context(), pipeline.Request{Query: q, Claims: admin, Format: "yaml"}); !errors.As(err, &ue) {
		t.Errorf("unknown format: %v", err)
	}
	// The unsigned budget cursor of earlier releases is no token of this one.
	if _, err := p.Run(t.Context(), pipeline.Request{Query: q, Claims: admin, Cursor: "gwc1.eyJhIjoieCIsIm4iOjN9"}); !errors.Is(err, compiler.ErrInvalidCursor) {
		t.Errorf("unsigned gwc1 cursor: %v, want INVALID_CURSOR", err)
	}
	// A compiler cursor the query was not issued for is the compiler's error.
	var ce *compiler.Error
	_, err := p.Run(t.Context(), pipeline.Request{Query: q, Claims: admin, Cursor: p.CursorKeys().Sign(pipeline.CallerOf(admin), []byte(`{"h":"0123456789abcdef","k":[]}`))})
	if !errors.As(err, &ce) || !errors.Is(err, compiler.ErrCursorMismatch) {
		t.Errorf("foreign cursor: %v", err)
	}
}

// edited replaces the payload of a signed token, keeping its signature.
func edited(tok, payload string) string {
	_, sig, _ := strings.Cut(tok, ".")
	return base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." + sig
}

// bigQuery is a valid traversal DSL document of exactly n bytes (n ≥ 100), padded with
// JSON whitespace.
func bigQuery(n int) []byte {
	const head, tail = `{"query_type":"traversal",`, `"nodes":[{"id":"u","entity":"User","node_ids":[1]}]}`
	return []byte(head + strings.Repeat(" ", n-len(head)-len(tail)) + tail)
}

// TestQueryAtTheLimit: the compiler's query limit holds on every face, so a pipeline whose
// compiler reads at most 4096 bytes compiles (and runs) a query of exactly that size and refuses
// one byte more before the engine, naming the size and the limit; MaxQueryBytes reports it
// for the faces that bound their requests by it.
func TestQueryAtTheLimit(t *testing.T) {
	reached := false
	p := newPipelineOn(t, engineFunc(func() { reached = true }), 4096)
	if p.MaxQueryBytes() != 4096 {
		t.Errorf("MaxQueryBytes() = %d, want 4096", p.MaxQueryBytes())
	}
	admin := &auth.Claims{UserID: 1, Admin: true}
	if _, err := p.Run(t.Context(), pipeline.Request{Query: bigQuery(4096), Claims: admin}); !reached {
		t.Errorf("a query of exactly the limit did not reach the engine: %v", err)
	}
	reached = false
	_, err := p.Run(t.Context(), pipeline.Request{Query: bigQuery(4097), Claims: admin})
	if !errors.Is(err, compiler.ErrLimitExceeded) || !strings.Contains(err.Error(), "4097 bytes, over the limit of 4096 bytes") || reached {
		t.Errorf("one byte over: %v (engine reached: %v)", err, reached)
	}
	if got := newPipeline(t).MaxQueryBytes(); got != compiler.MaxQueryBytes {
		t.Errorf("default MaxQueryBytes() = %d, want %d", got, compiler.MaxQueryBytes)
	}
}

// engineFunc is an engine that records being reached and answers unavailable.
type engineFunc func()

func (f engineFunc) Run(context.Context, *compiler.Query) (executor.Rows, error) {
	f()
	return nil, executor.ErrUnavailable
}

// TestSchemaTexts: the compact schema names every entity and relationship
// and costs a small part of the JSON; expand adds properties; the DSL
// texts carry the ontology's names.
func TestSchemaTexts(t *testing.T) {
	p := newPipeline(t)
	o := p.Ontology()
	compact, err := p.Schema(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range o.Entities {
		if !strings.Contains(compact, "\n"+e.Name) {
			t.Errorf("compact schema lacks %s", e.Name)
		}
	}
	for _, r := range o.Relationships {
		if !strings.Contains(compact, "\n"+r.Name+": ") {
			t.Errorf("compact schema lacks %s", r.Name)
		}
	}
	tc := tokens.New()
	nc, _ := tc.Count(tokens.O200k, compact)
	nj, _ := tc.Count(tokens.O200k, p.SchemaJSON())
	if nc*4 > nj {
		t.Errorf("compact schema %d tokens, JSON %d: not well under", nc, nj)
	}
	exp, err := p.Schema([]string{"MergeRequest", "MergeRequest"})
	if err != nil || strings.Count(exp, "## MergeRequest") != 1 || !strings.Contains(exp, "enum=") {
		t.Errorf("expand MergeRequest: %v\n%s", err, exp)
	}
	var re *pipeline.RequestError
	if _, err := p.Schema([]string{"Usr"}); !errors.As(err, &re) || re.Reason != "UNKNOWN_ENTITY" || !strings.Contains(re.Message, `"User"`) {
		t.Errorf("unknown entity: %v", err)
	}
	// The JSON schema marks the admin-only properties as the compact one does, so an agent
	// that reads only the JSON does not name them and get ADMIN_ONLY_PROPERTY.
	var doc struct {
		Entities []struct {
			Name       string `json:"name"`
			Properties []struct {
				Name      string `json:"name"`
				AdminOnly bool   `json:"admin_only"`
			} `json:"properties"`
		} `json:"entities"`
	}
	if err := json.Unmarshal([]byte(p.SchemaJSON()), &doc); err != nil {
		t.Fatal(err)
	}
	marked := 0
	for _, e := range doc.Entities {
		oe, _ := o.Entity(e.Name)
		for _, sp := range e.Properties {
			op, _ := oe.Property(sp.Name)
			if sp.AdminOnly != op.AdminOnly {
				t.Errorf("JSON schema %s.%s: admin_only %v, ontology %v", e.Name, sp.Name, sp.AdminOnly, op.AdminOnly)
			}
			if sp.AdminOnly {
				marked++
			}
		}
	}
	want := 0
	for _, e := range o.Entities {
		want += len(e.AdminOnlyProperties())
	}
	if marked != want || marked == 0 {
		t.Errorf("JSON schema marks %d admin-only properties, the ontology has %d", marked, want)
	}
	if !strings.Contains(p.DSLSchema(), `"EntityType":{"enum":["Branch"`) || !strings.Contains(p.DSL(false), "MEMBER_OF") {
		t.Error("the DSL texts lack the ontology's names")
	}
}

// TestRedactorNeedsRedactedCompiler: a pipeline that redacts refuses a compiler not built for
// redacted answers, which would compile the aggregations redaction cannot screen (the local
// query once built one; compiler.Options.Redacted).
func TestRedactorNeedsRedactedCompiler(t *testing.T) {
	o, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		t.Fatal(err)
	}
	red, err := redact.New(redact.Options{URL: "http://127.0.0.1:1/"})
	if err != nil {
		t.Fatal(err)
	}
	for _, redacted := range []bool{false, true} {
		c, err := compiler.New(o, compiler.Options{Redacted: redacted})
		if err != nil {
			t.Fatal(err)
		}
		_, err = pipeline.New(refuse{t}, pipeline.Options{Compiler: c, Ontology: o, Redactor: red})
		if (err == nil) != redacted {
			t.Errorf("pipeline.New with a Redactor and Options.Redacted %v: %v", redacted, err)
		}
	}
}
