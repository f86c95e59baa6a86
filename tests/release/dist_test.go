package release

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// distVersion is the version TestDist gives scripts/dist.sh, so the names are known.
const distVersion = "v0.0.0-test"

// TestDist runs scripts/dist.sh into a temporary directory and checks what it made: the
// SHA256SUMS match the files, the tarball holds the binary (which runs, and whose version
// subcommand prints what --version prints), LICENSE, README, docs, the chDB installer and
// deploy/, all under one versioned directory, owned by root; and the SBOM is CycloneDX JSON
// naming every module the binary was built from, at its version.
func TestDist(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds graphwire and the SBOM tool")
	}
	for _, name := range []string{"git", "tar", "gzip", "sha256sum"} {
		tool(t, name, "apt-get install "+name)
	}
	root := moduleRoot(t)
	out := t.TempDir()
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "dist.sh"), out)
	cmd.Env = append(os.Environ(), "GRAPHWIRE_VERSION="+distVersion)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/dist.sh: %v\n%s", err, b)
	}
	name := "graphwire-" + distVersion + "-linux-amd64"
	tarball := filepath.Join(out, name+".tar.gz")
	sbom := filepath.Join(out, name+".cdx.json")

	checkSums(t, out, []string{name + ".tar.gz", name + ".cdx.json"})
	bin := checkTarball(t, tarball, name, root)
	checkBinaryVersion(t, bin)
	checkSBOM(t, sbom, bin)
}

// checkSums checks that SHA256SUMS lists exactly files, each with its SHA-256.
func checkSums(t *testing.T, dir string, files []string) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	listed := map[string]string{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		sum, file, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 64 {
			t.Fatalf("SHA256SUMS:%d: %q is not \"SHA256  FILE\"", line, sc.Text())
		}
		listed[file] = sum
	}
	if len(listed) != len(files) {
		t.Errorf("SHA256SUMS lists %v, want %v", listed, files)
	}
	for _, name := range files {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); listed[name] != got {
			t.Errorf("SHA256SUMS says %s is %q; it is %s", name, listed[name], got)
		}
	}
}

// checkTarball checks the tarball's entries and extracts the binary, returning its path.
func checkTarball(t *testing.T, tarball, top, root string) string {
	t.Helper()
	f, err := os.Open(tarball)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", tarball, err)
	}
	tr := tar.NewReader(zr)
	entries := map[string]*tar.Header{}
	bin := filepath.Join(t.TempDir(), "graphwire")
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", tarball, err)
		}
		rel, ok := strings.CutPrefix(strings.TrimSuffix(h.Name, "/"), top)
		if !ok || (rel != "" && !strings.HasPrefix(rel, "/")) {
			t.Errorf("%s is outside %s/", h.Name, top)
			continue
		}
		if h.Uid != 0 || h.Gid != 0 || h.Mode&0o022 != 0 {
			t.Errorf("%s: owner %d:%d, mode %o; want root's, not group or world writable", h.Name, h.Uid, h.Gid, h.Mode)
		}
		entries[strings.TrimPrefix(rel, "/")] = h
		if rel == "/bin/graphwire" {
			w, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
			if err != nil {
				t.Fatal(err)
			}
			_, err = io.Copy(w, tr)
			if cerr := w.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	// Every file the release promises, and every doc and deploy file in the checkout.
	want := []string{"bin/graphwire", "LICENSE", "README.md", "scripts/install-chdb.sh",
		"deploy/systemd/graphwire.service", "deploy/helm/graphwire/Chart.yaml", "deploy/helm/graphwire/templates/deployment.yaml"}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs/*.md in the checkout: %v", err)
	}
	for _, d := range docs {
		want = append(want, "docs/"+filepath.Base(d))
	}
	for _, w := range want {
		h := entries[w]
		switch {
		case h == nil:
			t.Errorf("the tarball lacks %s/%s", top, w)
		case h.Typeflag != tar.TypeReg:
			t.Errorf("%s is not a regular file", w)
		case (w == "bin/graphwire" || strings.HasSuffix(w, ".sh")) && h.Mode&0o111 == 0:
			t.Errorf("%s is not executable (mode %o)", w, h.Mode)
		}
	}
	for e := range entries {
		if strings.HasSuffix(e, ".go") {
			t.Errorf("the tarball holds source %s", e)
		}
	}
	return bin
}

// checkBinaryVersion runs the released binary: graphwire version prints what --version does.
func checkBinaryVersion(t *testing.T, bin string) {
	t.Helper()
	run := func(args ...string) string {
		out, err := exec.Command(bin, args...).Output()
		if err != nil {
			t.Fatalf("graphwire %s: %v", strings.Join(args, " "), err)
		}
		return string(out)
	}
	v, dv := run("version"), run("--version")
	if v != dv || !strings.HasPrefix(v, "graphwire ") {
		t.Errorf("graphwire version printed %q, --version %q; want the same, starting \"graphwire \"", v, dv)
	}
}

// checkSBOM parses the CycloneDX SBOM and checks that it names every module in the binary's
// build information (debug/buildinfo), with the same version, as a pkg:golang purl.
func checkSBOM(t *testing.T, sbom, bin string) {
	t.Helper()
	b, err := os.ReadFile(sbom)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		BOMFormat   string `json:"bomFormat"`
		SpecVersion string `json:"specVersion"`
		Metadata    struct {
			Component struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"component"`
		} `json:"metadata"`
		Components []struct {
			Name    string `json:"name"`
			Version string `json:"version"`
			PURL    string `json:"purl"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s is not JSON: %v", sbom, err)
	}
	if doc.BOMFormat != "CycloneDX" || doc.SpecVersion == "" {
		t.Fatalf("bomFormat %q, specVersion %q: not a CycloneDX document", doc.BOMFormat, doc.SpecVersion)
	}
	if c := doc.Metadata.Component; c.Name != "github.com/graphwire/graphwire" || c.Version != distVersion {
		t.Errorf("the SBOM describes %s %s, want github.com/graphwire/graphwire %s", c.Name, c.Version, distVersion)
	}
	// name@version → its purl; the purl may carry qualifiers (goos, goarch).
	purls := map[string]string{}
	for _, c := range doc.Components {
		purls[c.Name+"@"+c.Version] = c.PURL
	}
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Deps) == 0 {
		t.Fatal("the binary records no modules")
	}
	for _, d := range info.Deps {
		m := d
		if d.Replace != nil {
			m = d.Replace
		}
		key := m.Path + "@" + m.Version
		purl, ok := purls[key]
		if !ok {
			t.Errorf("the SBOM lacks %s", key)
			continue
		}
		if !strings.HasPrefix(purl, fmt.Sprintf("pkg:golang/%s?", key)) {
			t.Errorf("%s has purl %q", key, purl)
		}
	}
	t.Logf("SBOM: CycloneDX %s, %d components, the binary's %d modules all in it", doc.SpecVersion, len(doc.Components), len(info.Deps))
}
