package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/pipeline"
)

// formatFlags are the flags of "graphwire format".
type formatFlags struct {
	from, to    string
	goonVersion string
	list        bool
	file        string
}

func newFormatCmd(s streams) *cobra.Command {
	var f formatFlags
	cmd := &cobra.Command{
		Use:   "format [--from FORMAT] --to FORMAT [flags] [FILE]",
		Short: "re-encode a GraphResponse in another format",
		Long: "Re-encode a GraphResponse (the raw JSON answer of a query, or any format that reads back) in\n" +
			"another format. It reads FILE, or standard input without one or with -. --list prints the\n" +
			"registered formats with their versions.",
		Example: "  graphwire query --admin @q.json | graphwire format --to toon",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg := formatter.Default()
			if f.list {
				for _, fm := range reg.Formatters() {
					fmt.Fprintf(s.stdout, "%-10s %-8s %s\n", fm.Name(), fm.Version(), fm.MediaType())
				}
				return nil
			}
			if f.to == "" {
				return usageErrorf("--to is required")
			}
			if len(args) == 1 {
				f.file = args[0]
			}
			out := &endWriter{w: s.stdout, binary: binaryFormat(f.to)}
			if err := formatOnce(cmd.Context(), reg, f, s.stdin, out, s.stderr); err != nil {
				return err
			}
			return out.finish()
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.from, "from", formatter.JSON, "input format")
	fs.StringVar(&f.to, "to", "", "output format (see --list), or auto: the fewest o200k tokens of goon, gcf, gcx, toon and json that carry the response losslessly, named on stderr")
	fs.StringVar(&f.goonVersion, "goon-version", "", "GOON version to print (default: config/GOON_OUTPUT_FORMAT_VERSION)")
	fs.BoolVar(&f.list, "list", false, "list the registered formats with their versions")
	names := formatter.Default().Names()
	completeWords(cmd, "from", names...)
	completeWords(cmd, "to", append(names, pipeline.Auto)...)
	return cmd
}

func formatOnce(ctx context.Context, reg *formatter.Registry, f formatFlags, stdin io.Reader, stdout, stderr io.Writer) error {
	from, err := reg.Lookup(f.from)
	if err != nil {
		return err
	}
	parser, ok := from.(formatter.Parser)
	if !ok {
		return fmt.Errorf("format %q cannot be read back (readable: %s)", from.Name(), strings.Join(readable(reg), ", "))
	}
	auto := strings.EqualFold(f.to, pipeline.Auto)
	var to formatter.Formatter
	if !auto {
		if to, err = reg.Lookup(f.to); err != nil {
			return err
		}
	}
	if f.goonVersion != "" {
		if auto || to.Name() != formatter.GOON {
			return errors.New("--goon-version applies only to --to goon")
		}
		if to, err = formatter.NewGOON(f.goonVersion); err != nil {
			return fmt.Errorf("--goon-version %q: %w", f.goonVersion, err)
		}
	}
	name := "stdin"
	in := stdin
	if f.file != "" && f.file != "-" {
		fh, err := os.Open(f.file)
		if err != nil {
			return err
		}
		defer fh.Close()
		name, in = f.file, fh
	}
	data, err := io.ReadAll(in)
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	resp, err := parser.Parse(data)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if auto {
		// The choice the pipeline makes for an answer in format auto, named on stderr so
		// the output can be read back with --from.
		to, text, considered, err := pipeline.PickAuto(ctx, reg, resp)
		if err != nil {
			return err
		}
		var counts []string
		for _, c := range considered {
			counts = append(counts, fmt.Sprintf("%s %d", c.Format, c.Tokens))
		}
		fmt.Fprintf(stderr, "graphwire format: auto chose %s (o200k tokens of the lossless formats: %s)\n", to.Name(), strings.Join(counts, ", "))
		_, err = stdout.Write(text)
		return err
	}
	w := bufio.NewWriter(stdout)
	if err := to.Format(w, resp); err != nil {
		return fmt.Errorf("write %s: %w", to.Name(), err)
	}
	return w.Flush()
}

// readable lists the formats that can be parsed.
func readable(reg *formatter.Registry) []string {
	var out []string
	for _, f := range reg.Formatters() {
		if _, ok := f.(formatter.Parser); ok {
			out = append(out, f.Name())
		}
	}
	return out
}
