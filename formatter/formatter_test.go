package formatter_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/config"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/graphresponse"
)

type fake struct{ name string }

func (f fake) Name() string      { return f.name }
func (f fake) MediaType() string { return "text/plain" }
func (f fake) Version() string   { return "1.0.0" }
func (f fake) Format(w io.Writer, _ *graphresponse.Response) error {
	_, err := io.WriteString(w, f.name)
	return err
}

func TestNewRejects(t *testing.T) {
	tests := []struct {
		name string
		fs   []formatter.Formatter
		want *formatter.RegistryError
	}{
		{"empty name", []formatter.Formatter{fake{""}}, &formatter.RegistryError{Reason: "empty format name"}},
		{"duplicate", []formatter.Formatter{fake{"a"}, fake{"b"}, fake{"a"}}, &formatter.RegistryError{Name: "a", Reason: "duplicate format name"}},
		{"duplicate ignoring case", []formatter.Formatter{fake{"goon"}, fake{"GOON"}}, &formatter.RegistryError{Name: "GOON", Reason: "duplicate format name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := formatter.New(tt.fs...)
			var re *formatter.RegistryError
			if !errors.As(err, &re) {
				t.Fatalf("err = %v, want *RegistryError", err)
			}
			if diff := cmp.Diff(tt.want, re); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	reg := formatter.Default()
	for _, name := range []string{"goon", "GOON", "Json"} {
		if _, err := reg.Lookup(name); err != nil {
			t.Errorf("Lookup(%q): %v", name, err)
		}
	}
	_, err := reg.Lookup("yaml")
	var ue *formatter.UnknownFormatError
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v, want *UnknownFormatError", err)
	}
	if diff := cmp.Diff(&formatter.UnknownFormatError{Name: "yaml", Known: reg.Names()}, ue); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !strings.Contains(err.Error(), "goon") || !strings.Contains(err.Error(), "json") {
		t.Errorf("message does not list the known names: %v", err)
	}
}

func TestDefaultVersions(t *testing.T) {
	reg := formatter.Default()
	want := map[string]string{"json": config.RawVersion(), "goon": config.GOONVersion()}
	for name, v := range want {
		f, err := reg.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if f.Name() != name || f.Version() != v {
			t.Errorf("%s: name %q version %q, want version %q", name, f.Name(), f.Version(), v)
		}
	}
	if config.GOONVersion() != "4.1.0" || config.RawVersion() != "5.0.1" {
		t.Errorf("config versions %s/%s", config.GOONVersion(), config.RawVersion())
	}
}

func TestSelect(t *testing.T) {
	reg := formatter.Default()
	tests := []struct {
		format  formatter.ResponseFormat
		llm     string
		want    string
		wantErr bool
	}{
		{formatter.RAW, "", "json", false},
		{formatter.RAW, "goon", "json", false},
		{formatter.ResponseFormat(7), "", "json", false},
		{formatter.LLM, "", "goon", false},
		{formatter.LLM, "GOON", "goon", false},
		{formatter.LLM, "json", "", true},
		{formatter.LLM, "yaml", "", true},
	}
	for _, tt := range tests {
		f, err := reg.Select(tt.format, tt.llm)
		if tt.wantErr {
			var ue *formatter.UnknownFormatError
			if !errors.As(err, &ue) || !ue.LLM || strings.Contains(strings.Join(ue.Known, ","), "json") {
				t.Errorf("Select(%v, %q) err = %v, want an LLM UnknownFormatError without json", tt.format, tt.llm, err)
			}
			continue
		}
		if err != nil || f.Name() != tt.want {
			t.Errorf("Select(%v, %q) = %v, %v; want %s", tt.format, tt.llm, f, err, tt.want)
		}
	}
}

func TestStamp(t *testing.T) {
	reg := formatter.Default()
	f, _ := reg.Lookup("goon")
	r := &graphresponse.Response{QueryType: "traversal", Nodes: []graphresponse.Node{}, Edges: []graphresponse.Edge{}}
	s, err := formatter.Stamp(f, r)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "goon" || s.Version != config.GOONVersion() || !strings.Contains(string(s.Bytes), "goon_version:"+config.GOONVersion()+"\n") {
		t.Errorf("stamped %+v", s)
	}
	if _, err := formatter.NewGOON("4.0"); err == nil {
		t.Error("NewGOON accepted a bad version")
	}
}
