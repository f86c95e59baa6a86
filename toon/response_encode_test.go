package toon

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/graphgen"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
)

// shapedRendering is the reference rendering: ShapeResponse, encoded.
func shapedRendering(r *graphresponse.Response, opts Options) ([]byte, error) {
	shape, err := ShapeResponse(r)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := NewEncoder(&buf, opts).encodeModel(shape); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// directProblem compares MarshalResponse and EncodeResponse, which write the
// node and edge tables straight from the response, with encoding the shaped
// value, under several options.
func directProblem(r *graphresponse.Response) string {
	for _, opts := range []Options{{}, {Delimiter: Tab}, {Delimiter: Pipe, IndentSize: 4}, {IndentSize: 1}} {
		want, wantErr := shapedRendering(r, opts)
		got, err := MarshalResponse(r, opts)
		if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			return "MarshalResponse error " + errString(err) + ", shaped " + errString(wantErr)
		}
		if !bytes.Equal(got, want) {
			return "MarshalResponse differs from the shaped rendering\n got: " + string(got) + "\nwant: " + string(want)
		}
		var buf bytes.Buffer
		err = NewEncoder(&buf, opts).EncodeResponse(r)
		if (err == nil) != (wantErr == nil) || !bytes.Equal(buf.Bytes(), want) && err == nil {
			return "EncodeResponse differs from the shaped rendering\n got: " + buf.String() + "\nwant: " + string(want)
		}
	}
	return ""
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func TestDirectRendering(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := range n {
		r := nastyResponse(rand.New(rand.NewPCG(uint64(i), 2026)))
		if msg := directProblem(r); msg != "" {
			t.Fatalf("response %d: %s", i, msg)
		}
	}
	for _, r := range []*graphresponse.Response{benchGraph(500, 200), benchGraph(3000, 2000), {}, {Nodes: []graphresponse.Node{}}} {
		if msg := directProblem(r); msg != "" {
			t.Fatal(msg)
		}
	}
	if _, err := MarshalResponse(nil, Options{}); !errors.Is(err, ErrInvalidResponse) {
		t.Fatalf("nil response: %v", err)
	}
	if _, err := MarshalResponse(benchGraph(5, 5), Options{IndentSize: -1}); !errors.Is(err, ErrInvalidOptions) {
		t.Fatalf("bad options: %v", err)
	}
	props := gopter.NewProperties(propertyParams(t))
	props.Property("direct rendering is the shaped rendering", prop.ForAll(directProblem, graphgen.Response(graphgen.Options{MaxNodes: 60, MaxEdges: 80})))
	props.TestingRun(t)
}
