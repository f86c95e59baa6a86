package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/config"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/loadstate"
)

// TestHelpOnStdout: every command's help, asked for as CMD --help, CMD -h or help CMD, goes to
// stdout with exit 0 and nothing on stderr.
func TestHelpOnStdout(t *testing.T) {
	root := newRootCmd(streams{})
	var names []string
	for _, c := range root.Commands() {
		names = append(names, c.Name())
	}
	if len(names) < 13 {
		t.Fatalf("only %d commands: %v", len(names), names)
	}
	names = append(names, "completion") // cobra adds it when the program runs
	for _, name := range names {
		for _, args := range [][]string{{name, "--help"}, {name, "-h"}, {"help", name}} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				r := runCLI(args...)
				if r.code != exitOK || r.stderr != "" {
					t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
				}
				if !strings.Contains(r.stdout, "Usage:\n  graphwire "+name) {
					t.Errorf("stdout is not %s's help:\n%s", name, r.stdout)
				}
			})
		}
	}
	r := runCLI("--help")
	if r.code != exitOK || !strings.Contains(r.stdout, "Exit codes:") || r.stderr != "" {
		t.Errorf("graphwire --help: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestUsageErrors: a wrong command line exits with exitUsage, says what is wrong and where to
// look on stderr, and writes nothing on stdout.
func TestUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "graphwire: no command given; the commands are listed by 'graphwire help'\nRun 'graphwire --help' for usage.\n"},
		{"unknown command", []string{"frobnicate"}, "graphwire: unknown command \"frobnicate\" for \"graphwire\"\nRun 'graphwire --help' for usage.\n"},
		{"unknown flag", []string{"query", "--frob", "{}"}, "graphwire query: unknown flag: --frob\nRun 'graphwire query --help' for usage.\n"},
		{"mistyped flag", []string{"query", "--fromat", "json", "{}"}, "graphwire query: unknown flag: --fromat (did you mean --format?)\nRun 'graphwire query --help' for usage.\n"},
		{"mistyped flag with a value", []string{"load", "--tpye=Project", "x.csv"}, "graphwire load: unknown flag: --tpye (did you mean --type?)\nRun 'graphwire load --help' for usage.\n"},
		{"mistyped flag of another command", []string{"export", "--embeded", "d", "out"}, "graphwire export: unknown flag: --embeded (did you mean --embedded?)\nRun 'graphwire export --help' for usage.\n"},
		{"mistyped root flag", []string{"--versoin"}, "graphwire: unknown flag: --versoin (did you mean --version?)\nRun 'graphwire --help' for usage.\n"},
		{"single-dash long flag", []string{"query", "-admin", "{}"}, "graphwire query: unknown shorthand flag: 'a' in -admin\nRun 'graphwire query --help' for usage.\nLong flags take two dashes: --admin.\n"},
		{"too many arguments", []string{"export", "a", "b"}, "graphwire export: accepts 1 arg(s), received 2\nRun 'graphwire export --help' for usage.\n"},
		{"missing argument", []string{"load"}, "graphwire load: requires at least 1 arg(s), only received 0\nRun 'graphwire load --help' for usage.\n"},
		{"bad flag value", []string{"seed", "--scale", "x"}, "graphwire seed: invalid argument \"x\" for \"--scale\" flag: strconv.ParseFloat: parsing \"x\": invalid syntax\nRun 'graphwire seed --help' for usage.\n"},
		{"bad --format", []string{"query", "--format", "yaml", "{}"}, "graphwire query: unknown --format \"yaml\" (want gcb1, gcf, gcf-graph, gcx, goon, json, markdown, toon, xml, auto, dot, mermaid)\nRun 'graphwire query --help' for usage.\n"},
		{"token without secret", []string{"token", "--sub", "1"}, "graphwire token: --jwt-secret-file or --jwt-private-key is required\nRun 'graphwire token --help' for usage.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runCLI(tt.args...)
			if diff := cmp.Diff(result{exitUsage, "", tt.want}, got, cmp.AllowUnexported(result{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestVersion: --version prints the build on stdout; describeBuild shows what the toolchain
// stamped.
func TestVersion(t *testing.T) {
	r := runCLI("--version")
	if r.code != exitOK || r.stderr != "" || !regexp.MustCompile(`(?m)^graphwire \S+\n(?s:.*)^go:\s+go1\.\S+ \S+/\S+\n(?s:.*)^formats: .*goon \d+\.\d+\.\d+`).MatchString(r.stdout) {
		t.Fatalf("graphwire --version: exit %d, stderr %q, stdout:\n%s", r.code, r.stderr, r.stdout)
	}
	for _, want := range []string{"markdown " + config.MarkdownVersion(), "xml " + config.XMLVersion(), "gcb1 " + config.GCB1Version()} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("graphwire --version lacks %q:\n%s", want, r.stdout)
		}
	}
	// graphwire version prints the same; --json the same figures as one object.
	if v := runCLI("version"); v != r {
		t.Errorf("graphwire version = %+v, want what --version prints %+v", v, r)
	}
	j := runCLI("version", "--json")
	var d struct {
		Version, Go, Platform, DSL, Engine string
		Formats                            []struct{ Name, Version string }
	}
	if err := json.Unmarshal([]byte(j.stdout), &d); j.code != exitOK || j.stderr != "" || err != nil {
		t.Fatalf("graphwire version --json: exit %d, stderr %q, %v:\n%s", j.code, j.stderr, err, j.stdout)
	}
	if !strings.HasPrefix(r.stdout, "graphwire "+d.Version+"\n") || !strings.Contains(r.stdout, "go:      "+d.Go+" "+d.Platform+"\n") ||
		!strings.Contains(r.stdout, "dsl:     "+d.DSL+"\n") || !strings.Contains(r.stdout, "engine:  "+d.Engine+" ") || len(d.Formats) != len(formatter.Default().Names()) {
		t.Errorf("graphwire version --json %+v disagrees with --version:\n%s", d, r.stdout)
	}
	for _, f := range d.Formats {
		if !strings.Contains(r.stdout, f.Name+" "+f.Version) {
			t.Errorf("--json format %s %s not in --version:\n%s", f.Name, f.Version, r.stdout)
		}
	}
	if u := runCLI("version", "extra"); u.code != exitUsage {
		t.Errorf("graphwire version extra: exit %d, want %d", u.code, exitUsage)
	}
	got := describeBuild(&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"},
	}})
	for _, want := range []string{"graphwire v1.2.3\n", "commit:  0123456789abcdef (2026-01-02T03:04:05Z), modified\n", "go:      go1.26.0 "} {
		if !strings.Contains(got, want) {
			t.Errorf("describeBuild lacks %q:\n%s", want, got)
		}
	}
}

// TestCompletion: the completion scripts for bash, zsh and fish, and the completion of a
// flag's values.
func TestCompletion(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		r := runCLI("completion", sh)
		if r.code != exitOK || r.stderr != "" || !strings.Contains(r.stdout, "graphwire") || len(r.stdout) < 1000 {
			t.Errorf("completion %s: exit %d, stderr %q, %d bytes", sh, r.code, r.stderr, len(r.stdout))
		}
	}
	r := runCLI("__complete", "query", "--format", "")
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "gcb1\ngcf\ngcf-graph\ngcx\ngoon\njson\nmarkdown\ntoon\nxml\nauto\ndot\nmermaid\n:") {
		t.Errorf("__complete query --format: exit %d, stdout %q", r.code, r.stdout)
	}
	r = runCLI("__complete", "query", "--emb")
	if !strings.HasPrefix(r.stdout, "--embedded\t") {
		t.Errorf("__complete query --emb: %q", r.stdout)
	}
}

