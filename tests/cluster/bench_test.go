package cluster_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/graphwire/graphwire/cluster"
	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/clickhouse"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/seed"
)

// benchQueries are the query types of the end-to-end suite and the demo.
var benchQueries = []struct{ name, query string }{
	{"search", `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","filters":{"username":{"contains":"ali"}}}],"limit":50}`},
	{"traversal", `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1,2,3]},{"id":"g","entity":"Group"}],"relationships":[{"type":"MEMBER_OF","from":"u","to":"g"}],"limit":10}`},
	{"var-length", `{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1]},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,3]}],"limit":50}`},
	{"aggregation", `{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":100000}}],"group_by":["mr.state"],"aggregations":[{"count":"mr"}],"aggregation_sort":"-count_mr"}`},
	{"path_finding", `{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"p","entity":"Project","id_range":{"start":1,"end":40}}],"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]},"limit":3}`},
	{"neighbors", `{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1]}],"neighbors":{"direction":"both"},"limit":8}`},
}

// benchLayout is one way of holding the graph: one server, or a cluster of n shards.
type benchLayout struct {
	name string
	c    *testCluster
	e    *clickhouse.Executor
}

// cpu returns the CPU time the layout's servers have used, from /proc.
func (l *benchLayout) cpu(t *testing.T) time.Duration {
	var total time.Duration
	for i := range l.c.dsns {
		b, err := os.ReadFile(filepath.Join(l.c.dir, fmt.Sprintf("s%d", i+1), "pid"))
		if err != nil {
			t.Fatal(err)
		}
		stat, err := os.ReadFile("/proc/" + strings.TrimSpace(string(b)) + "/stat")
		if err != nil {
			t.Fatal(err)
		}
		// Fields after the command (which ends with ')'): utime and stime are the 12th and
		// 13th, in clock ticks (100 per second on Linux).
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
		u, _ := strconv.ParseInt(f[11], 10, 64)
		s, _ := strconv.ParseInt(f[12], 10, 64)
		total += time.Duration(u+s) * 10 * time.Millisecond
	}
	return total
}

