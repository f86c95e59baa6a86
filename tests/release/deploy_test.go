package release

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/graphwire/graphwire/serveconfig"
)

// maxExposure is the highest systemd-analyze security exposure (0 safe … 10 unsafe) the unit
// may have; a service without any hardening scores 9.6.
const maxExposure = 2.0

var exposureRE = regexp.MustCompile(`Overall exposure level for \S+: (\d+\.\d+)`)

// exposure runs systemd-analyze security --offline on a unit file.
func exposure(t *testing.T, analyze, unit string) float64 {
	t.Helper()
	out, err := exec.Command(analyze, "security", "--offline=yes", "--no-pager", unit).CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze security %s: %v\n%s", unit, err, out)
	}
	m := exposureRE.FindSubmatch(out)
	if m == nil {
		t.Fatalf("systemd-analyze security printed no exposure level:\n%s", out)
	}
	f, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestSystemdUnit verifies deploy/systemd/graphwire.service with systemd-analyze verify (its
// ExecStart pointed at an executable in a temporary directory, since the binary is not
// installed here) and requires systemd-analyze security's exposure level to stay low; the same
// unit stripped of its hardening must score above it, so the check measures the hardening.
func TestSystemdUnit(t *testing.T) {
	analyze := tool(t, "systemd-analyze", "apt-get install systemd")
	src, err := os.ReadFile(filepath.Join(moduleRoot(t), "deploy", "systemd", "graphwire.service"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "graphwire")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(src, []byte("ExecStart=/usr/local/bin/graphwire serve\n")) {
		t.Fatal("the unit's ExecStart is not /usr/local/bin/graphwire serve")
	}
	unit := filepath.Join(dir, "graphwire.service")
	if err := os.WriteFile(unit, bytes.ReplaceAll(src, []byte("/usr/local/bin/graphwire"), []byte(bin)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", unit).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) != 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
	for _, want := range []string{"NoNewPrivileges=yes", "ProtectSystem=strict", "CapabilityBoundingSet=\n", "DynamicUser=yes", "StateDirectory=graphwire", "SystemCallFilter=@system-service"} {
		if !bytes.Contains(src, []byte(want)) {
			t.Errorf("the unit lacks %q", strings.TrimSpace(want))
		}
	}
	if e := exposure(t, analyze, unit); e > maxExposure {
		t.Errorf("exposure level %.1f, want at most %.1f", e, maxExposure)
	}

	// The unit without its hardening section, to show the threshold means something.
	var bare []string
	hardening := false
	for _, line := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(line, "# Hardening") || strings.HasPrefix(line, "DynamicUser=") {
			hardening = true
		}
		if strings.HasPrefix(line, "[Install]") {
			hardening = false
		}
		if !hardening {
			bare = append(bare, strings.ReplaceAll(line, "/usr/local/bin/graphwire", bin))
		}
	}
	bareUnit := filepath.Join(t.TempDir(), "graphwire.service")
	if err := os.WriteFile(bareUnit, []byte(strings.Join(bare, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if e := exposure(t, analyze, bareUnit); e <= maxExposure {
		t.Errorf("the unit without hardening scores %.1f, at most %.1f: the check cannot tell", e, maxExposure)
	}
}

// manifest is one rendered Kubernetes object, as generic YAML.
type manifest map[string]any

// get walks a manifest by keys (maps) and indexes (lists), nil when a step is missing.
func (m manifest) get(path ...any) any {
	var v any = map[string]any(m)
	for _, p := range path {
		switch k := p.(type) {
		case string:
			mm, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = mm[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// sub is the mapping at path, failing the test when there is none.
func (m manifest) sub(t *testing.T, path ...any) manifest {
	t.Helper()
	v, ok := m.get(path...).(map[string]any)
	if !ok {
		t.Fatalf("rendered %v has no mapping at %v", m["kind"], path)
	}
	return v
}

// render runs helm template on the chart with a values file and returns the objects by kind.
func render(t *testing.T, helm, chart, values string) map[string]manifest {
	t.Helper()
	out, err := exec.Command(helm, "template", "gw", chart, "--values", values).CombinedOutput()
	if err != nil {
		t.Fatalf("helm template --values %s: %v\n%s", values, err, out)
	}
	objs := map[string]manifest{}
	dec := yaml.NewDecoder(bytes.NewReader(out))
	for {
		var doc map[string]any // not manifest: yaml.v3 would decode the nested maps as manifest too
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("helm template printed YAML that does not parse: %v", err)
		}
		if doc == nil {
			continue
		}
		m := manifest(doc)
		kind, _ := m["kind"].(string)
		if _, dup := objs[kind]; dup {
			t.Fatalf("two %s objects rendered", kind)
		}
		objs[kind] = m
	}
	return objs
}

// TestHelmChart lints deploy/helm/graphwire with the pinned helm (helm lint --strict, with each
// values file under ci/) and checks what it renders: probes on /healthz and /readyz, a non-root,
// read-only, capability-free container, the data volume, and a graphwire.yaml that graphwire's
// own config parser (serveconfig.Resolve) accepts, with keys from the Secret or the JWKS URL.
func TestHelmChart(t *testing.T) {
	helm := tool(t, "helm", "scripts/install-test-tools.sh installs the pinned helm")
	chart := filepath.Join(moduleRoot(t), "deploy", "helm", "graphwire")
	valueFiles, err := filepath.Glob(filepath.Join(chart, "ci", "*-values.yaml"))
	if err != nil || len(valueFiles) < 3 {
		t.Fatalf("want at least three ci/*-values.yaml, found %v (%v)", valueFiles, err)
	}
	for _, values := range valueFiles {
		t.Run(filepath.Base(values), func(t *testing.T) {
			out, err := exec.Command(helm, "lint", "--strict", chart, "--values", values).CombinedOutput()
			if err != nil {
				t.Fatalf("helm lint --strict: %v\n%s", err, out)
			}
			objs := render(t, helm, chart, values)
			for _, kind := range []string{"Deployment", "Service", "ConfigMap"} {
				if objs[kind] == nil {
					t.Fatalf("no %s rendered", kind)
				}
			}
			checkDeployment(t, objs["Deployment"])
			checkConfig(t, objs)
		})
	}

	// No key source, or two, is refused when rendering.
	empty := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(empty, []byte("auth:\n  jwksUrl: https://idp.example/jwks\n  jwtSecret: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(helm, "template", "gw", chart, "--values", empty).CombinedOutput(); err == nil || !bytes.Contains(out, []byte("exactly one of auth.jwksUrl")) {
		t.Errorf("helm template with two key sources: %v\n%s", err, out)
	}
}

func checkDeployment(t *testing.T, d manifest) {
	t.Helper()
	pod := d.sub(t, "spec", "template", "spec")
	if pod.get("securityContext", "runAsNonRoot") != true || pod.get("securityContext", "runAsUser") != 65532 {
		t.Errorf("pod securityContext %v: want runAsNonRoot and user 65532", pod.get("securityContext"))
	}
	if pod.get("automountServiceAccountToken") != false {
		t.Error("the pod mounts a service account token")
	}
	c := pod.sub(t, "containers", 0)
	sc := c.get("securityContext")
	if c.get("securityContext", "readOnlyRootFilesystem") != true || c.get("securityContext", "allowPrivilegeEscalation") != false ||
		c.get("securityContext", "capabilities", "drop", 0) != "ALL" {
		t.Errorf("container securityContext %v: want a read-only root, no privilege escalation, every capability dropped", sc)
	}
	for probe, path := range map[string]string{"livenessProbe": "/healthz", "readinessProbe": "/readyz", "startupProbe": "/healthz"} {
		if c.get(probe, "httpGet", "path") != path || c.get(probe, "httpGet", "port") != "metrics" {
			t.Errorf("%s %v: want GET %s on the metrics port", probe, c.get(probe), path)
		}
	}
	mounts := map[string]bool{}
	mountList, _ := c.get("volumeMounts").([]any)
	for i := range mountList {
		p, _ := c.get("volumeMounts", i, "mountPath").(string)
		mounts[p] = true
	}
	for _, p := range []string{"/data", "/tmp", "/etc/graphwire/config"} {
		if !mounts[p] {
			t.Errorf("nothing mounted at %s (read-only root): %v", p, mounts)
		}
	}
}

// checkConfig resolves the rendered graphwire.yaml with the container's environment, as serve
// would, and checks that its key files come from the mounted Secret.
func checkConfig(t *testing.T, objs map[string]manifest) {
	t.Helper()
	text, _ := objs["ConfigMap"].get("data", "graphwire.yaml").(string)
	file := filepath.Join(t.TempDir(), "graphwire.yaml")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	c := objs["Deployment"].sub(t, "spec", "template", "spec", "containers", 0)
	envList, _ := c.get("env").([]any)
	for i := range envList {
		name, _ := c.get("env", i, "name").(string)
		value, _ := c.get("env", i, "value").(string)
		env[name] = value
	}
	if env[serveconfig.ConfigEnv] != "/etc/graphwire/config/graphwire.yaml" {
		t.Errorf("%s=%q, not the mounted ConfigMap", serveconfig.ConfigEnv, env[serveconfig.ConfigEnv])
	}
	cfg, err := serveconfig.Resolve(nil, func(k string) string {
		if k == serveconfig.ConfigEnv {
			return ""
		}
		return env[k]
	}, file)
	if err != nil {
		t.Fatalf("graphwire refuses the chart's config: %v\n%s", err, text)
	}
	if cfg.MetricsListen == "" || cfg.Embedded == "" || !strings.HasPrefix(cfg.Embedded, "/data") {
		t.Errorf("metrics-listen %q, embedded %q: want the probes' listener and a directory on the data volume", cfg.MetricsListen, cfg.Embedded)
	}
	for _, f := range []string{cfg.JWKSFile, cfg.JWTSecretFile} {
		if f == "" {
			continue
		}
		if !strings.HasPrefix(f, "/etc/graphwire/keys/") {
			t.Errorf("key file %s is not in the mounted Secret", f)
		}
		key := filepath.Base(f)
		if s := objs["Secret"]; s != nil && s.get("data", key) == nil {
			t.Errorf("the Secret has no %s", key)
		}
	}
}
