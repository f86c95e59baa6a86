package release

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// imageUID is the image's user (scripts/build-image.sh).
const imageUID = 65532

// imageQuery asks for alice's merge requests: the seeded graph (seed 42) always has alice,
// an admin user, authoring some.
const imageQuery = `{"query_type":"traversal",
 "nodes":[{"id":"u","entity":"User","filters":{"username":"alice"}},
          {"id":"mr","entity":"MergeRequest","columns":["title","state"]}],
 "relationships":[{"type":"AUTHORED","from":"u","to":"mr"}],
 "limit":3}`

type ociDescriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Annotations map[string]string `json:"annotations"`
}

type ociManifest struct {
	Config ociDescriptor   `json:"config"`
	Layers []ociDescriptor `json:"layers"`
}

type ociConfig struct {
	Architecture string `json:"architecture"`
	OS           string `json:"os"`
	Config       struct {
		User         string              `json:"User"`
		Env          []string            `json:"Env"`
		Entrypoint   []string            `json:"Entrypoint"`
		Cmd          []string            `json:"Cmd"`
		WorkingDir   string              `json:"WorkingDir"`
		Volumes      map[string]struct{} `json:"Volumes"`
		ExposedPorts map[string]struct{} `json:"ExposedPorts"`
		Labels       map[string]string   `json:"Labels"`
	} `json:"config"`
	RootFS struct {
		DiffIDs []string `json:"diff_ids"`
	} `json:"rootfs"`
}

// image is an OCI image layout read and checked: its tag, manifest and configuration.
type image struct {
	dir      string
	tag      string
	manifest ociManifest
	config   ociConfig
}

// readBlob reads a blob of the layout and checks it against its descriptor's digest and size.
func readBlob(dir string, d ociDescriptor) ([]byte, error) {
	hexDigest, ok := strings.CutPrefix(d.Digest, "sha256:")
	if !ok {
		return nil, fmt.Errorf("blob %q: not a sha256 digest", d.Digest)
	}
	b, err := os.ReadFile(filepath.Join(dir, "blobs", "sha256", hexDigest))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) != d.Size {
		return nil, fmt.Errorf("blob %s: %d bytes, descriptor says %d", d.Digest, len(b), d.Size)
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != hexDigest {
		return nil, fmt.Errorf("blob %s: content hashes to sha256:%x", d.Digest, sum)
	}
	return b, nil
}