// TestFlagsAfterArguments: flags may follow the positional argument, and a query comes from
// standard input when there is none.
func TestFlagsAfterArguments(t *testing.T) {
	first := runCLI("query", "--admin", "--explain", userQuery)
	if first.code != exitOK || first.stdout == "" {
		t.Fatalf("flags first: exit %d, stderr %q", first.code, first.stderr)
	}
	after := runCLI("query", userQuery, "--admin", "--explain")
	if diff := cmp.Diff(first, after, cmp.AllowUnexported(result{})); diff != "" {
		t.Errorf("flags after the query (-first +after):\n%s", diff)
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"query", "--admin", "--explain"}, strings.NewReader(userQuery), &stdout, &stderr)
	if diff := cmp.Diff(first, result{code, stdout.String(), stderr.String()}, cmp.AllowUnexported(result{})); diff != "" {
		t.Errorf("query on stdin without an argument (-argument +stdin):\n%s", diff)
	}
}

// TestDeprecatedSpellings: token takes --jwt-secret-file, --jwt-issuer and --jwt-audience like
// serve and mcp; the old spellings still work, with a note on stderr.
func TestDeprecatedSpellings(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, bytes.Repeat([]byte("k"), 32), 0o600); err != nil {
		t.Fatal(err)
	}
	v, err := auth.NewVerifier(auth.Options{Keys: [][]byte{bytes.Repeat([]byte("k"), 32)}, Issuer: "me", Audience: "them"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		wantStderr string
	}{
		{"new", []string{"--jwt-secret-file", secret, "--jwt-issuer", "me", "--jwt-audience", "them"}, ""},
		{"old", []string{"--secret-file", secret, "--issuer", "me", "--audience", "them"},
			"graphwire: --secret-file is deprecated; use --jwt-secret-file\n" +
				"graphwire: --issuer is deprecated; use --jwt-issuer\n" +
				"graphwire: --audience is deprecated; use --jwt-audience\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(append([]string{"token", "--sub", "7", "--scope", "1/:30"}, tt.args...)...)
			if r.code != exitOK || r.stderr != tt.wantStderr {
				t.Fatalf("exit %d, stderr %q, want %q", r.code, r.stderr, tt.wantStderr)
			}
			c, err := v.Verify(strings.TrimSuffix(r.stdout, "\n"))
			if err != nil || c.UserID != 7 || len(c.Scopes) != 1 || c.Scopes[0] != (auth.Scope{Path: "1/", Level: 30}) {
				t.Errorf("token %q: claims %+v, err %v", r.stdout, c, err)
			}
		})
	}
	if help := runCLI("token", "--help"); strings.Contains(help.stdout, "--secret-file") {
		t.Errorf("the deprecated spelling shows in help:\n%s", help.stdout)
	}
}

