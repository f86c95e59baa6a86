package main

import (
	"bytes"
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