func openImage(t *testing.T, dir, tag string) *image {
	t.Helper()
	var index struct {
		Manifests []ociDescriptor `json:"manifests"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatalf("GRAPHWIRE_IMAGE=%s is not an OCI image layout: %v", dir, err)
	}
	if err := json.Unmarshal(b, &index); err != nil {
		t.Fatalf("%s/index.json: %v", dir, err)
	}
	var found []ociDescriptor
	for _, m := range index.Manifests {
		if tag == "" || m.Annotations["org.opencontainers.image.ref.name"] == tag {
			found = append(found, m)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s/index.json: %d manifests tagged %q, want one (set GRAPHWIRE_IMAGE_TAG)", dir, len(found), tag)
	}
	img := &image{dir: dir, tag: found[0].Annotations["org.opencontainers.image.ref.name"]}
	mb, err := readBlob(dir, found[0])
	if err != nil {
		t.Fatalf("manifest: %v", err)
	}
	if err := json.Unmarshal(mb, &img.manifest); err != nil {
		t.Fatalf("manifest: %v", err)
	}
	cb, err := readBlob(dir, img.manifest.Config)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	if err := json.Unmarshal(cb, &img.config); err != nil {
		t.Fatalf("config: %v", err)
	}
	return img
}

func (img *image) env(name string) string {
	for _, kv := range img.config.Config.Env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}

// unpack extracts the layers in order into a new directory, refusing paths that leave it, and
// checks every layer's uncompressed digest against the config's diff_ids. As root it keeps
// the owners; it returns the directory and the owner (uid) of each path it wrote.
func (img *image) unpack(t *testing.T) (string, map[string]int) {
	t.Helper()
	root := t.TempDir()
	owners := map[string]int{}
	if len(img.config.RootFS.DiffIDs) != len(img.manifest.Layers) {
		t.Fatalf("config lists %d diff_ids for %d layers", len(img.config.RootFS.DiffIDs), len(img.manifest.Layers))
	}
	for i, l := range img.manifest.Layers {
		if err := unpackLayer(img.dir, l, img.config.RootFS.DiffIDs[i], root, owners); err != nil {
			t.Fatalf("layer %d (%s): %v", i, l.Digest, err)
		}
	}
	return root, owners
}

func unpackLayer(dir string, l ociDescriptor, diffID, root string, owners map[string]int) error {
	blob, err := readBlob(dir, l)
	if err != nil {
		return err
	}
	if l.MediaType != "application/vnd.oci.image.layer.v1.tar+gzip" {
		return fmt.Errorf("media type %q, want a gzip layer", l.MediaType)
	}
	zr, err := gzip.NewReader(bytes.NewReader(blob))
	if err != nil {
		return err
	}
	h := sha256.New()
	hashed := io.TeeReader(zr, h)
	tr := tar.NewReader(hashed)
	asRoot := os.Geteuid() == 0
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		name := path.Clean("/" + hdr.Name)
		if strings.Contains(path.Base(name), ".wh.") {
			return fmt.Errorf("%s: whiteouts are not expected in graphwire's layers", name)
		}
		if hdr.Mode&(04000|02000) != 0 {
			return fmt.Errorf("%s: setuid or setgid bit (mode %o)", name, hdr.Mode)
		}
		target := filepath.Join(root, filepath.FromSlash(name))
		mode := os.FileMode(hdr.Mode).Perm()
		if hdr.Mode&01000 != 0 {
			mode |= os.ModeSticky
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := os.Symlink(hdr.Linkname, target); err != nil {
				return err
			}
			owners[name] = hdr.Uid
			continue
		default:
			return fmt.Errorf("%s: unexpected entry type %q", name, hdr.Typeflag)
		}
		if err := os.Chmod(target, mode); err != nil {
			return err
		}
		if asRoot {
			if err := os.Lchown(target, hdr.Uid, hdr.Gid); err != nil {
				return err
			}
		}
		owners[name] = hdr.Uid
	}
	if _, err := io.Copy(io.Discard, hashed); err != nil { // the tar's end blocks
		return err
	}
	if got := "sha256:" + hex.EncodeToString(h.Sum(nil)); got != diffID {
		return fmt.Errorf("uncompressed content hashes to %s, config's diff_id is %s", got, diffID)
	}
	return nil
}

// checkAnswer checks a JSON GraphResponse of imageQuery: alice and merge requests she authored.
func checkAnswer(t *testing.T, out []byte) {
	t.Helper()
	var r struct {
		Nodes []map[string]any `json:"nodes"`
		Edges []struct {
			Type string `json:"type"`
		} `json:"edges"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("answer is not JSON: %v\n%s", err, out)
	}
	var alice, mrs int
	for _, n := range r.Nodes {
		switch n["type"] {
		case "User":
			if n["username"] == "alice" {
				alice++
			}
		case "MergeRequest":
			mrs++
		}
	}
	authored := 0
	for _, e := range r.Edges {
		if e.Type == "AUTHORED" {
			authored++
		}
	}
	if alice != 1 || mrs == 0 || authored != mrs {
		t.Fatalf("answer has %d alice, %d merge requests, %d AUTHORED edges; want 1, some, one each:\n%s", alice, mrs, authored, out)
	}
}