// TestExitCodes: each class of error, local or a server's status, gets its exit code.
func TestExitCodes(t *testing.T) {
	compileErr := func(r *compiler.Reason) error {
		return fmt.Errorf("compile: %w", &compiler.Error{Path: "/x", Err: r, Message: "m"})
	}
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"usage", usageErrorf("bad"), exitUsage},
		{"invalid query", compileErr(compiler.ErrUnknownEntity), exitInvalid},
		{"permission", compileErr(compiler.ErrScopeViolation), exitPermission},
		{"compiler bug", compileErr(compiler.ErrCompilerBug), exitFailure},
		{"engine rejected a value", executor.New("run", executor.ErrInvalidQuery, errors.New("x")), exitInvalid},
		{"token", fmt.Errorf("verify: %w", auth.ErrInvalidToken), exitAuth},
		{"no graph", (&engineFlags{embedded: "/nowhere"}).errNoGraph(), exitNotFound},
		{"no file", fmt.Errorf("read query: %w", fs.ErrNotExist), exitNotFound},
		{"engine unavailable", executor.New("open", executor.ErrUnavailable, errors.New("x")), exitUnavailable},
		{"incomplete graph", fmt.Errorf("%w: x", loadstate.ErrIncomplete), exitUnavailable},
		{"engine timeout", executor.New("run", executor.ErrTimeout, errors.New("x")), exitTimeout},
		{"deadline", fmt.Errorf("run: %w", context.DeadlineExceeded), exitTimeout},
		{"interrupted", context.Canceled, exitInterrupted},
		{"other", errors.New("disk full"), exitFailure},
		{"server: invalid", status.Error(codes.InvalidArgument, "x"), exitInvalid},
		{"server: unauthenticated", status.Error(codes.Unauthenticated, "x"), exitAuth},
		{"server: permission", status.Error(codes.PermissionDenied, "x"), exitPermission},
		{"server: unavailable", status.Error(codes.Unavailable, "x"), exitUnavailable},
		{"server: busy", status.Error(codes.ResourceExhausted, "x"), exitUnavailable},
		{"server: deadline", status.Error(codes.DeadlineExceeded, "x"), exitTimeout},
		{"server: internal", status.Error(codes.Internal, "x"), exitFailure},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := exitCode(tt.err); got != tt.want {
				t.Errorf("exitCode(%v) = %d, want %d", tt.err, got, tt.want)
			}
		})
	}
}

