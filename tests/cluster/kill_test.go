package cluster_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graphwire/graphwire/cluster"
	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/clickhouse"
	"github.com/graphwire/graphwire/load"
	"github.com/graphwire/graphwire/loadstate"
)

// loadChildEnv makes the test binary run a load on a cluster instead of tests (killChild).
const loadChildEnv = "GW_CLUSTER_LOAD_CHILD"

// killChild loads the files of load/testdata/graph into database db on the cluster of the
// server at dsn and, on reaching the step stop, says so on stdout and blocks until killed.
func killChild(dsn, db, stop string) error {
	e, err := clickhouse.Open(clickhouse.Options{DSN: dsn, Database: db, Cluster: "gw"})
	if err != nil {
		return err
	}
	defer e.Close()
	files, err := filepath.Glob(filepath.Join(env.root, "load/testdata/graph/*"))
	if err != nil {
		return err
	}
	var srcs []load.Source
	for _, f := range files {
		srcs = append(srcs, load.Source{Path: f})
	}
	opts := load.Options{Shards: cluster.NewWriter(e, env.ont), Checkpoint: func(s string) {
		if stop != "" && s == stop {
			fmt.Println("stopped at " + s)
			var b [1]byte
			os.Stdin.Read(b[:]) // the parent never writes: blocks until killed
		}
	}}
	_, err = load.Load(context.Background(), e, env.ont, srcs, opts)
	return err
}

// TestKilledLoadRecovers: a load killed in its commit, after the edges were attached on the
// shards and before their by-target copies were, leaves the graph incomplete (what query
// and serve refuse); the next load's recovery finishes it from its manifest, and the graph
// then holds what a load that was never killed gives, table by table, on every shard; no
// staging table is left on any shard.
func TestKilledLoadRecovers(t *testing.T) {
	c := newCluster(t)
	for _, db := range []string{"gw_killed", "gw_whole"} {
		c.open(t, db, true)
	}
	run := func(db, stop string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), loadChildEnv+"="+stop, "GW_CLUSTER_LOAD_DSN="+c.dsns[0], "GW_CLUSTER_LOAD_DB="+db)
		return cmd
	}
	if out, err := run("gw_whole", "").CombinedOutput(); err != nil {
		t.Fatalf("the whole load: %v\n%s", err, out)
	}
	child := run("gw_killed", "attach gl_edge_by_target")
	stdout, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	pr, pw, err := os.Pipe() // stdin that never sends: the child blocks at its step
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	child.Stdin = pr
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "stopped at attach gl_edge_by_target") {
		child.Process.Kill()
		child.Wait()
		t.Fatalf("the child said %q, %v", line, err)
	}
	child.Process.Kill()
	child.Wait() //nolint:errcheck // killed

	e := c.open(t, "gw_killed", false)
	if _, err := loadstate.Check(t.Context(), e, env.ont); !errors.Is(err, loadstate.ErrIncomplete) {
		t.Errorf("after the kill: %v, want the graph incomplete", err)
	}
	if err := load.Recover(t.Context(), e, env.ont, load.Options{Shards: cluster.NewWriter(e, env.ont)}); err != nil {
		t.Fatal(err)
	}
	if _, err := loadstate.Check(t.Context(), e, env.ont); err != nil {
		t.Errorf("after recovery: %v", err)
	}
	whole := c.open(t, "gw_whole", false)
	for _, tb := range cluster.Tables(env.ont) {
		if tb.Name == "gw_load_state" {
			continue
		}
		sql := "SELECT count(), sum(cityHash64(*)) FROM (SELECT * EXCEPT _version FROM " + tb.Name + " FINAL WHERE _deleted = false)"
		got, err := executor.CollectRows(t.Context(), e, &compiler.Query{SQL: sql})
		if err != nil {
			t.Fatal(err)
		}
		want, err := executor.CollectRows(t.Context(), whole, &compiler.Query{SQL: sql})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got.Values) != fmt.Sprint(want.Values) {
			t.Errorf("%s after recovery: %v, a load never killed: %v", tb.Name, got.Values, want.Values)
		}
	}
	for i, dsn := range c.dsns {
		s, err := clickhouse.Open(clickhouse.Options{DSN: dsn, DialTimeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		rows, err := executor.CollectRows(t.Context(), s, &compiler.Query{SQL: "SELECT name FROM system.tables WHERE database = 'gw_killed' AND startsWith(name, 'gw_stage_')"})
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(rows.Values) > 0 {
			t.Errorf("shard %d keeps staging tables %v", i+1, rows.Values)
		}
	}
}
