package executortest_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/clickhouse"
)

// serverDSNs returns the native and HTTP DSNs of the test server (scripts/clickhouse-server.sh
// --env); without them the test skips, or fails under CI=true.
func serverDSNs(t *testing.T) (native, httpDSN string) {
	t.Helper()
	native, httpDSN = os.Getenv("GRAPHWIRE_CLICKHOUSE_DSN"), os.Getenv("GRAPHWIRE_CLICKHOUSE_HTTP_DSN")
	if native == "" || httpDSN == "" {
		missing(t, "GRAPHWIRE_CLICKHOUSE_DSN and GRAPHWIRE_CLICKHOUSE_HTTP_DSN are not set (run: source <(bash scripts/clickhouse-server.sh --env))")
	}
	return native, httpDSN
}

// tlsProxy is a loopback HTTPS reverse proxy in front of the server's HTTP port, counting the
// requests that came over TLS: clickhouse-local (the test server) opens no HTTPS listener
// ("SYSTEM START LISTEN in clickhouse-local supports only TCP and HTTP listeners").
func tlsProxy(t *testing.T, httpDSN string) (addr string, overTLS *atomic.Int64) {
	t.Helper()
	u, err := url.Parse(httpDSN)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: u.Host})
	overTLS = new(atomic.Int64)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS != nil {
			overTLS.Add(1)
		}
		// clickhouse-go asks for TLS client-certificate authentication over https:// when
		// the user has no password (the test server's default user has none); the server
		// behind this proxy sees plain HTTP, so the proxy drops that header, as a
		// TLS-terminating proxy that did the certificate check would.
		r.Header.Del("X-ClickHouse-SSL-Certificate-Auth")
		proxy.ServeHTTP(w, r)
	}))
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String(), overTLS
}

// TestDSNSchemes: each scheme reaches the server over the protocol it names, as the server
// itself reports it (system.processes.interface: 1 native TCP, 2 HTTP); https:// goes over
// TLS, through a loopback TLS reverse proxy in front of the HTTP port (see tlsProxy), and
// without ?secure=true: the scheme says TLS. An https:// DSN refuses a certificate it cannot
// verify unless the DSN says skip_verify=true.
func TestDSNSchemes(t *testing.T) {
	native, httpDSN := serverDSNs(t)
	proxyAddr, overTLS := tlsProxy(t, httpDSN)
	tcp := "tcp://" + strings.TrimPrefix(native, "clickhouse://")
	tests := []struct {
		scheme, dsn string
		iface       int64
	}{
		{"clickhouse", native, 1},
		{"tcp", tcp, 1},
		{"http", httpDSN, 2},
		{"https", "https://" + proxyAddr + "/default?skip_verify=true", 2},
		{"HTTP upper case", strings.Replace(httpDSN, "http://", "HTTP://", 1), 2},
	}
	for _, tt := range tests {
		t.Run(tt.scheme, func(t *testing.T) {
			before := overTLS.Load()
			e := openClickHouse(t, tt.dsn)
			rows, err := executor.CollectRows(t.Context(), e, &compiler.Query{
				SQL: "SELECT toInt64(interface), version() FROM system.processes WHERE query_id = queryID()"})
			if err != nil {
				t.Fatalf("%s: %v", tt.dsn, err)
			}
			if len(rows.Values) != 1 || rows.Values[0][0] != tt.iface {
				t.Fatalf("%s: system.processes says %v, want interface %d", tt.dsn, rows.Values, tt.iface)
			}
			if got := overTLS.Load() - before; (tt.scheme == "https") != (got > 0) {
				t.Errorf("%s: %d requests over TLS through the proxy", tt.dsn, got)
			}
		})
	}
	t.Run("https unverified certificate", func(t *testing.T) {
		e := openClickHouse(t, "https://"+proxyAddr+"/default")
		err := e.Ping(t.Context())
		if !errors.Is(err, executor.ErrUnavailable) || !strings.Contains(err.Error(), "certificate") {
			t.Fatalf("Ping = %v, want ErrUnavailable naming the certificate", err)
		}
	})
}

