package e2e

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// TestServeHTTPHealth: serve's metrics listener answers /healthz and /readyz for HTTP probes
// and load balancers, and /readyz agrees with the gRPC health service.
func TestServeHTTPHealth(t *testing.T) {
	s := startServe(t, nil, "--jwt-secret-file", keyFile(t), "--metrics-listen", "127.0.0.1:0")
	get := func(path string) (int, string) {
		t.Helper()
		c := http.Client{Timeout: 10 * time.Second}
		resp, err := c.Get("http://" + s.metrics + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	r, err := healthpb.NewHealthClient(grpcConn(t, s.grpc, insecure.NewCredentials())).Check(t.Context(), &healthpb.HealthCheckRequest{})
	if err != nil || r.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("gRPC health: %v %v", r.GetStatus(), err)
	}
	if code, body := get("/readyz"); code != 200 || !strings.HasPrefix(body, "ready") {
		t.Errorf("/readyz while gRPC health is SERVING: %d %q", code, body)
	}
}
