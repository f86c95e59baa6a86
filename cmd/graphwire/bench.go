//go:build scorecard

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/conformance"
	"github.com/graphwire/graphwire/ontology"
	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
	"github.com/graphwire/graphwire/scorecard"
	"github.com/graphwire/graphwire/scorecard/chart"
	"github.com/graphwire/graphwire/seed"
)

// benchFlags are the parsed flags of graphwire bench.
type benchFlags struct {
	out      string
	chart    string
	noTiming bool
	scale    float64
	data     string
	seeded   bool
	reduced  bool
}

func newBenchCmd(s streams) *cobra.Command {
	var f benchFlags
	cmd := &cobra.Command{
		Use:   "bench [flags]",
		Short: "measure every output format over the fixed corpus; write docs/scorecard.md and docs/scorecard.png",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.scale <= 0 {
				return usageErrorf("--scale must be positive")
			}
			return bench(cmd.Context(), f, s.stdout, s.stderr)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.out, "out", "docs/scorecard.md", "Markdown report to write")
	fs.StringVar(&f.chart, "chart", "docs/scorecard.png", "PNG chart to write")
	fs.BoolVar(&f.noTiming, "no-timing", false, "skip the encode/decode speed measurement")
	fs.Float64Var(&f.scale, "scale", 0.2, "seed scale of the embedded graph the query results come from (1 ≈ 14k nodes)")
	fs.StringVar(&f.data, "embedded", "", "data directory of the embedded engine for the seeded graph (default: a temporary directory, removed afterwards)")
	deprecatedAlias(fs, "embedded", "data", s.stderr)
	fs.BoolVar(&f.seeded, "seeded", true, "include query results from the seeded embedded graph (needs libchdb.so)")
	fs.BoolVar(&f.reduced, "reduced", false, "measure a reduced corpus (for quick checks; the scorecard uses the full one)")
	return cmd
}

// bench builds the corpus, measures it and writes the report and chart.
func bench(ctx context.Context, f benchFlags, stdout, stderr io.Writer) error {
	start := time.Now()
	root, err := conformance.Root()
	if err != nil {
		return err
	}
	if _, err := os.Stat(root); err != nil {
		return fmt.Errorf("conformance data not found at %s (set %s): %w", root, conformance.EnvDir, err)
	}
	cases, err := scorecard.Corpus(os.DirFS(root), scorecard.CorpusOptions{Reduced: f.reduced})
	if err != nil {
		return fmt.Errorf("build corpus: %w", err)
	}
	command := "graphwire bench"
	var agent *scorecard.AgentSessionResult
	if f.seeded {
		seeded, err := seededCases(ctx, f.data, f.scale, stderr)
		if err != nil {
			return fmt.Errorf("query the seeded graph: %w", err)
		}
		cases = append(cases, seeded.cases...)
		agent = seeded.agent
		command += " --scale " + strconv.FormatFloat(f.scale, 'g', -1, 64)
	} else {
		command += " --seeded=false"
	}
	if f.reduced {
		command += " --reduced"
	}
	formats, err := scorecard.Formats(formatter.Default())
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "bench: measuring %d cases × %d formats (timing %v)\n", len(cases), len(formats), !f.noTiming)
	res, err := scorecard.Measure(cases, formats, scorecard.Options{
		Timing: !f.noTiming,
		Progress: func(i, n int, name string) {
			if i == n || i%10 == 0 {
				fmt.Fprintf(stderr, "bench: %d/%d %s\n", i, n, name)
			}
		},
	})
	if err != nil {
		return err
	}
	if res.Session, err = scorecard.Session(); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	res.Agent = agent
	chartRef, err := filepath.Rel(filepath.Dir(f.out), f.chart)
	if err != nil {
		chartRef = f.chart
	}
	var report, png bytes.Buffer
	if err := scorecard.WriteReport(&report, res, scorecard.ReportOptions{Command: command, Chart: filepath.ToSlash(chartRef)}); err != nil {
		return err
	}
	if err := chart.Write(&png, res); err != nil {
		return err
	}
	for _, out := range []struct {
		path string
		data []byte
	}{{f.out, report.Bytes()}, {f.chart, png.Bytes()}} {
		if err := os.MkdirAll(filepath.Dir(out.path), 0o755); err != nil {
			return fmt.Errorf("create output directory: %w", err)
		}
		if err := os.WriteFile(out.path, out.data, 0o644); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
	}
	fmt.Fprintf(stdout, "wrote %s and %s (%d cases) in %s\n", f.out, f.chart, len(res.Rows), time.Since(start).Round(time.Second))
	fmt.Fprintf(stdout, "median token saving against compact JSON (o200k_base / cl100k_base), lossless or canonical results only:\n")
	for _, s := range res.Summaries(nil) {
		if s.Binary {
			fmt.Fprintf(stdout, "  %-12s bytes only: median byte saving %6.1f%%  (%d cases counted, %d lossy%s and %d n/a left out)\n",
				s.Format, s.Bytes, s.Cases, s.Lossy, scorecard.LossyMark, s.NA)
			continue
		}
		fmt.Fprintf(stdout, "  %-12s %6.1f%% / %6.1f%%  (%d cases counted, %d lossy%s and %d n/a left out)\n",
			s.Format, s.Median[0], s.Median[1], s.Cases, s.Lossy, scorecard.LossyMark, s.NA)
	}
	for _, row := range res.Rows {
		if row.Case.Realistic {
			n := row.Cells[0].O200k
			in := "in"
			if n < scorecard.RealisticMin || n > scorecard.RealisticMax {
				in = "OUTSIDE"
			}
			fmt.Fprintf(stdout, "realistic %s: %d nodes, %d edges, %d compact-JSON o200k tokens (%s %d–%d)\n", row.Case.Name,
				len(row.Case.Response.Nodes), len(row.Case.Response.Edges), n, in, scorecard.RealisticMin, scorecard.RealisticMax)
		}
	}
	jt, _, _, st := res.Session.Totals()
	fmt.Fprintf(stdout, "gcf-graph 5-call session vs resending compact JSON: %.1f%% / %.1f%%\n",
		scorecard.Saving(st[0], jt[0]), scorecard.Saving(st[1], jt[1]))
	if agent != nil {
		fmt.Fprintf(stdout, "MCP agent session, total o200k tokens per format:")
		for _, r := range agent.Runs {
			mark := ""
			if r.Lossy() > 0 {
				mark = scorecard.LossyMark
			}
			fmt.Fprintf(stdout, " %s %d%s", r.Format, r.Total(), mark)
		}
		fmt.Fprintln(stdout)
	}
	return nil
}

