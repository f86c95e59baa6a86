package cluster_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/graphwire/graphwire/cluster"
	"github.com/graphwire/graphwire/compiler"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/executor/clickhouse"
	"github.com/graphwire/graphwire/loadstate"
	"github.com/graphwire/graphwire/ontology"
	"github.com/graphwire/graphwire/seed"
)

var env struct {
	root string // the repository
	bin  string // graphwire, built once
	ont  *ontology.Ontology
	err  error
}

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	root, err := filepath.Abs("../..")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	env.root = root
	if env.ont, err = ontology.Load(ontologyfiles.Files()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if stop, ok := os.LookupEnv(loadChildEnv); ok {
		if err := killChild(os.Getenv("GW_CLUSTER_LOAD_DSN"), os.Getenv("GW_CLUSTER_LOAD_DB"), stop); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	dir, err := os.MkdirTemp("", "graphwire-clustertest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if _, err := os.Stat(chdb.DefaultLibrary()); err != nil {
		env.err = fmt.Errorf("libchdb.so, from which the test servers are made, is missing (bash scripts/install-chdb.sh): %w", err)
		return m.Run()
	}
	env.bin = filepath.Join(dir, "graphwire")
	if out, err := exec.Command("go", "build", "-o", env.bin, "github.com/graphwire/graphwire/cmd/graphwire").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build graphwire: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// testCluster is a private loopback cluster "gw" of two servers.
type testCluster struct {
	dir  string
	dsns []string // native, one per shard
	addr []string // host:port, one per shard
}

// startCluster starts (or, again, restarts what is missing of) the cluster in dir.
func startCluster(t *testing.T, dir string) *testCluster {
	t.Helper()
	return startServers(t, dir, 2, "gw", "")
}

// startServers starts n servers in dir from port base (default $GRAPHWIRE_CLUSTER_TEST_PORT,
// else 29500), with cluster "" a single server each.
func startServers(t *testing.T, dir string, n int, name, port string) *testCluster {
	t.Helper()
	if env.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true: %v", env.err)
		}
		t.Skip(env.err)
	}
	if port == "" {
		port = os.Getenv("GRAPHWIRE_CLUSTER_TEST_PORT")
	}
	if port == "" {
		port = "29500"
	}
	args := []string{filepath.Join(env.root, "scripts/clickhouse-server.sh"), "--servers", strconv.Itoa(n)}
	if name != "" {
		args = append(args, "--cluster", name)
	}
	cmd := exec.Command("bash", args...)
	cmd.Env = append(os.Environ(), "GRAPHWIRE_CLICKHOUSE_DIR="+dir, "GRAPHWIRE_CLICKHOUSE_PORT="+port)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("start the cluster: %v\n%s", err, stderr.Bytes())
	}
	c := &testCluster{dir: dir}
	for _, l := range strings.Fields(string(out)) {
		c.dsns = append(c.dsns, l)
		c.addr = append(c.addr, strings.TrimSuffix(strings.TrimPrefix(l, "clickhouse://"), "/default"))
	}
	if len(c.dsns) != n {
		t.Fatalf("the script printed %q, want %d DSNs", out, n)
	}
	return c
}

func newCluster(t *testing.T) *testCluster {
	t.Helper()
	dir := t.TempDir()
	c := startCluster(t, dir)
	t.Cleanup(func() {
		cmd := exec.Command("bash", filepath.Join(env.root, "scripts/clickhouse-server.sh"), "--stop")
		cmd.Env = append(os.Environ(), "GRAPHWIRE_CLICKHOUSE_DIR="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("stop the cluster: %v\n%s", err, out)
		}
	})
	return c
}

// stop kills server i (0-based) of the cluster.
func (c *testCluster) stop(t *testing.T, i int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.dir, fmt.Sprintf("s%d", i+1), "pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.Wait() //nolint:errcheck // not our child: Wait fails, the kill is what counts
}

