package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/graphwire/graphwire/config"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/formatter"
)

// versionString is what graphwire --version prints: the build of this binary as the Go
// toolchain recorded it, and the versions of the query language and output formats it speaks.
func versionString() string {
	info, _ := debug.ReadBuildInfo()
	return describeBuild(info)
}

// buildDescription is what --version and graphwire version describe; its JSON names are
// those graphwire version --json prints, fixed for scripts.
type buildDescription struct {
	Version    string          `json:"version"`
	Commit     string          `json:"commit,omitempty"`
	CommitTime string          `json:"commit_time,omitempty"`
	Modified   bool            `json:"modified"`
	GoVersion  string          `json:"go"`
	Platform   string          `json:"platform"`
	DSL        string          `json:"dsl"`
	Formats    []formatVersion `json:"formats"`
	Engine     string          `json:"engine"`
}

// formatVersion is one registered format and its encoder version.
type formatVersion struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// describe collects build info: the module version ("(devel)" for a build from a checkout),
// the VCS revision, time and whether the tree was modified when the toolchain stamped them
// (go build without -buildvcs=false inside a git checkout), and the Go version.
func describe(info *debug.BuildInfo) buildDescription {
	d := buildDescription{Version: "(unknown)", GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
		DSL: config.QueryDSLVersion(), Engine: "chDB " + chdb.LibraryVersion}
	if info != nil {
		if info.Main.Version != "" {
			d.Version = info.Main.Version
		}
		if info.GoVersion != "" {
			d.GoVersion = info.GoVersion
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				d.Commit = s.Value
			case "vcs.time":
				d.CommitTime = s.Value
			case "vcs.modified":
				d.Modified = s.Value == "true"
			}
		}
	}
	for _, f := range formatter.Default().Formatters() {
		d.Formats = append(d.Formats, formatVersion{f.Name(), f.Version()})
	}
	return d
}

// describeBuild renders build info as --version prints it.
func describeBuild(info *debug.BuildInfo) string {
	d := describe(info)
	var b strings.Builder
	fmt.Fprintf(&b, "graphwire %s\n", d.Version)
	if d.Commit != "" {
		fmt.Fprintf(&b, "commit:  %s", d.Commit)
		if d.CommitTime != "" {
			fmt.Fprintf(&b, " (%s)", d.CommitTime)
		}
		if d.Modified {
			b.WriteString(", modified")
		}
		b.WriteString("\n")
	} else {
		b.WriteString("commit:  unknown (built without VCS stamping)\n")
	}
	fmt.Fprintf(&b, "go:      %s %s\n", d.GoVersion, d.Platform)
	fmt.Fprintf(&b, "dsl:     %s\n", d.DSL)
	var formats []string
	for _, f := range d.Formats {
		formats = append(formats, f.Name+" "+f.Version)
	}
	fmt.Fprintf(&b, "formats: %s\n", strings.Join(formats, ", "))
	fmt.Fprintf(&b, "engine:  %s (embedded, loaded at run time)", d.Engine)
	return b.String()
}

// newVersionCmd is graphwire version: what --version prints, or with --json the same as one
// JSON object.
func newVersionCmd(s streams) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version [--json]",
		Short: "print the build and the versions of the DSL and formats (as --version)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			info, _ := debug.ReadBuildInfo()
			if !asJSON {
				_, err := fmt.Fprintln(s.stdout, describeBuild(info))
				return err
			}
			b, err := json.Marshal(describe(info))
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(s.stdout, "%s\n", b)
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object: version, commit, commit_time, modified, go, platform, dsl, formats [{name, version}], engine")
	return cmd
}
