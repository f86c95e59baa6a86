package e2e

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/graphwire/graphwire/auth"
	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
)

// TestAbuseDoesNotStarveOthers: one caller floods the server with heavy
// queries (a variable-length walk over every user, about 0.6 s on the
// test graph) that it abandons after 50 ms, while another caller runs a
// cheap search 40 times in a row. Every search must succeed and their
// 99th-percentile latency stay under 1 s: abandoned work must neither keep
// the engine busy nor hold the other caller's slots. It is a functional
// bound on a 2-connection engine, not a micro-benchmark. The flood is
// bounded in count and the whole test in time (about 30 s at most).
func TestAbuseDoesNotStarveOthers(t *testing.T) {
	c := server(t, engine(t), nil)
	const (
		flooders     = 4
		maxPerFlood  = 300
		searches     = 40
		abandonAfter = 50 * time.Millisecond
		bound        = time.Second
	)
	heavy := `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","id_range":{"start":1,"end":100000}},{"id":"x","entity":"MergeRequest"}],"relationships":[{"type":"*","from":"u","to":"x","hops":[1,3],"direction":"both"}],"limit":1000}`
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	floodCtx := as(t, auth.Claims{UserID: 66, Admin: true})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	floodCodes := make([]map[codes.Code]int, flooders)
	for i := range flooders {
		floodCodes[i] = map[codes.Code]int{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range maxPerFlood {
				select {
				case <-stop:
					return
				case <-ctx.Done():
					return
				default:
				}
				qctx, qcancel := context.WithTimeout(floodCtx, abandonAfter)
				_, err := c.ExecuteQuery(qctx, &pb.ExecuteQueryRequest{Query: heavy})
				qcancel()
				floodCodes[i][status.Code(err)]++
			}
		}()
	}

	cheapCtx := as(t, admin)
	var took []time.Duration
	for i := range searches {
		start := time.Now()
		sctx, scancel := context.WithTimeout(cheapCtx, 5*time.Second)
		_, err := c.ExecuteQuery(sctx, &pb.ExecuteQueryRequest{Query: queries["search"]})
		scancel()
		if err != nil {
			close(stop)
			wg.Wait()
			t.Fatalf("search %d during the flood: %v", i, err)
		}
		took = append(took, time.Since(start))
		if ctx.Err() != nil {
			break
		}
	}
	close(stop)
	wg.Wait()
	total := map[codes.Code]int{}
	for _, m := range floodCodes {
		for k, v := range m {
			total[k] += v
		}
	}
	slices.Sort(took)
	p99 := took[(len(took)*99+99)/100-1]
	t.Logf("flood outcomes %v; %d searches: median %v, p99 %v, max %v", total, len(took), took[len(took)/2], p99, took[len(took)-1])
	if len(took) != searches {
		t.Fatalf("only %d of %d searches ran within the time bound", len(took), searches)
	}
	if p99 >= bound {
		t.Errorf("p99 search latency %v during the flood, want under %v", p99, bound)
	}
}
