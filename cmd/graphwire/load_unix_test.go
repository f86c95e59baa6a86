//go:build unix

package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// loadChild starts the test binary as graphwire with args; stdout and stderr are collected.
func loadChild(t *testing.T, args ...string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"=run")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out
}

// waitExit waits up to bound for cmd to exit and returns its exit code; -1 when it did not
// exit in time (it is then killed).
func waitExit(cmd *exec.Cmd, bound time.Duration) int {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return cmd.ProcessState.ExitCode()
	case <-time.After(bound):
		cmd.Process.Kill()
		<-done
		return -1
	}
}

// TestLoadFIFO loads a named pipe that has no writer: it is refused from its stat, before
// anything opens it. It hung for ever, deaf to SIGINT and SIGTERM.
func TestLoadFIFO(t *testing.T) {
	requireCHDB(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "Milestone.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd, out := loadChild(t, "load", "--embedded", filepath.Join(dir, "data"), fifo)
	code := waitExit(cmd, 2*time.Minute)
	if code == -1 {
		t.Fatalf("load of a FIFO still ran after two minutes (killed)\n%s", out)
	}
	want := "graphwire load: load: " + fifo + " is a named pipe (FIFO): not a regular file (load reads files; copy the data to one first)\n"
	if code != exitFailure || out.String() != want {
		t.Errorf("exit %d, output:\n%s\nwant exit %d and:\n%s", code, out, exitFailure, want)
	}
}

// TestLoadSignal sends SIGINT and SIGTERM to a load blocked on an engine that never answers
// (a ClickHouse server on loopback that accepts and stays silent): it exits with 130.
func TestLoadSignal(t *testing.T) {
	file := filepath.Join(t.TempDir(), "Milestone.jsonl")
	if err := os.WriteFile(file, []byte(`{"id": 1, "traversal_path": "1/", "state": "active"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			lis, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer lis.Close()
			accepted := make(chan net.Conn, 1)
			go func() {
				c, err := lis.Accept()
				if err == nil {
					accepted <- c
				}
				close(accepted)
			}()
			cmd, out := loadChild(t, "load", "--clickhouse", "clickhouse://"+lis.Addr().String()+"/graph?dial_timeout=10m&read_timeout=10m", file)
			select {
			case c, ok := <-accepted:
				if ok {
					defer c.Close()
				}
			case <-time.After(2 * time.Minute):
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("the load never connected\n%s", out)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if code := waitExit(cmd, 2*time.Minute); code != exitInterrupted {
				t.Errorf("exit %d after %v, want %d (-1: still running after two minutes)\n%s", code, sig, exitInterrupted, out)
			}
		})
	}
}