// TestDSNTypos: a DSN that names no usable server is refused by Open, before any connection,
// with a *clickhouse.DSNError saying what is wrong (graphwire exits 2 on it) and never the
// password.
func TestDSNTypos(t *testing.T) {
	tests := []struct{ dsn, reason string }{
		{"postgres://127.0.0.1:9000/default", `unknown scheme "postgres"`},
		{"clickhose://127.0.0.1:9000/default", `unknown scheme "clickhose"`},
		{"127.0.0.1:9000", "no scheme"},
		{"user:s3cret@127.0.0.1:9000", "no scheme"},
		{"localhost/default", "no scheme"},
		{"clickhouse:///default", "no host"},
		{"http://:8123/default", "no host"},
		{"clickhouse://127.0.0.1:99999/default", `port "99999"`},
		{"clickhouse://127.0.0.1:0/default", `port "0"`},
		{"clickhouse://user:s3cret@127.0.0.1:90x0/default", "invalid port"},
		{"http://127.0.0.1:8123/default?secure=true", "http with TLS"},
		{"https://127.0.0.1:8443/default?secure=false", "https without TLS"},
		{"clickhouse://user:s3cret@127.0.0.1:9000/default?dial_timeout=soon", "dial timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.dsn, func(t *testing.T) {
			e, err := clickhouse.Open(clickhouse.Options{DSN: tt.dsn})
			if err == nil {
				e.Close()
				t.Fatalf("Open(%q) succeeded", tt.dsn)
			}
			var de *clickhouse.DSNError
			if !errors.As(err, &de) || !strings.Contains(err.Error(), tt.reason) {
				t.Fatalf("Open(%q) = %v, want a DSNError saying %s", tt.dsn, err, tt.reason)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("the error shows the password: %v", err)
			}
		})
	}
}

// TestNotClickHouse: a DSN pointing at something that is not ClickHouse — a plain HTTP server,
// a TCP port that speaks another protocol, one that accepts and never answers, ClickHouse's
// HTTP port under a native scheme and its native port under http:// — gets ErrUnavailable
// saying the server does not answer as ClickHouse, and which port each scheme wants, within
// the dial timeout, not a hang. The context has no deadline: the executor must stop by itself.
func TestNotClickHouse(t *testing.T) {
	plain := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(plain.Close)
	serve := func(handle func(net.Conn)) string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		go func() {
			var held []net.Conn
			defer func() {
				for _, c := range held {
					c.Close()
				}
			}()
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				held = append(held, c)
				handle(c)
			}
		}()
		return l.Addr().String()
	}
	ssh := serve(func(c net.Conn) { c.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n")) })
	silent := serve(func(net.Conn) {})
	type tc struct{ name, dsn string }
	tests := []tc{
		{"plain HTTP server, native", "clickhouse://" + plain.Listener.Addr().String() + "/default"},
		{"plain HTTP server, http", "http://" + plain.Listener.Addr().String() + "/default"},
		{"SSH banner, native", "tcp://" + ssh + "/default"},
		{"SSH banner, http", "http://" + ssh + "/default"},
		{"silent port, native", "clickhouse://" + silent + "/default"},
		{"silent port, http", "http://" + silent + "/default"},
	}
	if native, httpDSN := os.Getenv("GRAPHWIRE_CLICKHOUSE_DSN"), os.Getenv("GRAPHWIRE_CLICKHOUSE_HTTP_DSN"); native != "" && httpDSN != "" {
		n, _ := url.Parse(native)
		h, _ := url.Parse(httpDSN)
		tests = append(tests,
			tc{"ClickHouse HTTP port, native", "clickhouse://" + h.Host + "/default"},
			tc{"ClickHouse native port, http", "http://" + n.Host + "/default"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, err := clickhouse.Open(clickhouse.Options{DSN: tt.dsn, DialTimeout: 2 * time.Second})
			if err != nil {
				t.Fatalf("open %s: %v", tt.dsn, err)
			}
			defer e.Close()
			err = e.Ping(context.Background())
			host := strings.SplitN(strings.SplitN(tt.dsn, "://", 2)[1], "/", 2)[0]
			if !errors.Is(err, executor.ErrUnavailable) || !strings.Contains(err.Error(), host+" does not answer as") {
				t.Fatalf("Ping(%s) = %v, want ErrUnavailable saying %s does not answer as ClickHouse", tt.dsn, err, host)
			}
		})
	}
}
