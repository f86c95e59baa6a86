package formatter

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/semver"
)

// LockRefreshCommand is how a developer rewrites config/format-versions.lock.
const LockRefreshCommand = "UPDATE_FORMAT_LOCK=1 go test ./formatter -run TestFormatVersionsLock"

// versionFiles names the config file that versions each format.
var versionFiles = map[string]string{
	JSON:     "config/RAW_OUTPUT_FORMAT_VERSION",
	GOON:     "config/GOON_OUTPUT_FORMAT_VERSION",
	GCF:      "config/GCF_OUTPUT_FORMAT_VERSION",
	GCFGraph: "config/GCF_OUTPUT_FORMAT_VERSION",
	GCX:      "config/GCX_OUTPUT_FORMAT_VERSION",
	TOON:     "config/TOON_OUTPUT_FORMAT_VERSION",
	Markdown: "config/MARKDOWN_OUTPUT_FORMAT_VERSION",
	XML:      "config/XML_OUTPUT_FORMAT_VERSION",
	GCB1:     "config/GCB1_OUTPUT_FORMAT_VERSION",
}

// corpusItem is one golden input of the fingerprint corpus.
type corpusItem struct {
	Path string // repo-relative, with '/'
	Resp *graphresponse.Response
}

// lockEntry is one line of the lock file.
type lockEntry struct {
	Name        string
	Version     string
	Fingerprint string // "sha256:<hex>"
}

// fingerprint hashes f's output over the corpus (spec goon.md §6.3): for
// each input in byte order of its path, the path, LF, the output length in
// decimal, LF, the output, LF.
func fingerprint(f Formatter, corpus []corpusItem) (string, error) {
	items := slices.Clone(corpus)
	slices.SortFunc(items, func(a, b corpusItem) int { return cmp.Compare(a.Path, b.Path) })
	h := sha256.New()
	var out bytes.Buffer
	for _, it := range items {
		out.Reset()
		if err := f.Format(&out, it.Resp); err != nil {
			// A format may refuse an input it cannot represent (gcf-graph has
			// no aggregations); which inputs it refuses is part of its
			// behaviour, the wording of the error is not.
			out.Reset()
			out.WriteString("error")
		}
		fmt.Fprintf(h, "%s\n%d\n", it.Path, out.Len())
		h.Write(out.Bytes())
		h.Write([]byte{'\n'})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// parseLock reads the lock file.
func parseLock(data []byte) ([]lockEntry, error) {
	var out []lockEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, " ")
		if len(f) != 3 || !strings.HasPrefix(f[2], "sha256:") || len(f[2]) != 7+64 {
			return nil, fmt.Errorf("format-versions.lock line %d: want \"<format> <version> sha256:<64 hex>\", got %q", n, line)
		}
		out = append(out, lockEntry{f[0], f[1], f[2]})
	}
	return out, sc.Err()
}

// renderLock writes entries sorted by name.
func renderLock(entries []lockEntry) []byte {
	es := slices.Clone(entries)
	slices.SortFunc(es, func(a, b lockEntry) int { return cmp.Compare(a.Name, b.Name) })
	var b bytes.Buffer
	b.WriteString("# format version fingerprint — refresh: " + LockRefreshCommand + "\n")
	for _, e := range es {
		fmt.Fprintf(&b, "%s %s %s\n", e.Name, e.Version, e.Fingerprint)
	}
	return b.Bytes()
}

// checkLock compares the current entries with the lock and returns one
// message per problem, each saying what to do.
func checkLock(lock, current []lockEntry) []string {
	var problems []string
	locked := map[string]lockEntry{}
	for _, e := range lock {
		locked[e.Name] = e
	}
	known := map[string]bool{}
	for _, cur := range current {
		known[cur.Name] = true
		l, ok := locked[cur.Name]
		file := versionFiles[cur.Name]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s has no line in config/format-versions.lock: refresh it with `%s`", cur.Name, LockRefreshCommand))
		case l.Version == cur.Version && l.Fingerprint != cur.Fingerprint:
			problems = append(problems, fmt.Sprintf("%s output changed but %s is still %s: bump it (patch for fixes, minor for additions, major for breaking changes), refresh config/format-versions.lock with `%s`, and review the snapshot diff", cur.Name, file, cur.Version, LockRefreshCommand))
		case semver.Compare(cur.Version, l.Version) < 0:
			problems = append(problems, fmt.Sprintf("%s version %s in %s is lower than %s in config/format-versions.lock: versions never go back", cur.Name, cur.Version, file, l.Version))
		case semver.Compare(cur.Version, l.Version) > 0:
			problems = append(problems, fmt.Sprintf("%s version %s in %s is higher than %s in config/format-versions.lock: the lock is stale, refresh it with `%s`", cur.Name, cur.Version, file, l.Version, LockRefreshCommand))
		}
	}
	for _, l := range lock {
		if !known[l.Name] {
			problems = append(problems, fmt.Sprintf("config/format-versions.lock names unknown format %q: refresh it with `%s`", l.Name, LockRefreshCommand))
		}
	}
	return problems
}

// refuseRefresh lists the formats whose fingerprint changed under an
// unchanged version: a refresh must not record those.
func refuseRefresh(lock, current []lockEntry) []string {
	var problems []string
	for _, cur := range current {
		for _, l := range lock {
			if l.Name == cur.Name && l.Version == cur.Version && l.Fingerprint != cur.Fingerprint {
				problems = append(problems, fmt.Sprintf("%s output changed but %s is still %s: bump it first (patch for fixes, minor for additions, major for breaking changes)", cur.Name, versionFiles[cur.Name], cur.Version))
			}
		}
	}
	return problems
}
