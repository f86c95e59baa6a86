package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSQLOutput runs graphwire sql on the embedded engine. UInt64 values above math.MaxInt64
// print exactly, in both outputs, alone and inside arrays.
func TestSQLOutput(t *testing.T) {
	requireCHDB(t)
	dir := t.TempDir()
	if r := runCLI("seed", "--embedded", dir, "--scale", "0.02"); r.code != exitOK {
		t.Fatalf("seed: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	const q = "SELECT toUInt64(18446744073709551615) AS big, toUInt64(9223372036854775808) AS edge, " +
		"toUInt64(9223372036854775807) AS top, [toUInt64(1), toUInt64(18446744073709551614)] AS arr, -1 AS neg"
	tests := []struct {
		name   string
		output string
		want   string
	}{
		{
			name:   "json",
			output: "json",
			want:   `{"big":18446744073709551615,"edge":9223372036854775808,"top":9223372036854775807,"arr":[1,18446744073709551614],"neg":-1}` + "\n",
		},
		{
			name:   "table",
			output: "table",
			want: "big                   edge                 top                  arr                        neg\n" +
				"--------------------  -------------------  -------------------  -------------------------  ---\n" +
				"18446744073709551615  9223372036854775808  9223372036854775807  [1, 18446744073709551614]  -1\n" +
				"(1 rows)\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run([]string{"sql", "--embedded", dir, "--output", tt.output, q}, strings.NewReader(""), &stdout, &stderr)
			if code != exitOK {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
			}
			if diff := cmp.Diff(tt.want, stdout.String()); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSQLStatementErrors: a statement the engine refuses as written is the user's invalid
// input (exit 3), not an internal error, and the message quotes the user's SQL without the
// executor's own log_comment setting.
func TestSQLStatementErrors(t *testing.T) {
	requireCHDB(t)
	dir := t.TempDir()
	if r := runCLI("seed", "--embedded", dir, "--scale", "0.02"); r.code != exitOK {
		t.Fatalf("seed: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	for _, tt := range []struct{ sql, want string }{
		{"SELEC 1", "SYNTAX_ERROR"},
		{"SELEC 1 SETTINGS max_threads = 1", "SYNTAX_ERROR"},
		{"SELECT nope FROM gl_user", "UNKNOWN_IDENTIFIER"},
		{"SELECT * FROM no_such_table", "UNKNOWN_TABLE"},
		{"CREATE TABLE t (a UInt8) ENGINE = Memory", "READONLY"}, // an INSERT is refused before the engine (TestSQLRefusesInsert)
	} {
		r := runCLI("sql", "--embedded", dir, tt.sql)
		if r.code != exitInvalid {
			t.Errorf("%s: exit %d, want %d; stderr:\n%s", tt.sql, r.code, exitInvalid, r.stderr)
		}
		if !strings.Contains(r.stderr, tt.want) || !strings.HasPrefix(r.stderr, "graphwire sql: the engine refused the statement") {
			t.Errorf("%s: stderr %q does not name %s", tt.sql, r.stderr, tt.want)
		}
		if strings.Contains(r.stderr, "log_comment") {
			t.Errorf("%s: stderr shows the executor's marker: %q", tt.sql, r.stderr)
		}
	}
}

// TestSQLOwnFormatClause: a statement ending with a FORMAT clause of its own is refused as a
// usage error naming the clause, instead of failing to decode the engine's answer as
// RowBinary; the word FORMAT inside a string is no clause.
func TestSQLOwnFormatClause(t *testing.T) {
	for _, sql := range []string{"SELECT 1 AS a FORMAT Vertical", "select 1 format JSONEachRow;", "SELECT 1\nFORMAT   CSV \n"} {
		r := runCLI("sql", "--embedded", filepath.Join(t.TempDir(), "none"), sql)
		if r.code != exitUsage || !strings.Contains(r.stderr, "drop the FORMAT clause") || strings.Contains(r.stderr, "RowBinary") {
			t.Errorf("%q: exit %d, stderr %q; want exit %d naming the FORMAT clause", sql, r.code, r.stderr, exitUsage)
		}
	}
	requireCHDB(t)
	dir := t.TempDir()
	if r := runCLI("seed", "--embedded", dir, "--scale", "0.02"); r.code != exitOK {
		t.Fatalf("seed: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if r := runCLI("sql", "--embedded", dir, "SELECT 'x FORMAT Vertical' AS a"); r.code != exitOK || !strings.Contains(r.stdout, "x FORMAT Vertical") {
		t.Errorf("FORMAT inside a string: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestSQLRefusesOutfile: readonly does not stop INTO OUTFILE on the embedded engine, which
// writes the file itself; graphwire sql refuses the clause (exit 3) and writes nothing, while
// the word in a string or a comment is no clause.
func TestSQLRefusesOutfile(t *testing.T) {
	requireCHDB(t)
	dir := t.TempDir()
	if r := runCLI("seed", "--embedded", dir, "--scale", "0.02"); r.code != exitOK {
		t.Fatalf("seed: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	out := filepath.Join(t.TempDir(), "out")
	for _, sql := range []string{
		"SELECT 1 INTO OUTFILE '" + out + "'",
		"select id from gl_user into outfile '" + out + "' append",
		"SELECT 1 UNION ALL SELECT 2 INTO /* c */ OUTFILE '" + out + "' COMPRESSION 'gzip'",
		"SHOW TABLES INTO OUTFILE '" + out + "'",
		"EXPLAIN SELECT 1 INTO OUTFILE '" + out + "'",
	} {
		r := runCLI("sql", "--embedded", dir, sql)
		if r.code != exitInvalid || !strings.Contains(r.stderr, "INTO OUTFILE") {
			t.Errorf("%q: exit %d, stderr %q; want exit %d naming INTO OUTFILE", sql, r.code, r.stderr, exitInvalid)
		}
		if strings.Contains(r.stderr, "--output") {
			t.Errorf("%q: stderr %q suggests the deprecated --output; want --format", sql, r.stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatalf("%q wrote %s (stat: %v)", sql, out, err)
		}
	}
	for _, sql := range []string{"SELECT 'INTO OUTFILE x' AS a", "SELECT 1 AS a -- into outfile 'x'"} {
		if r := runCLI("sql", "--embedded", dir, sql); r.code != exitOK {
			t.Errorf("%q: exit %d, stderr %q; want the rows", sql, r.code, r.stderr)
		}
	}
}

// TestSQLRefusesInsert: readonly = 2 refuses INSERT INTO a table but not INSERT INTO FUNCTION
// file(…), which wrote, appended to or (engine_file_truncate_on_insert) emptied any file the
// process may write; EXPLAIN PIPELINE of one opened, so truncated, the file without running
// it. graphwire sql refuses every statement that holds an INSERT (exit 3) and changes no file,
// while the word in a string, a name or a comment is no statement.
func TestSQLRefusesInsert(t *testing.T) {
	requireCHDB(t)
	dir := t.TempDir()
	if r := runCLI("seed", "--embedded", dir, "--scale", "0.02"); r.code != exitOK {
		t.Fatalf("seed: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("kept\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(t.TempDir(), "fresh")
	for _, sql := range []string{
		"INSERT INTO FUNCTION file('" + fresh + "', 'LineAsString') SELECT 'x'",
		"insert into function file('" + victim + "', 'LineAsString') select 'x'",
		"INSERT INTO FUNCTION file('" + victim + "', 'LineAsString') SELECT 'x' SETTINGS engine_file_truncate_on_insert = 1",
		"EXPLAIN PIPELINE INSERT INTO FUNCTION file('" + victim + "', 'LineAsString') SELECT 'x' SETTINGS engine_file_truncate_on_insert = 1",
		"/* c */ INSERT INTO FUNCTION file('" + fresh + "', 'LineAsString') VALUES ('x')",
		"INSERT INTO gl_user (id) VALUES (1)",
	} {
		r := runCLI("sql", "--embedded", dir, sql)
		if r.code != exitInvalid || !strings.Contains(r.stderr, "INSERT") {
			t.Errorf("%q: exit %d, stderr %q; want exit %d naming INSERT", sql, r.code, r.stderr, exitInvalid)
		}
		if b, err := os.ReadFile(victim); err != nil || string(b) != "kept\n" {
			t.Fatalf("%q changed %s: %q (%v)", sql, victim, b, err)
		}
		if _, err := os.Stat(fresh); !os.IsNotExist(err) {
			t.Fatalf("%q wrote %s (stat: %v)", sql, fresh, err)
		}
	}
	for _, sql := range []string{"SELECT 'INSERT INTO x' AS a", "SELECT 1 AS insert_count -- insert", "SHOW SETTINGS LIKE '%insert%'"} {
		if r := runCLI("sql", "--embedded", dir, sql); r.code != exitOK {
			t.Errorf("%q: exit %d, stderr %q; want the rows", sql, r.code, r.stderr)
		}
	}
}
