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

	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/gcb1"
	"github.com/graphwire/graphwire/gcf"
	"github.com/graphwire/graphwire/gcx"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/tokens"
	"github.com/graphwire/graphwire/pipeline"
	"github.com/graphwire/graphwire/toon"
)

// converter turns any JSON document into a format and back. JSON text is
// the hub: every conversion goes through it, keeping key order.
type converter struct {
	fromJSON func(jsonDoc []byte) ([]byte, error)
	toJSON   func(data []byte) ([]byte, error)
	// lossless reports whether toJSON(fromJSON(doc)) gives doc back.
	lossless bool
	// response: the format carries a GraphResponse, not any JSON document
	// (gcb1); binary: its output is bytes, written without a final newline.
	response, binary bool
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
		// GCB1 carries a GraphResponse (the raw JSON answer), as far as
		// knowing's layout has room for it (docs/formats.md).
		"gcb1": {
			fromJSON: func(b []byte) ([]byte, error) {
				r, err := graphresponse.Unmarshal(b)
				if err != nil {
					return nil, fmt.Errorf("gcb1 carries a GraphResponse: %w", err)
				}
				return gcb1.Marshal(r, gcb1.Options{})
			},
			toJSON: func(b []byte) ([]byte, error) {
				r, err := gcb1.Unmarshal(b, gcb1.Options{})
				if err != nil {
					return nil, err
				}
				return graphresponse.Marshal(r), nil
			},
			response: true,
			binary:   true,
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
		Short: "convert any JSON document to and from the text formats, and GraphResponses to and from gcb1",
		Long: "Convert any JSON document to and from the text formats (" + strings.Join(names, ", ") + "); gcb1,\n" +
			"knowing's binary payload, carries a GraphResponse (the raw JSON answer of a query). It reads\n" +
			"FILE, or standard input without one or with -.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if to == "" {
				return usageErrorf("--to is required")
			}
			convs := converters(tool)
			src, ok1 := convs[from]
			_, ok2 := convs[to]
			if !ok1 || !ok2 && to != pipeline.Auto {
				return usageErrorf("unknown format (known: %s; --to also takes auto)", strings.Join(names, ", "))
			}
			file := ""
			if len(args) == 1 {
				file = args[0]
			}
			return runConvert(convs, src, to, file, s.stdin, s.stdout, s.stderr)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&from, "from", "json", "input format: "+strings.Join(names, ", "))
	fs.StringVar(&to, "to", "", "output format: "+strings.Join(names, ", ")+", or auto (the fewest o200k tokens of "+strings.Join(autoConverts(), ", ")+", named on stderr)")
	fs.StringVar(&tool, "tool", "value", "GCX section tool name for --to gcx")
	completeWords(cmd, "from", names...)
	completeWords(cmd, "to", append(names, pipeline.Auto)...)
	return cmd
}

// autoConverts are the formats convert --to auto chooses among: the lossless ones, in the
// order the pipeline's auto prefers on a tie (gcx reads back as its section model, so it is
// not one of them).
func autoConverts() []string { return []string{formatter.GCF, formatter.TOON, formatter.JSON} }

// runConvert is the running half of graphwire convert: src reads the input, and to names the
// output format in convs, or auto.
func runConvert(convs map[string]converter, src converter, to, file string, stdin io.Reader, stdout, stderr io.Writer) error {
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
	var out []byte
	if to == pipeline.Auto {
		if out, err = pickConvert(convs, doc, stderr); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	} else if out, err = convs[to].fromJSON(doc); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	w := &endWriter{w: stdout, binary: convs[to].binary}
	if _, err := w.Write(out); err != nil {
		return err
	}
	return w.finish()
}

// pickConvert renders doc in each of [autoConverts] and returns the text with the fewest
// o200k tokens, the first on a tie; it names the choice and the counts on stderr, since the
// output alone does not say how to read it back.
func pickConvert(convs map[string]converter, doc []byte, stderr io.Writer) ([]byte, error) {
	counter := tokens.New()
	var best []byte
	bestN, bestName := 0, ""
	var counts []string
	for _, name := range autoConverts() {
		out, err := convs[name].fromJSON(doc)
		if err != nil {
			return nil, err
		}
		text := string(out)
		if !strings.HasSuffix(text, "\n") {
			text += "\n" // counted as printed: every output ends with a newline
		}
		n, err := counter.Count(tokens.O200k, text)
		if err != nil {
			return nil, err
		}
		counts = append(counts, fmt.Sprintf("%s %d", name, n))
		if best == nil || n < bestN {
			best, bestN, bestName = out, n, name
		}
	}
	fmt.Fprintf(stderr, "graphwire convert: auto chose %s (o200k tokens: %s)\n", bestName, strings.Join(counts, ", "))
	return best, nil
}
