// Command loadtest drives a running graphwire server on loopback with
// concurrent clients sending a mix of queries in every format, for a
// bounded time, and reports throughput, latency, errors and the server's
// resident memory over the run. scripts/loadtest.sh starts the server and
// runs it; the run fails on any error or on memory growth.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"

	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
)

var queries = []string{
	`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","filters":{"username":"alice"}}]}`,
	`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1,2,3]},{"id":"g","entity":"Group"}],"relationships":[{"type":"MEMBER_OF","from":"u","to":"g"}],"limit":10}`,
	`{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":100000}}],"group_by":["mr.state"],"aggregations":[{"count":"mr"}]}`,
	`{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"p","entity":"Project","id_range":{"start":1,"end":40}}],"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]},"limit":3}`,
	`{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[2]}],"neighbors":{"direction":"both"},"limit":8}`,
	`{"query_type":"traversal","nodes":[{"id":"m","entity":"MergeRequest","filters":{"state":"merged"}}],"limit":50}`,
}

var formats = []pb.FormatName{
	pb.FormatName_FORMAT_NAME_RAW, pb.FormatName_FORMAT_NAME_GOON, pb.FormatName_FORMAT_NAME_GCF,
	pb.FormatName_FORMAT_NAME_GCX, pb.FormatName_FORMAT_NAME_TOON,
}

func main() {
	addr := flag.String("addr", "127.0.0.1:7447", "server address (loopback)")
	token := flag.String("token", os.Getenv("GRAPHWIRE_TOKEN"), "bearer JWT")
	clients := flag.Int("clients", 16, "concurrent clients")
	duration := flag.Duration("duration", 30*time.Second, "how long to send requests")
	pid := flag.Int("pid", 0, "server process id, to sample its resident memory")
	maxGrowth := flag.Float64("max-rss-growth", 0.25, "fail when the mean RSS of the last quarter exceeds that of the second quarter (after warm-up) by this fraction")
	perQuery := flag.Int("per-query", 0, "instead of the mixed load: send each query of the mix this many times from one client, one at a time, and report the server's CPU per request (needs -pid)")
	only := flag.Int("query", -1, "with -per-query: only this query of the mix (0-based)")
	flag.Parse()
	if !strings.HasPrefix(*addr, "127.") && !strings.HasPrefix(*addr, "localhost:") && !strings.HasPrefix(*addr, "[::1]") {
		fmt.Fprintln(os.Stderr, "loadtest: only loopback addresses are allowed")
		os.Exit(2)
	}
	if *perQuery > 0 {
		if err := measurePerQuery(*addr, *token, *pid, *perQuery, *only); err != nil {
			fmt.Fprintln(os.Stderr, "loadtest:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*addr, *token, *clients, *duration, *pid, *maxGrowth); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

// connect dials the server, waits until it reports healthy, and returns a query client and
// a context carrying token.
func connect(addr, token string) (*grpc.ClientConn, pb.QueryServiceClient, context.Context, error) {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, nil, nil, err
	}
	if err := waitHealthy(conn, 30*time.Second); err != nil {
		conn.Close()
		return nil, nil, nil, err
	}
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+token)
	return conn, pb.NewQueryServiceClient(conn), ctx, nil
}

func run(addr, token string, clients int, duration time.Duration, pid int, maxGrowth float64) error {
	conn, client, ctx, err := connect(addr, token)
	if err != nil {
		return err
	}
	defer conn.Close()

	var ok, failed atomic.Int64
	var mu sync.Mutex
	var latencies []time.Duration
	var firstErr atomic.Value
	deadline := time.Now().Add(duration)

	var rss []int64
	stop := make(chan struct{})
	var sampler sync.WaitGroup
	if pid > 0 {
		sampler.Go(func() {
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			for {
				if kb, err := residentKB(pid); err == nil {
					rss = append(rss, kb)
				}
				select {
				case <-stop:
					return
				case <-tick.C:
				}
			}
		})
	}

	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			var local []time.Duration
			for i := c; time.Now().Before(deadline); i++ {
				q := queries[i%len(queries)]
				f := formats[(i/len(queries))%len(formats)]
				req := &pb.ExecuteQueryRequest{Query: q, LlmFormat: f}
				if f != pb.FormatName_FORMAT_NAME_RAW {
					req.Format = pb.ResponseFormat_RESPONSE_FORMAT_LLM
				}
				cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				start := time.Now()
				_, err := client.ExecuteQuery(cctx, req)
				cancel()
				local = append(local, time.Since(start))
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, fmt.Sprintf("%v (query %d, format %v)", err, i%len(queries), f))
					continue
				}
				ok.Add(1)
			}
			mu.Lock()
			latencies = append(latencies, local...)
			mu.Unlock()
		})
	}
	wg.Wait()
	close(stop)
	sampler.Wait()

	slices.Sort(latencies)
	pct := func(p float64) time.Duration {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[min(len(latencies)-1, int(p*float64(len(latencies))))]
	}
	total := ok.Load() + failed.Load()
	fmt.Printf("loadtest: %d clients × %s on %s\n", clients, duration, addr)
	fmt.Printf("requests: %d ok, %d failed, %.1f req/s\n", ok.Load(), failed.Load(), float64(total)/duration.Seconds())
	fmt.Printf("latency: p50 %s, p95 %s, p99 %s, max %s\n", pct(0.50).Round(time.Microsecond), pct(0.95).Round(time.Microsecond), pct(0.99).Round(time.Microsecond), pct(1).Round(time.Microsecond))
	var growth float64
	if len(rss) >= 8 {
		// The first quarter is warm-up (pools, caches, the engine's first
		// reads); flat means the last quarter is no higher than the second.
		q := len(rss) / 4
		warm, last := mean(rss[q:2*q]), mean(rss[len(rss)-q:])
		growth = last/warm - 1
		fmt.Printf("server RSS (MiB, one sample a second): start %.1f, min %.1f, max %.1f, end %.1f; last quarter vs second quarter %+.1f%%\n",
			float64(rss[0])/1024, float64(slices.Min(rss))/1024, float64(slices.Max(rss))/1024, float64(rss[len(rss)-1])/1024, 100*growth)
	}
	if failed.Load() > 0 {
		return fmt.Errorf("%d requests failed; first: %v", failed.Load(), firstErr.Load())
	}
	if growth > maxGrowth {
		return fmt.Errorf("server memory grew %.0f%% (limit %.0f%%)", 100*growth, 100*maxGrowth)
	}
	return nil
}