// realisticQueries are seeded query results at the sizes agents meet
// (scorecard.RealisticMin–RealisticMax compact-JSON tokens at the
// default --scale 0.2, where the graph has 100 users and 200 merge
// requests).
var realisticQueries = []struct{ name, query string }{
	{"users_100_all_columns", `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","id_range":{"start":1,"end":100000},"columns":"*"}],"limit":100}`},
	{"merge_requests_200", `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":100000},"columns":["iid","title","state","created_at","merged_at","source_branch","target_branch"]}],"limit":200}`},
	{"authored_200_edges", `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","id_range":{"start":1,"end":100000}},{"id":"mr","entity":"MergeRequest","columns":["iid","title","state","created_at"]}],"relationships":[{"type":"AUTHORED","from":"u","to":"mr"}],"limit":200}`},
}

// seededResult is what the seeded graph gives the scorecard.
type seededResult struct {
	cases []scorecard.Case
	agent *scorecard.AgentSessionResult
}

// seededCases seeds the embedded graph (seed 42), runs the demo's query of
// each type and the realistic queries through the real gRPC service,
// taking the raw JSON result, and runs the agent session through the MCP
// server. chDB allows one data directory per process, so this runs at
// most once.
func seededCases(ctx context.Context, dir string, scale float64, stderr io.Writer) (*seededResult, error) {
	if _, err := os.Stat(chdb.DefaultLibrary()); err != nil {
		return nil, fmt.Errorf("libchdb.so is missing at %s: run bash scripts/install-chdb.sh", chdb.DefaultLibrary())
	}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "graphwire-bench-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	ef := engineFlags{embedded: dir}
	eng, err := ef.openWritable(stderr)
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		return nil, err
	}
	opts := seed.Options{Scale: scale, Seed: 42}
	g, err := seed.Generate(ont, opts)
	if err != nil {
		return nil, err
	}
	st, err := seed.Load(ctx, eng, ont, g, opts)
	if err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	lb, err := serveLoopback(eng, ont)
	if err != nil {
		return nil, err
	}
	defer lb.close()
	client := lb.client
	cctx := withToken(ctx, lb.token)
	out := &seededResult{}
	for i, q := range append(slices.Clone(demoQueries), realisticQueries...) {
		resp, err := client.ExecuteQuery(cctx, &pb.ExecuteQueryRequest{Query: q.query})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", q.name, err)
		}
		r, err := graphresponse.Unmarshal([]byte(resp.GetResultJson()))
		if err != nil {
			return nil, fmt.Errorf("%s: decode raw result: %w", q.name, err)
		}
		realistic := i >= len(demoQueries)
		note := fmt.Sprintf("seed scale %g, seed 42: `%s`", scale, q.query)
		if realistic {
			note = fmt.Sprintf("agent-sized answer (%d nodes, %d edges); ", len(r.Nodes), len(r.Edges)) + note
		}
		out.cases = append(out.cases, scorecard.Case{Group: scorecard.GroupSeeded, Name: q.name, Response: r, Note: note, Realistic: realistic})
	}
	edit, err := newGraphEdit(eng, g, st.Version)
	if err != nil {
		return nil, err
	}
	if out.agent, err = agentSession(ctx, lb.svc, lb.token, edit); err != nil {
		return nil, err
	}
	return out, nil
}