// open opens the graph database db on the cluster through shard 1 and lays it out.
func (c *testCluster) open(t *testing.T, db string, create bool) *clickhouse.Executor {
	t.Helper()
	e, err := clickhouse.Open(clickhouse.Options{DSN: c.dsns[0], Database: db, CreateDatabase: create, Cluster: "gw", DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if create {
		if err := cluster.Init(t.Context(), e, env.ont); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// seeded opens db, lays it out and seeds a small graph into it.
func (c *testCluster) seeded(t *testing.T, db string) *clickhouse.Executor {
	t.Helper()
	e := c.open(t, db, true)
	opts := seed.Options{Scale: 0.05, Seed: 42}
	opts.Merge = func(ctx context.Context, table string) error { return cluster.Merge(ctx, e, table) }
	g, err := seed.Generate(env.ont, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := seed.Load(t.Context(), e, env.ont, g, opts); err != nil {
		t.Fatal(err)
	}
	return e
}

// graphwire runs the CLI and returns its exit code and stderr.
func graphwire(t *testing.T, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(env.bin, args...)
	cmd.Env = append(os.Environ(), "GRAPHWIRE_CLUSTER=", "HOME="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, stderr.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), stderr.String()
	}
	t.Fatalf("graphwire %v: %v", args, err)
	return 0, ""
}

// usersQuery lists every user, for the administrator: rows from both shards.
func usersQuery(t *testing.T) *compiler.Query {
	t.Helper()
	c, err := compiler.New(env.ont, compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	q, err := c.Compile([]byte(`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","id_range":{"start":1,"end":100000}}],"limit":1000}`),
		&compiler.Caller{Subject: "1", Admin: true})
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestUnknownCluster: a cluster name the server does not know is ErrUnknownCluster naming the
// clusters it does know, and exit 6 from the CLI; --cluster without --clickhouse is a usage
// error (exit 2).
func TestUnknownCluster(t *testing.T) {
	c := newCluster(t)
	e, err := clickhouse.Open(clickhouse.Options{DSN: c.dsns[0], Cluster: "nope"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	_, err = e.Shards(t.Context())
	if !errors.Is(err, clickhouse.ErrUnknownCluster) || !strings.Contains(err.Error(), "(it defines: gw)") {
		t.Errorf("Shards of cluster nope: %v, want ErrUnknownCluster naming gw", err)
	}
	code, stderr := graphwire(t, "sql", "--clickhouse", c.dsns[0], "--cluster", "nope", "SELECT 1")
	if code != 6 || !strings.Contains(stderr, `unknown cluster "nope"`) {
		t.Errorf("graphwire sql --cluster nope: exit %d, %s; want 6 and the name", code, stderr)
	}
	if code, stderr := graphwire(t, "sql", "--cluster", "gw", "SELECT 1"); code != 2 || !strings.Contains(stderr, "--cluster needs --clickhouse") {
		t.Errorf("graphwire sql --cluster without --clickhouse: exit %d, %s; want 2", code, stderr)
	}
}

// TestShardSchemaDiffers: a shard whose local table has another column is refused by Check
// and by every command (exit 7), naming the shard, the table and the column.
func TestShardSchemaDiffers(t *testing.T) {
	c := newCluster(t)
	c.open(t, "gw_schema", true)
	s2, err := clickhouse.Open(clickhouse.Options{DSN: c.dsns[1], Database: "gw_schema"})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if err := s2.Exec(t.Context(), "ALTER TABLE gl_user_local ADD COLUMN extra String"); err != nil {
		t.Fatal(err)
	}
	e := c.open(t, "gw_schema", false)
	err = cluster.Check(t.Context(), e, env.ont)
	var se *cluster.SchemaError
	if !errors.As(err, &se) || se.Shard.Num != 2 || se.Table != "gl_user_local" || !strings.Contains(se.Detail, "extra String") {
		t.Fatalf("Check: %v, want a SchemaError of shard 2, gl_user_local, column extra", err)
	}
	dsn := strings.TrimSuffix(c.dsns[0], "default") + "gw_schema"
	for _, args := range [][]string{
		{"cluster", "check", "--clickhouse", dsn, "--cluster", "gw"},
		{"sql", "--clickhouse", dsn, "--cluster", "gw", "SELECT 1"},
		{"seed", "--clickhouse", dsn, "--cluster", "gw", "--scale", "0.01"},
	} {
		code, stderr := graphwire(t, args...)
		if code != 7 || !strings.Contains(stderr, "shard 2 ("+c.addr[1]+"): table gl_user_local") {
			t.Errorf("graphwire %s: exit %d, %s; want 7 naming shard 2 and the table", strings.Join(args[:2], " "), code, stderr)
		}
	}
}

// TestShardDown: with a shard stopped, a query fails as unavailable naming that shard (no
// partial answer: skip_unavailable_shards is off), Ping fails naming it, and the readiness
// check of serve's health (loadstate.Check) fails; once the shard is back on its data, both
// succeed and the answer is the one from before.
func TestShardDown(t *testing.T) {
	c := newCluster(t)
	e := c.seeded(t, "gw_down")
	q := usersQuery(t)
	rows, err := executor.CollectRows(t.Context(), e, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows.Values) == 0 {
		t.Fatal("no users on the healthy cluster")
	}
	// Table sizes are read over every shard, under the Distributed tables' names.
	sizes := executor.NewTableSizes(e, time.Hour)
	sizes.Cluster = "gw"
	if err := sizes.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	users, err := executor.CollectRows(t.Context(), e, &compiler.Query{SQL: "SELECT count() FROM gl_user"})
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := sizes.Rows("gl_user"); !ok || n != users.Values[0][0].(int64) {
		t.Errorf("TableSizes.Rows(gl_user) = %d, %v; the cluster holds %v rows", n, ok, users.Values[0][0])
	}
	c.stop(t, 1)
	got, err := executor.CollectRows(t.Context(), e, q)
	if !errors.Is(err, executor.ErrUnavailable) || !strings.Contains(err.Error(), c.addr[1]) {
		t.Errorf("query with shard 2 down: %v, want unavailable naming %s", err, c.addr[1])
	}
	if err == nil {
		t.Errorf("query with shard 2 down answered %d of %d rows", len(got.Values), len(rows.Values))
	}
	if err := e.Ping(t.Context()); !errors.Is(err, executor.ErrUnavailable) || !strings.Contains(err.Error(), c.addr[1]) {
		t.Errorf("Ping with shard 2 down: %v, want unavailable naming %s", err, c.addr[1])
	}
	// What serve's health checks (pipeline.Ready): NOT_SERVING while the shard is down.
	if _, err := loadstate.Check(t.Context(), e, env.ont); !errors.Is(err, executor.ErrUnavailable) {
		t.Errorf("loadstate.Check with shard 2 down: %v, want unavailable", err)
	}
	startCluster(t, c.dir)
	if err := e.Ping(t.Context()); err != nil {
		t.Errorf("Ping with shard 2 back: %v", err)
	}
	if _, err := loadstate.Check(t.Context(), e, env.ont); err != nil {
		t.Errorf("loadstate.Check with shard 2 back: %v", err)
	}
	// Nothing was lost: the same answer as before.
	again, err := executor.CollectRows(t.Context(), e, q)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.Values, rows.Values) {
		t.Errorf("with shard 2 back: %d rows, before: %d", len(again.Values), len(rows.Values))
	}
}

// TestShardDiesDuringQuery: a shard killed while it runs its part of a query fails the query
// as unavailable; no rows are presented as the whole answer.
func TestShardDiesDuringQuery(t *testing.T) {
	c := newCluster(t)
	e := c.seeded(t, "gw_during")
	s2, err := clickhouse.Open(clickhouse.Options{DSN: c.dsns[1]})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	done := make(chan error, 1)
	go func() {
		// Each shard sleeps 0.1 s per row of its users: long enough to be killed in.
		_, err := executor.CollectRows(context.Background(), e, &compiler.Query{SQL: "SELECT count() FROM gl_user WHERE sleepEachRow(0.1) = 0 SETTINGS max_block_size = 1"})
		done <- err
	}()
	// Wait, boundedly, until shard 2 runs its part.
	running := false
	for range 600 {
		rows, err := executor.CollectRows(t.Context(), s2, &compiler.Query{SQL: "SELECT count() FROM system.processes WHERE query LIKE '%sleepEachRow(0.1)%' AND is_initial_query = 0"})
		if err == nil && len(rows.Values) == 1 && rows.Values[0][0] != int64(0) {
			running = true
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the query ended before shard 2 ran it: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
	if !running {
		t.Fatal("shard 2 never ran its part of the query")
	}
	c.stop(t, 1)
	err = <-done
	if !errors.Is(err, executor.ErrUnavailable) || !strings.Contains(err.Error(), c.addr[1]) {
		t.Errorf("query whose shard died: %v, want unavailable naming %s", err, c.addr[1])
	}
}

// TestNotClickHouse: a DSN that names an HTTP server that is not ClickHouse, over either
// protocol, and DSNs with typos are clear errors, never a panic or an answer.
func TestNotClickHouse(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// What a web server on the DSN's port answers: an error page of several lines.
		w.WriteHeader(http.StatusNotImplemented)
		w.Write([]byte("<!DOCTYPE HTML>\n<html>\n  <body>\n    <h1>Error response</h1>\n    <p>Unsupported method</p>\n  </body>\n</html>\n")) //nolint:errcheck
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, dsn := range []string{"http://" + host + "/default", "clickhouse://" + host + "/default"} {
		e, err := clickhouse.Open(clickhouse.Options{DSN: dsn, Cluster: "gw", DialTimeout: 5 * time.Second})
		if err != nil {
			t.Fatalf("Open %s: %v", dsn, err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		_, err = e.Shards(ctx)
		cancel()
		e.Close()
		if err == nil || errors.Is(err, clickhouse.ErrUnknownCluster) {
			t.Errorf("Shards on %s: %v, want an error of the server", dsn, err)
		}
		code, stderr := graphwire(t, "sql", "--clickhouse", dsn, "--cluster", "gw", "SELECT 1")
		var errLines []string
		for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
			if !strings.Contains(l, "level=WARN") {
				errLines = append(errLines, l)
			}
		}
		if code == 0 || strings.Contains(stderr, "panic") || len(errLines) != 1 {
			t.Errorf("graphwire sql on %s: exit %d, %s; want one line of error", dsn, code, stderr)
		}
		// Over HTTP the web server answers at once: unavailable (exit 7), saying what it is
		// not, without its page. Over the native protocol it never answers the handshake: a
		// timeout (exit 8).
		if strings.HasPrefix(dsn, "http://") && (code != 7 || !strings.Contains(stderr, "does not answer as ClickHouse") || strings.Contains(stderr, "<html>")) {
			t.Errorf("graphwire sql on %s: exit %d, %s; want 7, saying it is not ClickHouse", dsn, code, stderr)
		}
	}
	for _, dsn := range []string{"clickhouse//127.0.0.1:9000/default", "clickhouse://127.0.0.1:notaport/default", "clickhouse://127.0.0.1:1/default"} {
		code, stderr := graphwire(t, "sql", "--clickhouse", dsn, "--cluster", "gw", "SELECT 1")
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code == 0 || strings.Contains(stderr, "panic") || !strings.HasPrefix(lines[len(lines)-1], "graphwire sql: ") {
			t.Errorf("graphwire sql --clickhouse %s: exit %d, %s; want a one-line error", dsn, code, stderr)
		}
	}
}
