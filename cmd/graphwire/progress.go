package main

import (
	"fmt"
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/graphwire/graphwire/codeindex"
	"github.com/graphwire/graphwire/load"
)

// progressEnv names the environment variable that decides where long commands (seed, demo,
// load, index)
// draw progress bars: "1" always, "0" never, unset or empty only when stderr is a terminal.
const progressEnv = "GRAPHWIRE_PROGRESS"

// progressUnit is what a progress bar counts.
type progressUnit int

const (
	unitRows  progressUnit = iota // "1234/5000, 800 rows/s"
	unitBytes                     // "1.2/5.0 MB, 3.1 MB/s"
	unitFiles                     // "120/1614, 150 files/s"
)

// progress draws the progress of a long command on stderr: one bar per phase ("generate",
// "load"), with a count, a rate and the time left, redrawn in place and ended by a newline.
// When it does not draw (stderr is not a terminal, see [drawProgress]), it writes nothing, and
// the command's own summary line is the only thing on stderr. The command prints that line
// after [progress.finish], in both cases.
//
// A bar is redrawn only when its whole percent changes and once at the end, so a caller may
// report as often as it likes. Drawing is best-effort: a failed write to stderr is not an
// error of the command. A progress is not safe for concurrent use.
//
// Wiring a command is three lines:
//
//	bar, err := newProgress(stderr, os.Getenv(progressEnv), unitRows)
//	… Options{Progress: bar.report} …
//	bar.finish() // then print the summary line
type progress struct {
	w     io.Writer // nil when not drawing
	unit  progressUnit
	phase string
	bar   *progressbar.ProgressBar
	pct   int64 // the percent last drawn
}

// newProgress returns a progress that draws on w according to setting, the value of
// GRAPHWIRE_PROGRESS; a setting other than "", "0" or "1" is an error.
func newProgress(w io.Writer, setting string, unit progressUnit) (*progress, error) {
	draw, err := drawProgress(w, setting)
	if err != nil {
		return nil, err
	}
	p := &progress{unit: unit}
	if draw {
		p.w = w
	}
	return p, nil
}

// drawProgress decides whether to draw progress bars on w: setting "1" always, "0" never and
// "" when w is a terminal. Only an *os.File can be one; /dev/null and pipes are not.
func drawProgress(w io.Writer, setting string) (bool, error) {
	switch setting {
	case "1":
		return true, nil
	case "0":
		return false, nil
	case "":
		return isTerminalFile(w), nil
	}
	return false, fmt.Errorf("%s=%q: want 1 (always draw progress bars), 0 (never) or empty (on a terminal only)", progressEnv, setting)
}

// isTerminalFile reports whether w is an *os.File open on a terminal. It reads the descriptor
// through SyscallConn, because File.Fd would switch the file to blocking mode.
func isTerminalFile(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	tty := false
	if err := rc.Control(func(fd uintptr) { tty = term.IsTerminal(int(fd)) }); err != nil {
		return false
	}
	return tty
}

// report is a progress callback (seed.Options.Progress): phase has reached done of total. The
// phase's bar ends when done reaches total, or when another phase begins. total may change
// between calls (an estimate made good); done above total counts as total.
func (p *progress) report(phase string, done, total int64) {
	if p.w == nil {
		return
	}
	total = max(total, done, 1)
	if p.bar == nil || phase != p.phase {
		p.finish()
		p.phase = phase
		p.bar = progressbar.NewOptions64(total, p.options(phase)...)
		p.pct = -1
	}
	if total != p.bar.GetMax64() {
		p.bar.ChangeMax64(total)
	}
	if pct := done * 100 / total; pct != p.pct || done == total {
		p.pct = pct
		_ = p.bar.Set64(done) // drawing is best-effort
	}
}

// options configures the bar of one phase.
func (p *progress) options(phase string) []progressbar.Option {
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription(fmt.Sprintf("%-8s", phase)),
		progressbar.OptionSetWidth(30),
		progressbar.OptionUseANSICodes(true),
		progressbar.OptionShowCount(),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(p.w) }),
	}
	switch p.unit {
	case unitBytes:
		opts = append(opts, progressbar.OptionShowBytes(true))
	case unitFiles:
		its := "files"
		if phase == phaseCheck {
			its = "pkgs"
		}
		opts = append(opts, progressbar.OptionShowIts(), progressbar.OptionSetItsString(its))
	default:
		opts = append(opts, progressbar.OptionShowIts(), progressbar.OptionSetItsString("rows"))
	}
	return opts
}

// finish ends the bar being drawn, if any, keeping what it shows on its own line. Call it
// before printing the summary line, also when the command failed half-way.
func (p *progress) finish() {
	if p.bar == nil {
		return
	}
	if !p.bar.IsFinished() {
		_ = p.bar.Exit() // runs the completion function: the newline
	}
	p.bar = nil
}

// loadReport is a load.Options.Progress: one bar over the input bytes staged.
func (p *progress) loadReport(lp load.Progress) {
	p.report("load", lp.Bytes, lp.TotalBytes)
}

// phaseCheck is the phase of index's bar over the packages type-checked.
const phaseCheck = "check"

// indexReport is a codeindex.Options.Progress: one bar over the packages type-checked, then
// one over the files extracted.
func (p *progress) indexReport(ip codeindex.Progress) {
	if ip.TotalFiles == 0 && ip.TotalPackages > 0 {
		p.report(phaseCheck, int64(ip.Checked), int64(ip.TotalPackages))
	}
	if ip.TotalFiles > 0 {
		p.report("extract", int64(ip.Files), int64(ip.TotalFiles))
	}
}