// TestMissingQueryFileIsNotFound: a query file that does not exist is "not found" (exit 6) with
// the file named, not a usage error, for query and for export --query alike.
func TestMissingQueryFileIsNotFound(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nofile.json")
	for _, args := range [][]string{
		{"query", "--embedded", t.TempDir(), "--admin", "@" + missing},
		{"export", "--embedded", t.TempDir(), "--admin", "--query", "@" + missing, t.TempDir()},
	} {
		t.Run(args[0], func(t *testing.T) {
			r := runCLI(args...)
			if r.code != exitNotFound {
				t.Errorf("exit %d, want %d\n%s", r.code, exitNotFound, r.stderr)
			}
			if !strings.Contains(r.stderr, "nofile.json") || strings.Contains(r.stderr, "--help") {
				t.Errorf("stderr %q: want the file named and no usage hint", r.stderr)
			}
		})
	}
}

// TestLoadMissingFileCreatesNothing: a load of a file that does not exist exits 6 naming the
// file and leaves the data directory uncreated.
func TestLoadMissingFileCreatesNothing(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	r := runCLI("load", "--embedded", data, filepath.Join(t.TempDir(), "Project.jsonl"))
	if r.code != exitNotFound || !strings.Contains(r.stderr, "Project.jsonl") {
		t.Errorf("exit %d, want %d naming the file\n%s", r.code, exitNotFound, r.stderr)
	}
	if _, err := os.Stat(data); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("data directory: %v, want it not created", err)
	}
}

// TestTokenKeyID: --jwt-key-id signs with the key of that id in a rotation file and names it
// in the kid header, so a verifier holding both keys checks it with that key alone; a verifier
// that knows the secret under another id refuses it. An unknown id is a usage error that lists
// the file's ids.
func TestTokenKeyID(t *testing.T) {
	file := filepath.Join(t.TempDir(), "keys")
	oldKey, newKey := strings.Repeat("o", 32), strings.Repeat("n", 32)
	if err := os.WriteFile(file, []byte("# rotation\nold "+oldKey+"\nnew "+newKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	both, err := auth.NewVerifier(auth.Options{Keys: [][]byte{[]byte(oldKey), []byte(newKey)}, KeyIDs: []string{"old", "new"}, Audience: "graphwire"})
	if err != nil {
		t.Fatal(err)
	}
	renamed, err := auth.NewVerifier(auth.Options{Keys: [][]byte{[]byte(oldKey)}, KeyIDs: []string{"retired"}, Audience: "graphwire"})
	if err != nil {
		t.Fatal(err)
	}
	r := runCLI("token", "--jwt-secret-file", file, "--sub", "7", "--jwt-key-id", "old")
	if r.code != exitOK {
		t.Fatalf("exit %d; stderr %s", r.code, r.stderr)
	}
	tok := strings.TrimSuffix(r.stdout, "\n")
	header, _, _ := strings.Cut(tok, ".")
	raw, err := base64.RawURLEncoding.DecodeString(header)
	if err != nil || !strings.Contains(string(raw), `"kid":"old"`) {
		t.Errorf("header %s (err %v) does not name kid old", raw, err)
	}
	if c, err := both.Verify(tok); err != nil || c.UserID != 7 {
		t.Errorf("a verifier with both keys: claims %+v, err %v", c, err)
	}
	if _, err := renamed.Verify(tok); !errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("a verifier without key id old accepted the token: %v", err)
	}
	bad := runCLI("token", "--jwt-secret-file", file, "--sub", "7", "--jwt-key-id", "nope")
	if bad.code != exitUsage || !strings.Contains(bad.stderr, `no key of that id`) || !strings.Contains(bad.stderr, "ids: old, new") {
		t.Errorf("unknown id: exit %d, stderr %q", bad.code, bad.stderr)
	}
	// A file of bare secrets has no ids to list: the message says so instead of an empty list.
	bare := filepath.Join(t.TempDir(), "bare")
	if err := os.WriteFile(bare, []byte(oldKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	none := runCLI("token", "--jwt-secret-file", bare, "--sub", "7", "--jwt-key-id", "old")
	if want := fmt.Sprintf("graphwire token: --jwt-key-id \"old\": the keys in %s have no ids (a line \"KID SECRET\" names one)\n", bare); none.code != exitUsage || !strings.HasPrefix(none.stderr, want) {
		t.Errorf("a file without ids: exit %d, stderr %q, want it to start %q", none.code, none.stderr, want)
	}
}
