package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

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

func newConvertCmd(s streams) *cobra.Command {
	names := slices.Sorted(maps.Keys(converters("")))
	var from, to, tool string
	cmd := &cobra.Command{
		Use:   "convert [--from FORMAT] --to FORMAT [flags] [FILE]",
		Short: "convert any JSON document to and from the text formats",
		Long: "Convert any JSON document to and from the text formats (" + strings.Join(names, ", ") + "). It reads\n" +
			"FILE, or standard input without one or with -.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if to == "" {
				return usageErrorf("--to is required")
			}
			src, ok1 := converters(tool)[from]
			dst, ok2 := converters(tool)[to]
			if !ok1 || !ok2 {
				return usageErrorf("unknown format (known: %s)", strings.Join(names, ", "))
			}
			file := ""
			if len(args) == 1 {
				file = args[0]
			}
			return runConvert(src, dst, file, s.stdin, s.stdout)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&from, "from", "json", "input format: "+strings.Join(names, ", "))
	fs.StringVar(&to, "to", "", "output format: "+strings.Join(names, ", "))
	fs.StringVar(&tool, "tool", "value", "GCX section tool name for --to gcx")
	completeWords(cmd, "from", names...)
	completeWords(cmd, "to", names...)
	return cmd
}

// runConvert is the running half of graphwire convert.
func runConvert(src, dst converter, file string, stdin io.Reader, stdout io.Writer) error {
	name, in := "stdin", stdin
	if file != "" && file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return err
		}
		defer f.Close()
		name, in = file, f
	}
	data, err := io.ReadAll(in)
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	doc, err := src.toJSON(data)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	out, err := dst.fromJSON(doc)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	w := &endWriter{w: stdout}
	if _, err := w.Write(out); err != nil {
		return err
	}
	return w.finish()
}
