package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/tokens"
)

func runDemo(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	samples := fs.String("samples", "goon/testdata", "directory of sample GraphResponses (*.input.json)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if err := demoSamples(*samples, stdout); err != nil {
		fmt.Fprintf(stderr, "graphwire demo: %s\n", oneLine(err))
		return exitFailure
	}
	return exitOK
}

// demoSamples prints every sample response in every registered format, with
// byte and o200k_base token counts.
func demoSamples(dir string, w io.Writer) error {
	paths, err := filepath.Glob(filepath.Join(dir, "*.input.json"))
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return fmt.Errorf("no *.input.json in %s", dir)
	}
	reg := formatter.Default()
	counter := tokens.New()
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		resp, err := graphresponse.Unmarshal(data)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		name := strings.TrimSuffix(filepath.Base(p), ".input.json")
		fmt.Fprintf(w, "==== %s (%s)\n", name, resp.QueryType)
		for _, f := range reg.Formatters() {
			out, err := formatter.Stamp(f, resp)
			if err != nil {
				// Some formats cannot carry some shapes (gcf-graph has no
				// aggregations): say so and go on.
				fmt.Fprintf(w, "---- %s %s: not representable: %s\n", f.Name(), f.Version(), oneLine(err))
				continue
			}
			n, err := counter.Count(tokens.O200k, string(out.Bytes))
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "---- %s %s: %d bytes, %d tokens (o200k_base)\n", out.Name, out.Version, len(out.Bytes), n)
			w.Write(out.Bytes)
			if len(out.Bytes) > 0 && out.Bytes[len(out.Bytes)-1] != '\n' {
				fmt.Fprintln(w)
			}
		}
	}
	return nil
}
