package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/graphwire/graphwire/admission"
	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/grpcsvc"
	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
)

// engineStatements is the number of statements running in the engine,
// other than the one asking.
func engineStatements(t *testing.T) int64 {
	t.Helper()
	rows, err := executor.CollectRows(t.Context(), engine(t), &compiler.Query{
		// Only the suite's own database: on a server, system.processes also shows its
		// keep-alive statement and the statements of other suites.
		SQL: "SELECT toInt64(count()) FROM system.processes WHERE query_id != queryID() AND current_database = currentDatabase()"})
	if err != nil {
		t.Fatal(err)
	}
	return rows.Values[0][0].(int64)
}

// waitFor polls cond until it holds, failing the test with cond's account
// of the state if it does not within bound. The bound only stops a broken
// run; a correct one never comes near it.
func waitFor(t *testing.T, bound time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(bound)
	for {
		ok, state := cond()
		if ok {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("%s: not reached within %v; %s", what, bound, state)
		}
	}
}

// TestAbuseDoesNotStarveOthers: one caller floods the server with a heavy
// query (two chained variable-length walks over every relationship type,
// which the engine works on for longer than its 30 s max_execution_time),
// then abandons it, while another caller searches. It checks, without
// timing anything, the two things that keep the other caller served:
//
//   - The split: the flooder, at its limit, holds one of the two slots
//     (--max-per-caller is half of --max-concurrent), its other requests
//     wait or are refused, and every search of the other caller succeeds
//     meanwhile, with the flooder's share unchanged after each. A search
//     queued behind the flooder would wait for a statement that runs for
//     far longer than the admission wait (1 s) and be refused.
//   - Cancellation reaches the engine: once the flood's calls have been
//     abandoned and have returned, the engine runs no statement and
//     admission holds nothing. Only KILL QUERY (executor/chdb) stops the
//     heavy statement early, since the calls carry no deadline: without
//     it, the statement runs on until max_execution_time (30 s) and keeps
//     its engine connection and its slot, so the state is not reached
//     within the 25 s bound and the test fails (shown by making the
//     executor's kill a no-op).
func TestAbuseDoesNotStarveOthers(t *testing.T) {
	var adm *admission.Controller
	c := server(t, engine(t), func(o *grpcsvc.Options) { adm = o.Admission })
	if per := adm.Options().MaxPerCaller; per != 1 || adm.Options().MaxConcurrent != 2 {
		t.Fatalf("the test needs 2 slots, 1 per caller; admission has %+v", adm.Options())
	}
	const (
		floods   = 4
		searches = 10
	)
	heavy := `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","id_range":{"start":1,"end":100000}},{"id":"x","entity":"MergeRequest"},{"id":"y","entity":"User"}],` +
		`"relationships":[{"type":"*","from":"u","to":"x","hops":[1,3],"direction":"both"},{"type":"*","from":"x","to":"y","hops":[1,3],"direction":"both"}],"limit":1000}`
	floodCtx, abandon := context.WithCancel(as(t, auth.Claims{UserID: 66, Admin: true}))
	defer abandon()
	results := make(chan error, floods)
	for range floods {
		go func() {
			_, err := c.ExecuteQuery(floodCtx, &pb.ExecuteQueryRequest{Query: heavy})
			results <- err
		}()
	}

	// The flood at its limit: one statement on the engine under the
	// flooder's one slot, the other calls refused (one at once, one after
	// waiting, since the caller may have one waiting).
	refused := 0
	waitFor(t, time.Minute, "the flood at its limit", func() (bool, string) {
		for drained := false; !drained; {
			select {
			case err := <-results:
				if status.Code(err) != codes.ResourceExhausted {
					t.Fatalf("a flood call ended before it was abandoned: %v", err)
				}
				refused++
			default:
				drained = true
			}
		}
		st, n := adm.Stats(), engineStatements(t)
		return refused == floods-1 && st == (admission.Stats{Running: 1, Callers: 1}) && n == 1,
			fmt.Sprintf("%d refused, admission %+v, %d engine statements", refused, st, n)
	})

	// The other caller is served beside it, and the flooder never gets
	// more than its share.
	searchCtx := as(t, admin)
	for i := range searches {
		resp, err := c.ExecuteQuery(searchCtx, &pb.ExecuteQueryRequest{Query: queries["search"]})
		if err != nil {
			t.Fatalf("search %d during the flood: %v", i, err)
		}
		if resp.GetMetadata().GetRowCount() == 0 {
			t.Fatalf("search %d during the flood found nothing", i)
		}
		if st := adm.Stats(); st != (admission.Stats{Running: 1, Callers: 1}) {
			t.Fatalf("after search %d, admission %+v; want the flooder's one slot only", i, st)
		}
	}

	// Abandon the flood: its call returns at once on the client, and the
	// engine and admission must be idle soon after.
	abandon()
	if err := <-results; status.Code(err) != codes.Canceled {
		t.Fatalf("abandoned flood call: %v, want Canceled", err)
	}
	waitFor(t, 25*time.Second, "engine and admission idle after the flood was abandoned", func() (bool, string) {
		st, n := adm.Stats(), engineStatements(t)
		return st == (admission.Stats{}) && n == 0, fmt.Sprintf("admission %+v, %d engine statements still running", st, n)
	})
	if _, err := c.ExecuteQuery(searchCtx, &pb.ExecuteQueryRequest{Query: queries["search"]}); err != nil {
		t.Fatalf("search after the flood: %v", err)
	}
}