func TestImage(t *testing.T) {
	dir := os.Getenv("GRAPHWIRE_IMAGE")
	if dir == "" {
		t.Skip("GRAPHWIRE_IMAGE is not set: make image-test builds the image and runs this")
	}
	img := openImage(t, dir, os.Getenv("GRAPHWIRE_IMAGE_TAG"))
	c := img.config.Config

	t.Run("config", func(t *testing.T) {
		if img.config.OS != "linux" || img.config.Architecture != "amd64" {
			t.Errorf("platform %s/%s, want linux/amd64", img.config.OS, img.config.Architecture)
		}
		if c.User != fmt.Sprintf("%d:%d", imageUID, imageUID) {
			t.Errorf("User %q, want the non-root %d:%d", c.User, imageUID, imageUID)
		}
		if _, ok := c.Volumes["/data"]; !ok {
			t.Errorf("Volumes %v lack /data", c.Volumes)
		}
		want := map[string]string{"GRAPHWIRE_DATA": "/data", "GRAPHWIRE_CHDB_LIB": "/usr/lib/graphwire/libchdb.so", "HOME": "/home/graphwire"}
		for k, v := range want {
			if got := img.env(k); got != v {
				t.Errorf("Env %s=%q, want %q", k, got, v)
			}
		}
		if len(c.Entrypoint) != 1 || c.Entrypoint[0] != "/usr/local/bin/graphwire" {
			t.Errorf("Entrypoint %q, want [/usr/local/bin/graphwire]", c.Entrypoint)
		}
		if len(img.manifest.Layers) != 3 {
			t.Errorf("%d layers, want 3 (base, engine, app)", len(img.manifest.Layers))
		}
		var size int64
		for _, l := range img.manifest.Layers {
			size += l.Size
		}
		t.Logf("image %s: %d layers, %.1f MB compressed", img.tag, len(img.manifest.Layers), float64(size)/1e6)
	})

	root, owners := img.unpack(t)
	t.Run("rootfs", func(t *testing.T) {
		// Only the volume, the home directory and /tmp belong to the image's user: the binary,
		// the engine and the libraries cannot be changed by the process that runs them.
		writable := map[string]bool{"/data": true, "/home/graphwire": true, "/tmp": true}
		for p, uid := range owners {
			if writable[p] != (uid == imageUID) {
				t.Errorf("%s belongs to uid %d", p, uid)
			}
		}
		for _, p := range []string{"/usr/local/bin/graphwire", img.env("GRAPHWIRE_CHDB_LIB"), "/etc/passwd", "/etc/ssl/certs/ca-certificates.crt", "/lib64/ld-linux-x86-64.so.2"} {
			if _, err := os.Stat(filepath.Join(root, p)); err != nil {
				t.Errorf("image lacks %s: %v", p, err)
			}
		}
		passwd, err := os.ReadFile(filepath.Join(root, "etc", "passwd"))
		if err != nil || !strings.Contains(string(passwd), fmt.Sprintf(":%d:%d:", imageUID, imageUID)) {
			t.Errorf("/etc/passwd has no user %d: %q, %v", imageUID, passwd, err)
		}
	})

	t.Run("podman", func(t *testing.T) {
		podman, err := exec.LookPath("podman")
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatal("podman is required for the image test under CI (.ci/run installs it)")
			}
			t.Skip("podman is not installed")
		}
		runImageWithPodman(t, podman, img)
	})

	t.Run("chroot", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("chroot(2) needs root")
		}
		runImageWithChroot(t, img, root)
	})
}

// runImageWithPodman seeds a graph into a volume and queries it, each in a container of the
// image with a read-only root, no network and no tmpfs: the image needs to write nowhere but
// /data.
func runImageWithPodman(t *testing.T, podman string, img *image) {
	store := t.TempDir()
	global := []string{"--root", filepath.Join(store, "root"), "--runroot", filepath.Join(store, "run"), "--storage-driver", "vfs"}
	global = append(global, strings.Fields(os.Getenv("GRAPHWIRE_PODMAN_GLOBAL_FLAGS"))...)
	runFlags := strings.Fields(os.Getenv("GRAPHWIRE_PODMAN_RUN_FLAGS"))
	data := t.TempDir()
	if err := os.Chown(data, imageUID, imageUID); err != nil && os.Geteuid() == 0 {
		t.Fatal(err)
	}
	ref := "oci:" + img.dir + ":" + img.tag
	run := func(args ...string) []byte {
		t.Helper()
		argv := append(append([]string{}, global...), "run", "--rm", "--network", "none", "--read-only", "--read-only-tmpfs=false",
			"--volume", data+":/data")
		argv = append(append(argv, runFlags...), ref)
		argv = append(argv, args...)
		cmd := exec.Command(podman, argv...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		t.Logf("ran: podman %s", strings.Join(argv, " "))
		if err != nil {
			t.Fatalf("podman run %s: %v\n%s", args[0], err, stderr.Bytes())
		}
		return out
	}
	if v, dv := run("version"), run("--version"); !bytes.Equal(v, dv) {
		t.Errorf("graphwire version printed %q, --version %q", v, dv)
	}
	run("seed", "--scale", "1")
	checkAnswer(t, run("query", "--scope", "1/:30", "--format", "json", imageQuery))
}

// runImageWithChroot runs the image's binary in the unpacked rootfs: chroot(2) into it, as the
// image's user, in its working directory, with only the image's environment.
func runImageWithChroot(t *testing.T, img *image, root string) {
	run := func(args ...string) []byte {
		t.Helper()
		cmd := exec.Command(img.config.Config.Entrypoint[0], args...)
		cmd.Env = img.config.Config.Env
		cmd.Dir = img.config.Config.WorkingDir
		cmd.SysProcAttr = &syscall.SysProcAttr{
			Chroot:     root,
			Credential: &syscall.Credential{Uid: imageUID, Gid: imageUID},
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		t.Logf("ran: chroot --userspec=%d:%d %s %s %s", imageUID, imageUID, root, cmd.Path, strings.Join(args, " "))
		if err != nil {
			t.Fatalf("%s in the chroot: %v\n%s", args[0], err, stderr.Bytes())
		}
		return out
	}
	run("seed", "--scale", "1")
	checkAnswer(t, run("query", "--scope", "1/:30", "--format", "json", imageQuery))
}
