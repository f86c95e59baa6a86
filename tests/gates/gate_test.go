// Package gates tests the path-based format-version gate,
// scripts/check-format-version.sh, in throwaway git repositories.
package gates

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/graphwire/graphwire/internal/conformance"
)

type repo struct {
	t      *testing.T
	dir    string
	script string
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required for the format-version gate tests")
	}
	root, err := conformance.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	r := &repo{t: t, dir: t.TempDir(), script: filepath.Join(root, "scripts", "check-format-version.sh")}
	r.git("init", "-q", "-b", "main")
	r.write("goon/encode.go", "package goon\n")
	r.write("goon/encode_test.go", "package goon\n")
	r.write("graphresponse/model.go", "package graphresponse\n")
	r.write("gcx/encode.go", "package gcx\n")
	r.write("README.md", "hello\n")
	for _, f := range []string{"GOON", "RAW", "GCF", "GCX", "TOON"} {
		v := "1.0.0"
		if f == "GOON" {
			v = "4.0.1"
		}
		r.write("config/"+f+"_OUTPUT_FORMAT_VERSION", v+"\n")
	}
	r.commit("base")
	r.git("tag", "base")
	return r
}

func (r *repo) write(path, content string) {
	r.t.Helper()
	p := filepath.Join(r.dir, path)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *repo) git(args ...string) {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+r.dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func (r *repo) commit(msg string) {
	r.t.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "--no-verify", "-m", msg)
}

// check runs the gate against base and returns its exit code and output.
func (r *repo) check(env ...string) (int, string) {
	r.t.Helper()
	cmd := exec.Command("bash", r.script, "base")
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String()
	}
	r.t.Fatal(err)
	return -1, ""
}

func TestCheckFormatVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(r *repo)
		env    []string
		want   int
	}{
		{"watched change without bump", func(r *repo) { r.write("goon/encode.go", "package goon // changed\n") }, nil, 1},
		{"model change without bump", func(r *repo) { r.write("graphresponse/model.go", "package graphresponse // x\n") }, nil, 1},
		{"watched change with bump", func(r *repo) {
			r.write("goon/encode.go", "package goon // changed\n")
			r.write("config/GOON_OUTPUT_FORMAT_VERSION", "4.0.2\n")
		}, nil, 0},
		{"lower version", func(r *repo) {
			r.write("goon/encode.go", "package goon // changed\n")
			r.write("config/GOON_OUTPUT_FORMAT_VERSION", "4.0.0\n")
		}, nil, 1},
		{"prerelease is lower", func(r *repo) {
			r.write("goon/encode.go", "package goon // changed\n")
			r.write("config/GOON_OUTPUT_FORMAT_VERSION", "4.0.1-rc.1\n")
		}, nil, 1},
		{"invalid version", func(r *repo) {
			r.write("goon/encode.go", "package goon // changed\n")
			r.write("config/GOON_OUTPUT_FORMAT_VERSION", "4.1\n")
		}, nil, 1},
		{"test-only change", func(r *repo) { r.write("goon/encode_test.go", "package goon // more tests\n") }, nil, 0},
		{"unwatched change", func(r *repo) { r.write("README.md", "bye\n") }, nil, 0},
		{"other format needs its own bump", func(r *repo) { r.write("gcx/encode.go", "package gcx // x\n") }, nil, 1},
		{"skip variable", func(r *repo) { r.write("goon/encode.go", "package goon // changed\n") }, []string{"SKIP_FORMAT_VERSION_CHECK=1"}, 0},
		{"per-format skip variable", func(r *repo) { r.write("goon/encode.go", "package goon // changed\n") }, []string{"SKIP_GOON_FORMAT_VERSION_CHECK=1"}, 0},
		{"per-format skip of another format", func(r *repo) { r.write("goon/encode.go", "package goon // changed\n") }, []string{"SKIP_GCX_FORMAT_VERSION_CHECK=1"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t)
			tt.change(r)
			r.commit("change")
			if got, out := r.check(tt.env...); got != tt.want {
				t.Errorf("exit %d, want %d; output:\n%s", got, tt.want, out)
			}
		})
	}
	t.Run("skip tag in a commit message", func(t *testing.T) {
		t.Parallel()
		r := newRepo(t)
		r.write("goon/encode.go", "package goon // refactor\n")
		r.commit("refactor the encoder [skip format-version-check]")
		r.write("README.md", "later\n")
		r.commit("docs")
		if got, out := r.check(); got != 0 {
			t.Errorf("exit %d, want 0:\n%s", got, out)
		}
	})
	t.Run("unresolvable base", func(t *testing.T) {
		t.Parallel()
		r := newRepo(t)
		cmd := exec.Command("bash", r.script, "no-such-ref")
		cmd.Dir = r.dir
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("err = %v, want exit 2", err)
		}
	})
}
