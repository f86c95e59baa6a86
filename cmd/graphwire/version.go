package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

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

// describeBuild renders build info: the module version ("(devel)" for a build from a checkout),
// the VCS revision, time and whether the tree was modified when the toolchain stamped them
// (go build without -buildvcs=false inside a git checkout), and the Go version.
func describeBuild(info *debug.BuildInfo) string {
	var b strings.Builder
	version, goVersion := "(unknown)", runtime.Version()
	settings := map[string]string{}
	if info != nil {
		if info.Main.Version != "" {
			version = info.Main.Version
		}
		if info.GoVersion != "" {
			goVersion = info.GoVersion
		}
		for _, s := range info.Settings {
			settings[s.Key] = s.Value
		}
	}
	fmt.Fprintf(&b, "graphwire %s\n", version)
	if rev := settings["vcs.revision"]; rev != "" {
		fmt.Fprintf(&b, "commit:  %s", rev)
		if t := settings["vcs.time"]; t != "" {
			fmt.Fprintf(&b, " (%s)", t)
		}
		if settings["vcs.modified"] == "true" {
			b.WriteString(", modified")
		}
		b.WriteString("\n")
	} else {
		b.WriteString("commit:  unknown (built without VCS stamping)\n")
	}
	fmt.Fprintf(&b, "go:      %s %s/%s\n", goVersion, runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(&b, "dsl:     %s\n", config.QueryDSLVersion())
	var formats []string
	for _, f := range formatter.Default().Formatters() {
		formats = append(formats, f.Name()+" "+f.Version())
	}
	fmt.Fprintf(&b, "formats: %s\n", strings.Join(formats, ", "))
	fmt.Fprintf(&b, "engine:  chDB %s (embedded, loaded at run time)", chdb.LibraryVersion)
	return b.String()
}