func waitHealthy(conn *grpc.ClientConn, limit time.Duration) error {
	h := healthpb.NewHealthClient(conn)
	end := time.Now().Add(limit)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		res, err := h.Check(ctx, &healthpb.HealthCheckRequest{})
		cancel()
		if err == nil && res.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			return nil
		}
		if time.Now().After(end) {
			return fmt.Errorf("server not healthy after %s: %v", limit, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func residentKB(pid int) (int64, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			return strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
		}
	}
	return 0, fmt.Errorf("no VmRSS for pid %d", pid)
}

func mean(xs []int64) float64 {
	var s float64
	for _, x := range xs {
		s += float64(x)
	}
	return s / float64(len(xs))
}

// measurePerQuery sends each query of the mix n times in a row from one client (raw format,
// after 3 unmeasured warm-up requests) and prints the server process's CPU time (user +
// system, from /proc/PID/stat: every thread, the engine's background threads included) per
// request, and the client's median wall time.
func measurePerQuery(addr, token string, pid, n, only int) error {
	if pid <= 0 {
		return fmt.Errorf("-per-query needs -pid")
	}
	conn, client, ctx, err := connect(addr, token)
	if err != nil {
		return err
	}
	defer conn.Close()
	send := func(q string) error {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		_, err := client.ExecuteQuery(cctx, &pb.ExecuteQueryRequest{Query: q})
		return err
	}
	var total time.Duration
	measured := 0
	for i, q := range queries {
		if only >= 0 && i != only {
			continue
		}
		measured++
		for range 3 {
			if err := send(q); err != nil {
				return fmt.Errorf("query %d: %w", i, err)
			}
		}
		before, err := processCPU(pid)
		if err != nil {
			return err
		}
		walls := make([]time.Duration, 0, n)
		for range n {
			start := time.Now()
			if err := send(q); err != nil {
				return fmt.Errorf("query %d: %w", i, err)
			}
			walls = append(walls, time.Since(start))
		}
		after, err := processCPU(pid)
		if err != nil {
			return err
		}
		slices.Sort(walls)
		per := (after - before) / time.Duration(n)
		total += per
		fmt.Printf("query %d: server CPU %.1f ms/request, wall p50 %.1f ms (%d requests): %.70s\n", i,
			float64(per.Microseconds())/1000, float64(walls[n/2].Microseconds())/1000, n, q)
	}
	if measured > 1 {
		fmt.Printf("mean server CPU over the mix: %.1f ms/request\n", float64(total.Microseconds())/1000/float64(measured))
	}
	return nil
}

// processCPU is the user + system CPU time of process pid so far.
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold blanks: fields count from after it.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("bad /proc/%d/stat", pid)
	}
	const hz = 100 // USER_HZ, fixed at 100 on Linux
	return time.Duration(utime+stime) * time.Second / hz, nil
}
