package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/telemetry"
)

// TestHTTPHealth: /healthz answers 200 while the process serves; /readyz follows the
// readiness it is given — 200 when ready, 503 with the reason when not — and neither
// answers another method.
func TestHTTPHealth(t *testing.T) {
	m, err := telemetry.New(telemetry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ready, reason := true, ""
	srv := httptest.NewServer(metricsHandler(m, false, func() (bool, string) { return ready, reason }))
	defer srv.Close()
	get := func(method, path string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("GET", "/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	if code, body := get("GET", "/readyz"); code != 200 || body != "ready\n" {
		t.Errorf("/readyz, ready: %d %q", code, body)
	}
	ready, reason = false, "executor: unavailable: no graph\nsecond line"
	if code, body := get("GET", "/readyz"); code != 503 || !strings.HasPrefix(body, "not ready: executor: unavailable: no graph") || strings.Count(body, "\n") != 1 {
		t.Errorf("/readyz, not ready: %d %q, want 503 and the reason on one line", code, body)
	}
	if code, _ := get("GET", "/healthz"); code != 200 {
		t.Errorf("/healthz while not ready: %d, want 200 (alive)", code)
	}
	if code, _ := get("POST", "/readyz"); code != http.StatusMethodNotAllowed {
		t.Errorf("POST /readyz: %d, want 405", code)
	}
}