// TestBenchCluster (make bench-cluster; GRAPHWIRE_CLUSTER_BENCH=1): the query types on one
// server and on clusters of 2 and 3 shards, seeded alike at each scale of
// GRAPHWIRE_CLUSTER_BENCH_SCALES (default "10 100"), interleaved (each round runs every query
// on every layout in turn) for GRAPHWIRE_CLUSTER_BENCH_ROUNDS rounds (default 7). Each answer
// must equal the single server's. It prints the median wall time and the mean CPU time of the
// layout's servers (utime + stime from /proc, counted in 10 ms ticks, so the mean over the
// rounds, not a median of ticks) per query, and the CPU ratios to one server.
func TestBenchCluster(t *testing.T) {
	if os.Getenv("GRAPHWIRE_CLUSTER_BENCH") == "" {
		t.Skip("GRAPHWIRE_CLUSTER_BENCH is not set (make bench-cluster)")
	}
	scales := strings.Fields(os.Getenv("GRAPHWIRE_CLUSTER_BENCH_SCALES"))
	if len(scales) == 0 {
		scales = []string{"10", "100"}
	}
	rounds := 7
	if s := os.Getenv("GRAPHWIRE_CLUSTER_BENCH_ROUNDS"); s != "" {
		rounds, _ = strconv.Atoi(s)
	}
	base, _ := strconv.Atoi(cmpOr(os.Getenv("GRAPHWIRE_CLUSTER_TEST_PORT"), "29500"))
	comp, err := compiler.New(env.ont, compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	admin := &compiler.Caller{Subject: "1", Admin: true}
	compiled := make([]*compiler.Query, len(benchQueries))
	for i, bq := range benchQueries {
		if compiled[i], err = comp.Compile([]byte(bq.query), admin); err != nil {
			t.Fatalf("%s: %v", bq.name, err)
		}
	}
	layouts := []*benchLayout{{name: "1 server", c: startServers(t, t.TempDir(), 1, "", strconv.Itoa(base))}}
	// GRAPHWIRE_CLUSTER_BENCH_SHARDS: the cluster sizes, default "2 3".
	for _, n := range strings.Fields(cmpOr(os.Getenv("GRAPHWIRE_CLUSTER_BENCH_SHARDS"), "2 3")) {
		k, err := strconv.Atoi(n)
		if err != nil || k < 2 || k > 9 {
			t.Fatalf("GRAPHWIRE_CLUSTER_BENCH_SHARDS: %q is not 2..9", n)
		}
		layouts = append(layouts, &benchLayout{name: n + " shards", c: startServers(t, t.TempDir(), k, "gw", strconv.Itoa(base+2+k*k))})
	}
	t.Cleanup(func() {
		for _, l := range layouts {
			cmd := exec.Command("bash", filepath.Join(env.root, "scripts/clickhouse-server.sh"), "--stop")
			cmd.Env = append(os.Environ(), "GRAPHWIRE_CLICKHOUSE_DIR="+l.c.dir)
			cmd.Run() //nolint:errcheck
		}
	})
	for _, scale := range scales {
		sc, err := strconv.ParseFloat(scale, 64)
		if err != nil {
			t.Fatal(err)
		}
		db := "gw_bench_" + strings.ReplaceAll(scale, ".", "_")
		opts := seed.Options{Scale: sc, Seed: 42}
		g, err := seed.Generate(env.ont, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range layouts {
			cl := ""
			if l.name != "1 server" {
				cl = "gw"
			}
			l.e, err = clickhouse.Open(clickhouse.Options{DSN: l.c.dsns[0], Database: db, CreateDatabase: true, Cluster: cl, DialTimeout: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			o := opts
			if cl != "" {
				if err := cluster.Init(t.Context(), l.e, env.ont); err != nil {
					t.Fatal(err)
				}
				e := l.e
				o.Merge = func(ctx context.Context, table string) error { return cluster.Merge(ctx, e, table) }
			}
			start := time.Now()
			if _, err := seed.Load(t.Context(), l.e, env.ont, g, o); err != nil {
				t.Fatal(err)
			}
			t.Logf("scale %s: seeded %s in %s", scale, l.name, time.Since(start).Round(time.Millisecond))
		}
		fmt.Printf("\nscale %s (%d nodes, %d edges), %d rounds: median wall, mean server CPU per query:\n\n", scale, g.Nodes(), g.Edges(), rounds)
		head, rule := "| query", "|---"
		for _, l := range layouts {
			head += " | " + l.name + " wall | " + l.name + " CPU"
			rule += "|---|---"
		}
		for _, l := range layouts[1:] {
			head += " | CPU " + l.name + " / 1"
			rule += "|---"
		}
		fmt.Println(head + " |")
		fmt.Println(rule + "|")
		for qi, bq := range benchQueries {
			q := compiled[qi]
			wall := make([][]time.Duration, len(layouts))
			cpu := make([][]time.Duration, len(layouts))
			for r := range rounds + 1 {
				var want []byte
				for i, l := range layouts {
					c0, w0 := l.cpu(t), time.Now()
					resp, _, err := executor.Respond(t.Context(), l.e, comp, q)
					w, c := time.Since(w0), l.cpu(t)-c0
					if err != nil {
						t.Fatalf("%s on %s: %v", bq.name, l.name, err)
					}
					got := graphresponse.Marshal(resp)
					if i == 0 {
						want = got
					} else if string(got) != string(want) {
						t.Fatalf("%s on %s answers differently:\n%s\n%s", bq.name, l.name, got, want)
					}
					if r > 0 { // the first round warms the caches
						wall[i] = append(wall[i], w)
						cpu[i] = append(cpu[i], c)
					}
				}
			}
			row := "| " + bq.name
			for i := range layouts {
				row += fmt.Sprintf(" | %s | %s", median(wall[i]).Round(100*time.Microsecond), mean(cpu[i]).Round(100*time.Microsecond))
			}
			for i := 1; i < len(layouts); i++ {
				row += " | " + ratio(mean(cpu[i]), mean(cpu[0]))
			}
			fmt.Println(row + " |")
		}
		for _, l := range layouts {
			l.e.Close()
		}
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func mean(ds []time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(len(ds))
}

func ratio(a, b time.Duration) string {
	if b == 0 {
		return "n/a (below one tick)"
	}
	return fmt.Sprintf("%.2f×", float64(a)/float64(b))
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
