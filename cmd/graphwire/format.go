package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/graphwire/graphwire/formatter"
)

// formatFlags are the flags of "graphwire format".
type formatFlags struct {
	from, to    string
	goonVersion string
	list        bool
	file        string
}

func parseFormatFlags(args []string, stderr io.Writer) (formatFlags, error) {
	var f formatFlags
	fs := flag.NewFlagSet("format", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.from, "from", formatter.JSON, "input format")
	fs.StringVar(&f.to, "to", "", "output format (see --list)")
	fs.StringVar(&f.goonVersion, "goon-version", "", "GOON version to print (default: config/GOON_OUTPUT_FORMAT_VERSION)")
	fs.BoolVar(&f.list, "list", false, "list the registered formats with their versions")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: graphwire format [--from FORMAT] --to FORMAT [--goon-version V] [FILE]\n       graphwire format --list")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	switch {
	case f.list:
		return f, nil
	case f.to == "":
		fs.Usage()
		return f, errors.New("--to is required")
	case fs.NArg() > 1:
		return f, errors.New("at most one FILE")
	case fs.NArg() == 1:
		f.file = fs.Arg(0)
	}
	return f, nil
}

func runFormat(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f, err := parseFormatFlags(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stderr, "graphwire format: %v\n", err)
		}
		return exitUsage
	}
	reg := formatter.Default()
	if f.list {
		for _, fm := range reg.Formatters() {
			fmt.Fprintf(stdout, "%-10s %-8s %s\n", fm.Name(), fm.Version(), fm.MediaType())
		}
		return exitOK
	}
	if err := formatOnce(reg, f, stdin, stdout); err != nil {
		fmt.Fprintf(stderr, "graphwire format: %s\n", oneLine(err))
		return exitFailure
	}
	return exitOK
}

func formatOnce(reg *formatter.Registry, f formatFlags, stdin io.Reader, stdout io.Writer) error {
	from, err := reg.Lookup(f.from)
	if err != nil {
		return err
	}
	parser, ok := from.(formatter.Parser)
	if !ok {
		return fmt.Errorf("format %q cannot be read back (readable: %s)", from.Name(), strings.Join(readable(reg), ", "))
	}
	to, err := reg.Lookup(f.to)
	if err != nil {
		return err
	}
	if f.goonVersion != "" {
		if to.Name() != formatter.GOON {
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

// oneLine flattens an error message to a single line.
func oneLine(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", " ")
}
