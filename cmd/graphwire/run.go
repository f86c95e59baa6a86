package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/graphwire/graphwire/internal/editdist"
)

// streams are the standard streams a command reads and writes. Commands take them from here,
// never from package os, so that tests can run the whole program in memory.
type streams struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// run is the whole program: it returns the exit code instead of exiting so tests can call it.
// Help and results go to stdout, everything else to stderr; errors are classified into exit
// codes by exitCode and printed by report, once, here.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runContext(ctx, args, stdin, stdout, stderr)
}

// runContext is run under ctx, which ends the command when it is done.
func runContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd(streams{stdin, stdout, stderr})
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	name := "graphwire"
	if cmd != nil {
		name = cmd.CommandPath()
	}
	var ue *usageError
	if !errors.As(err, &ue) && isFlagOrArgError(cmd, err) {
		err = &usageError{err}
	}
	report(stderr, name, err)
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", name)
		if hint := dashHint(cmd, args); hint != "" {
			fmt.Fprintln(stderr, hint)
		}
	}
	return exitCode(err)
}

// newRootCmd builds the command tree. Each subcommand lives in its own file: newXCmd binds its
// flags into a struct it owns (the flag-parsing half) and calls the running half with it.
func newRootCmd(s streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "graphwire",
		Short: "graphwire compiles graph queries to ClickHouse SQL, runs them and formats the answers",
		Long: "graphwire is a graph query service for agents and programs: it compiles a JSON graph query to\n" +
			"parameterized ClickHouse SQL, runs it on the embedded engine or a ClickHouse server under the\n" +
			"caller's scopes, and formats the answer as JSON or compact text for language models.\n\n" +
			"Exit codes: 0 ok, 1 failure, 2 usage, 3 invalid input, 4 not authenticated, 5 permission\n" +
			"denied, 6 not found, 7 unavailable, 8 timeout, 130 interrupted (README: Exit codes).",
		Version: versionString(),
		// graphwire alone is a usage error: it says what to run, on stderr.
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageErrorf("no command given; the commands are listed by 'graphwire help'")
		},
		SilenceErrors:     true,
		SilenceUsage:      true,
		CompletionOptions: cobra.CompletionOptions{HiddenDefaultCmd: false},
	}
	root.SetIn(s.stdin)
	root.SetOut(s.stdout)
	root.SetErr(s.stderr)
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(flagError)
	root.AddGroup(
		&cobra.Group{ID: "query", Title: "Query and serve:"},
		&cobra.Group{ID: "data", Title: "Data:"},
		&cobra.Group{ID: "formats", Title: "Formats:"},
	)
	for _, c := range []struct {
		group string
		cmd   *cobra.Command
	}{
		{"query", newQueryCmd(s)},
		{"query", newServeCmd(s)},
		{"query", newMCPCmd(s)},
		{"query", newTokenCmd(s)},
		{"query", newSetupCmd(s)},
		{"query", newSQLCmd(s)},
		{"data", newSeedCmd(s)},
		{"data", newLoadCmd(s)},
		{"data", newExportCmd(s)},
		{"data", newIndexCmd(s)},
		{"data", newClusterCmd(s)},
		{"data", newRekeyCmd(s)},
		{"formats", newFormatCmd(s)},
		{"formats", newConvertCmd(s)},
		{"formats", newDemoCmd(s)},
		{"formats", newBenchCmd(s)},
		{"", newVersionCmd(s)},
	} {
		c.cmd.GroupID = c.group
		c.cmd.SetFlagErrorFunc(flagError)
		root.AddCommand(c.cmd)
	}
	return root
}

// flagError is every command's FlagErrorFunc: a flag the command does not have is a usage
// error that suggests the command's closest flag name (cobra suggests commands only).
func flagError(cmd *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return &usageError{err}
	}
	if best := closestFlag(cmd, name); best != "" {
		err = fmt.Errorf("%w (did you mean --%s?)", err, best)
	}
	return &usageError{err}
}

// closestFlag is the visible flag of cmd nearest to name, at an edit distance of at most 2,
// the first in name order on a tie; "" when none is that near.
func closestFlag(cmd *cobra.Command, name string) string {
	best, bestDist := "", 3
	cmd.Flags().VisitAll(func(f *pflag.Flag) { // VisitAll goes in name order
		if f.Hidden {
			return
		}
		if d := editdist.Levenshtein(name, f.Name); d < bestDist {
			best, bestDist = f.Name, d
		}
	})
	return best
}

// isFlagOrArgError reports whether err is cobra's own complaint about the command line (an
// unknown command, or an argument count its Args check refused), which are usage errors.
func isFlagOrArgError(cmd *cobra.Command, err error) bool {
	msg := err.Error()
	return cmd == nil || strings.HasPrefix(msg, "unknown command") || strings.HasPrefix(msg, "accepts ") ||
		strings.HasPrefix(msg, "requires at least") || strings.HasPrefix(msg, "requires at most") ||
		strings.HasPrefix(msg, "unknown flag") || strings.HasPrefix(msg, "unknown shorthand flag")
}

// dashHint explains a Go-style single-dash long flag ("-embedded"), which the old command line
// accepted and GNU-style parsing reads as a cluster of one-letter flags.
func dashHint(cmd *cobra.Command, args []string) string {
	if cmd == nil {
		return ""
	}
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "-"), "=")
		if len(a) > 2 && a[0] == '-' && a[1] != '-' && cmd.Flags().Lookup(name) != nil {
			return fmt.Sprintf("Long flags take two dashes: --%s.", name)
		}
	}
	return ""
}

// deprecatedAlias registers old as a hidden spelling of the flag canonical, so scripts written
// for the old name keep working; using it prints a note on stderr.
func deprecatedAlias(fs *pflag.FlagSet, canonical, old string, stderr io.Writer) {
	f := fs.Lookup(canonical)
	v := &aliasValue{Value: f.Value, note: fmt.Sprintf("graphwire: --%s is deprecated; use --%s\n", old, canonical), w: stderr}
	fs.AddFlag(&pflag.Flag{Name: old, Usage: f.Usage, Value: v, DefValue: f.DefValue, NoOptDefVal: f.NoOptDefVal, Hidden: true})
}

// aliasValue is the value of a deprecated flag spelling: it sets the canonical flag's value
// and says once that the spelling is deprecated.
type aliasValue struct {
	pflag.Value
	note string
	w    io.Writer
}

func (a *aliasValue) Set(s string) error {
	if a.note != "" {
		io.WriteString(a.w, a.note)
		a.note = ""
	}
	return a.Value.Set(s)
}

// completeWords completes a flag's value from a fixed list.
func completeWords(cmd *cobra.Command, flag string, words ...string) {
	_ = cmd.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(words, cobra.ShellCompDirectiveNoFileComp))
}
