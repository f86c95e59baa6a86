package load_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/load"
	"github.com/graphwire/graphwire/loadstate"
)

// childEnv makes the test binary load files instead of running tests: its value is the step
// at which to stop (empty: run to the end), GW_LOAD_TEST_DIR the data directory and the
// arguments the files.
const childEnv = "GW_LOAD_TEST_CHILD"

func TestMain(m *testing.M) {
	step, ok := os.LookupEnv(childEnv)
	if !ok {
		os.Exit(m.Run())
	}
	if err := loadChild(step, os.Getenv("GW_LOAD_TEST_DIR"), os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

func loadChild(step, dir string, files []string) error {
	e, err := chdb.Open(chdb.Options{Library: os.Getenv("GW_LOAD_TEST_LIB"), Path: dir})
	if err != nil {
		return err
	}
	defer e.Close()
	var srcs []load.Source
	for _, f := range files {
		srcs = append(srcs, load.Source{Path: f})
	}
	stop := func(s string) {
		if step != "" && strings.HasPrefix(s, step) {
			fmt.Println("stopped at " + s)
			var b [1]byte
			os.Stdin.Read(b[:]) // the parent never writes: blocks until killed
		}
	}
	o, err := ontLoad()
	if err != nil {
		return err
	}
	_, err = load.Load(context.Background(), e, o, srcs, load.Options{Checkpoint: stop})
	return err
}

// runChild runs a load in a child process on dir; with a step it waits until the child
// stops there and kills it with SIGKILL.
func runChild(t *testing.T, lib, dir, step string, files []string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], files...)
	cmd.Env = append(os.Environ(), childEnv+"="+step, "GW_LOAD_TEST_DIR="+dir, "GW_LOAD_TEST_LIB="+lib)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if step == "" {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("load: %v\n%s", err, stderr.String())
		}
		return
	}
	said := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Scan()
		said <- sc.Text()
	}()
	select {
	case line := <-said:
		if !strings.HasPrefix(line, "stopped at "+step) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("child said %q, want it stopped at %q; stderr:\n%s", line, step, stderr.String())
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("load did not reach %q within two minutes; stderr:\n%s", step, stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child exit = %v, want killed by SIGKILL", err)
	}
}

// secondLoad writes the files of a load that changes the fixture graph: an update, a
// delete, a new node and a new edge.
func secondLoad(t *testing.T) []string {
	dir := t.TempDir()
	return []string{
		write(t, dir, "Milestone.jsonl", `{"id": 1, "traversal_path": "1/10/", "iid": 1, "title": "renamed", "state": "closed"}`+"\n"+
			`{"id": 2, "traversal_path": "1/10/", "_deleted": true}`+"\n"),
		write(t, dir, "Definition.jsonl", `{"id": 302, "traversal_path": "1/10/", "name": "C", "fqn": "pkg.C", "definition_type": "Function", "file_path": "pkg/b.go", "project_id": 10}`+"\n"),
		write(t, dir, "CALLS.jsonl", `{"traversal_path": "1/10/", "source_kind": "Definition", "source_id": 301, "target_kind": "Definition", "target_id": 302}`+"\n"),
	}
}

// TestKill kills a load with SIGKILL at each of its steps. Until the deltas are complete the
// graph stays exactly the previous one and queryable; once the manifest exists the next load
// (here Recover) finishes the interrupted one, and the graph is exactly the new one. Nothing
// is left half-applied and no staging table is left behind.
func TestKill(t *testing.T) {
	lib := library(t)
	o := ont(t)
	var fixtureFiles []string
	for _, s := range fixture(t) {
		fixtureFiles = append(fixtureFiles, s.Path)
	}
	second := secondLoad(t)
	var before, after [][]any
	t.Run("reference", func(t *testing.T) {
		e := openAt(t, t.TempDir(), "")
		if _, err := load.Load(t.Context(), e, o, fixture(t), load.Options{}); err != nil {
			t.Fatal(err)
		}
		before = graphDump(t, e)
		var srcs []load.Source
		for _, f := range second {
			srcs = append(srcs, load.Source{Path: f})
		}
		if _, err := load.Load(t.Context(), e, o, srcs, load.Options{}); err != nil {
			t.Fatal(err)
		}
		after = graphDump(t, e)
	})
	if cmp.Equal(before, after) {
		t.Fatal("the second load changes nothing; the test would prove nothing")
	}
	tests := []struct {
		step       string
		queryable  bool // whether the graph passes loadstate.Check right after the kill
		killedSees [][]any
		recovered  [][]any
	}{
		{step: "staged " + filepath.Dir(second[0]), queryable: true, killedSees: before, recovered: before},
		{step: "validated", queryable: true, killedSees: before, recovered: before},
		{step: "manifest", queryable: true, killedSees: before, recovered: after},
		{step: "attach gl_milestone", queryable: false, recovered: after},
		{step: "attached", queryable: false, recovered: after},
		{step: "complete", queryable: true, killedSees: after, recovered: after},
	}
	for _, tt := range tests {
		t.Run(strings.Fields(tt.step)[0]+"_"+filepath.Base(strings.TrimPrefix(tt.step, strings.Fields(tt.step)[0])), func(t *testing.T) {
			dir := t.TempDir()
			runChild(t, lib, dir, "", fixtureFiles)
			runChild(t, lib, dir, tt.step, second)
			e := openAt(t, dir, "")
			_, err := loadstate.Check(t.Context(), e, o)
			if tt.queryable != (err == nil) {
				t.Fatalf("after the kill, Check = %v; want queryable %v", err, tt.queryable)
			}
			if tt.queryable {
				if diff := cmp.Diff(tt.killedSees, graphDump(t, e)); diff != "" {
					t.Errorf("graph after the kill (-want +got):\n%s", diff)
				}
			} else if !errors.Is(err, loadstate.ErrIncomplete) {
				t.Errorf("Check = %v, want ErrIncomplete", err)
			}
			if err := load.Recover(t.Context(), e, o, load.Options{}); err != nil {
				t.Fatal(err)
			}
			if _, err := loadstate.Check(t.Context(), e, o); err != nil {
				t.Errorf("after recovery: %v", err)
			}
			if diff := cmp.Diff(tt.recovered, graphDump(t, e)); diff != "" {
				t.Errorf("graph after recovery (-want +got):\n%s", diff)
			}
			if n := query(t, e, "SELECT count() FROM system.tables WHERE database = currentDatabase() AND startsWith(name, 'gw_stage_')"); n[0][0] != int64(0) {
				t.Errorf("%v staging tables left", n[0][0])
			}
		})
	}
}
