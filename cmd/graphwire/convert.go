package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/graphwire/graphwire/gcf"
	"github.com/graphwire/graphwire/gcx"
	"github.com/graphwire/graphwire/toon"
)

// converter turns any JSON document into a format and back. JSON text is
// the hub: every conversion goes through it, keeping key order.
type converter struct {
	fromJSON func(jsonDoc []byte) ([]byte, error)
	toJSON   func(data []byte) ([]byte, error)
	// lossless reports whether toJSON(fromJSON(doc)) gives doc back.
	lossless bool
}

// converters returns the conversions; tool names the GCX section of a
// converted value.
func converters(tool string) map[string]converter {
	return map[string]converter{
		// GCX carries any JSON value through its generic fallback (spec gcx.md
		// §9): every cell becomes text. Reading GCX gives the section model as
		// JSON: [{"tool","fields","meta","rows"}].
		"gcx": {
			fromJSON: func(b []byte) ([]byte, error) {
				if _, err := normalizeJSON(b); err != nil {
					return nil, err
				}
				return gcx.MarshalValue(tool, json.RawMessage(b))
			},
			toJSON: func(b []byte) ([]byte, error) {
				secs, err := gcx.UnmarshalSections(b)
				if err != nil {
					return nil, err
				}
				return gcx.AppendJSON(nil, secs...), nil
			},
		},
		// The GCF generic profile carries any JSON value losslessly.
		"gcf": {
			fromJSON: func(b []byte) ([]byte, error) {
				v, err := gcf.ParseJSON(b)
				if err != nil {
					return nil, err
				}
				return gcf.MarshalValue(v, gcf.Options{})
			},
			toJSON: func(b []byte) ([]byte, error) {
				v, err := gcf.UnmarshalValue(b, gcf.Options{})
				if err != nil {
					return nil, err
				}
				return gcf.AppendJSON(nil, v)
			},
			lossless: true,
		},
		"json": {
			fromJSON: func(b []byte) ([]byte, error) { return normalizeJSON(b) },
			toJSON:   func(b []byte) ([]byte, error) { return normalizeJSON(b) },
			lossless: true,
		},
		"toon": {
			fromJSON: func(b []byte) ([]byte, error) { return toon.FromJSON(b, toon.Options{}) },
			toJSON:   func(b []byte) ([]byte, error) { return toon.ToJSON(b, toon.Options{}, "") },
			lossless: true,
		},
	}
}

// normalizeJSON validates a JSON document and writes it compactly, keeping
// key order and number spelling.
func normalizeJSON(b []byte) ([]byte, error) {
	v, err := toon.ParseJSON(b)
	if err != nil {
		return nil, err
	}
	return toon.AppendJSON(nil, v)
}

func runConvert(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range converters("") {
			if !yield(k) {
				return
			}
		}
	})
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from", "json", "input format: "+strings.Join(names, ", "))
	to := fs.String("to", "", "output format: "+strings.Join(names, ", "))
	tool := fs.String("tool", "value", "GCX section tool name for --to gcx")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: graphwire convert [--from %s] --to %s [FILE]\n", strings.Join(names, "|"), strings.Join(names, "|"))
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if *to == "" || fs.NArg() > 1 {
		fs.Usage()
		return exitUsage
	}
	src, ok1 := converters(*tool)[*from]
	dst, ok2 := converters(*tool)[*to]
	if !ok1 || !ok2 {
		fmt.Fprintf(stderr, "graphwire convert: unknown format (known: %s)\n", strings.Join(names, ", "))
		return exitUsage
	}
	name, in := "stdin", stdin
	if fs.NArg() == 1 && fs.Arg(0) != "-" {
		f, err := os.Open(fs.Arg(0))
		if err != nil {
			fmt.Fprintf(stderr, "graphwire convert: %s\n", oneLine(err))
			return exitFailure
		}
		defer f.Close()
		name, in = fs.Arg(0), f
	}
	data, err := io.ReadAll(in)
	if err != nil {
		fmt.Fprintf(stderr, "graphwire convert: read %s: %s\n", name, oneLine(err))
		return exitFailure
	}
	doc, err := src.toJSON(data)
	if err != nil {
		fmt.Fprintf(stderr, "graphwire convert: %s: %s\n", name, oneLine(err))
		return exitFailure
	}
	out, err := dst.fromJSON(doc)
	if err != nil {
		fmt.Fprintf(stderr, "graphwire convert: %s: %s\n", name, oneLine(err))
		return exitFailure
	}
	if _, err := stdout.Write(out); err != nil {
		return exitFailure
	}
	if len(out) > 0 && out[len(out)-1] != '\n' {
		fmt.Fprintln(stdout)
	}
	return exitOK
}
