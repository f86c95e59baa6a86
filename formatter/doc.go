// Package formatter turns a GraphResponse into the bytes a caller asked for.
//
// A [Registry] maps format names (json, goon, gcf, gcf-graph, gcx, toon,
// markdown and xml) to [Formatter] values. [Default] builds the
// built-ins explicitly, with versions read from config/. Callers pick a
// formatter with [Registry.Lookup] or, for RAW/LLM dispatch,
// [Registry.Select], and stamp the output with [Stamp]:
//
//	reg := formatter.Default()
//	f, _ := reg.Select(formatter.LLM, "") // goon
//	out, _ := formatter.Stamp(f, resp)    // out.Name == "goon", out.Version == "4.1.0"
//
// The package also owns the format-version fingerprint,
// config/format-versions.lock (spec goon.md §6.3): TestFormatVersionsLock
// fails when a format's output over its golden corpus changes while its
// version does not.
package formatter
