package serveconfig_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/serveconfig"
)

// env returns a getenv over m.
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPrecedence(t *testing.T) {
	file := writeFile(t, "serve.yaml", "jwt-secret-file: /file/secret\nmax-concurrent: 3\nadmission-wait: 3s\nlog-format: text\npprof: true\nmetrics-listen: 127.0.0.1:9100\n")
	tests := []struct {
		name     string
		explicit map[string]string
		env      map[string]string
		file     string
		want     func(c serveconfig.Config) serveconfig.Config
	}{
		{"defaults", map[string]string{"jwt-secret-file": "/s"}, nil, "", func(c serveconfig.Config) serveconfig.Config { return c }},
		{"file over default", nil, nil, file, func(c serveconfig.Config) serveconfig.Config {
			c.JWTSecretFile, c.Admission.MaxConcurrent, c.Admission.Wait, c.LogFormat = "/file/secret", 3, 3*time.Second, "text"
			c.PProf, c.MetricsListen = true, "127.0.0.1:9100"
			return c
		}},
		{"redaction from the environment", map[string]string{"jwt-secret-file": "/s"},
			map[string]string{"GRAPHWIRE_REDACT_URL": "http://127.0.0.1:9800/v1/authorize", "GRAPHWIRE_REDACT_CACHE_TTL": "-1s"}, "",
			func(c serveconfig.Config) serveconfig.Config {
				c.RedactURL, c.RedactCacheTTL = "http://127.0.0.1:9800/v1/authorize", -time.Second
				return c
			}},
		{"env over file", nil, map[string]string{"GRAPHWIRE_MAX_CONCURRENT": "5", "GRAPHWIRE_PPROF": "false"}, file, func(c serveconfig.Config) serveconfig.Config {
			c.JWTSecretFile, c.Admission.MaxConcurrent, c.Admission.Wait, c.LogFormat = "/file/secret", 5, 3*time.Second, "text"
			c.MetricsListen = "127.0.0.1:9100"
			return c
		}},
		{"flag over env", map[string]string{"max-concurrent": "7", "jwt-secret-file": "/flag"}, map[string]string{"GRAPHWIRE_MAX_CONCURRENT": "5", "GRAPHWIRE_JWT_SECRET_FILE": "/env"}, file,
			func(c serveconfig.Config) serveconfig.Config {
				c.JWTSecretFile, c.Admission.MaxConcurrent, c.Admission.Wait, c.LogFormat = "/flag", 7, 3*time.Second, "text"
				c.PProf, c.MetricsListen = true, "127.0.0.1:9100"
				return c
			}},
		{"empty env is unset", nil, map[string]string{"GRAPHWIRE_MAX_CONCURRENT": ""}, file, func(c serveconfig.Config) serveconfig.Config {
			c.JWTSecretFile, c.Admission.MaxConcurrent, c.Admission.Wait, c.LogFormat = "/file/secret", 3, 3*time.Second, "text"
			c.PProf, c.MetricsListen = true, "127.0.0.1:9100"
			return c
		}},
		{"file from GRAPHWIRE_CONFIG", nil, map[string]string{"GRAPHWIRE_CONFIG": file}, "", func(c serveconfig.Config) serveconfig.Config {
			c.JWTSecretFile, c.Admission.MaxConcurrent, c.Admission.Wait, c.LogFormat = "/file/secret", 3, 3*time.Second, "text"
			c.PProf, c.MetricsListen = true, "127.0.0.1:9100"
			return c
		}},
	}
	base := serveconfig.Config{
		Listen: "127.0.0.1:7447", JWTSecretFile: "/s", JWTAudience: "graphwire",
		JWKSRefresh: 10 * time.Minute, JWKSMinRefresh: 30 * time.Second, JWKSTimeout: 10 * time.Second, JWTClockSkew: time.Minute,
		JWTUserClaim: "sub", JWTScopesClaim: "scopes", JWTAdminClaim: "admin",
		HealthInterval: 5 * time.Second, ShutdownGrace: 10 * time.Second,
		LogLevel: "info", LogFormat: "json", KeepaliveTime: 2 * time.Hour, KeepaliveTimeout: 20 * time.Second,
		MaxRecvMsgSize: serveconfig.DefaultMaxRecvMsgSize, MaxConcurrentStreams: 100,
		KeepaliveMinTime: 5 * time.Minute, GRPCMaxConnectionIdle: 5 * time.Minute, ReadHeaderTimeout: 10 * time.Second,
		HTTPReadTimeout: 30 * time.Second, HTTPWriteTimeout: time.Minute, HTTPIdleTimeout: 2 * time.Minute, EngineFDReserve: 1024,
		MCPTools: "graphwire", RedactTimeout: 2 * time.Second, RedactCacheTTL: 30 * time.Second, RedactBatchSize: 500, RedactCacheEntries: 10000, RedactCacheCallers: 1024, MergeIdle: 10 * time.Second,
		GraphCacheMB: 128,
	}
	base.Admission.MaxConcurrent, base.Admission.Wait = 4, time.Second
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := serveconfig.Resolve(tt.explicit, env(tt.env), tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want(base), got); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEnvNames(t *testing.T) {
	want := map[string]string{"listen": "GRAPHWIRE_LISTEN", "jwt-secret-file": "GRAPHWIRE_JWT_SECRET_FILE",
		"max-concurrent-streams": "GRAPHWIRE_MAX_CONCURRENT_STREAMS", "tls-client-ca": "GRAPHWIRE_TLS_CLIENT_CA"}
	seen := map[string]bool{}
	for _, o := range serveconfig.Options() {
		if w, ok := want[o.Name]; ok && o.Env() != w {
			t.Errorf("%s: env %s, want %s", o.Name, o.Env(), w)
		}
		if seen[o.Env()] {
			t.Errorf("two options share %s", o.Env())
		}
		seen[o.Env()] = true
	}
}

// TestIdentitySources: a JWKS file or URL stands in for the HS256 key file,
// and an http JWKS URL is taken only on loopback.
func TestIdentitySources(t *testing.T) {
	for _, explicit := range []map[string]string{
		{"jwks-file": "/etc/graphwire/jwks.json"},
		{"jwks-url": "https://idp.example/oauth/discovery/keys"},
		{"jwks-url": "http://127.0.0.1:8080/jwks.json"},
		{"jwks-url": "http://[::1]:8080/jwks.json"},
		{"jwks-url": "http://localhost/jwks.json", "jwt-secret-file": "/s"},
	} {
		c, err := serveconfig.Resolve(explicit, nil, "")
		if err != nil {
			t.Errorf("%v: %v", explicit, err)
			continue
		}
		if c.JWKSRefresh != 10*time.Minute || c.JWKSMinRefresh != 30*time.Second || c.JWTClockSkew != time.Minute ||
			c.JWTUserClaim != "sub" || c.JWTScopesClaim != "scopes" || c.JWTAdminClaim != "admin" {
			t.Errorf("%v: defaults %+v", explicit, c)
		}
	}
}

func TestErrors(t *testing.T) {
	secret := map[string]string{"jwt-secret-file": "/s"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{"jwt-secret-file": "/s"}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name       string
		explicit   map[string]string
		env        map[string]string
		file       string // text of the config file, "" for none
		wantSource string // "FILE" stands for the config file's path
		wantOption string
		wantErr    error
	}{
		{"unknown flag", with("no-such", "1"), nil, "", "--no-such", "", serveconfig.ErrUnknownOption},
		{"unknown file key", secret, nil, "listen: 127.0.0.1:1\n\nlisten-adress: x\n", "FILE:3", "listen-adress", serveconfig.ErrUnknownOption},
		{"repeated file key", secret, nil, "listen: 127.0.0.1:1\nlisten: 127.0.0.1:2\n", "FILE:2", "listen", serveconfig.ErrInvalidFile},
		{"file not a mapping", secret, nil, "- listen\n", "FILE:1", "", serveconfig.ErrInvalidFile},
		{"second document", secret, nil, "listen: 127.0.0.1:1\n\n---\nlisten: 0.0.0.0:1\n", "FILE:3", "", serveconfig.ErrInvalidFile},
		{"empty second document", secret, nil, "# serve\n---\nlisten: 127.0.0.1:1\n...\n---\n", "FILE:5", "", serveconfig.ErrInvalidFile},
		{"file over the size limit", secret, nil, "listen: 127.0.0.1:1\n#" + strings.Repeat("x", serveconfig.MaxFileBytes) + "\n", "FILE", "", serveconfig.ErrInvalidFile},
		{"file list value", secret, nil, "listen: [a, b]\n", "FILE:1", "listen", serveconfig.ErrInvalidValue},
		{"file bad int", secret, nil, "\nmax-concurrent: many\n", "FILE:2", "max-concurrent", serveconfig.ErrInvalidValue},
		{"env bad duration", secret, map[string]string{"GRAPHWIRE_ADMISSION_WAIT": "soon"}, "", "GRAPHWIRE_ADMISSION_WAIT", "admission-wait", serveconfig.ErrInvalidValue},
		{"flag bad bool", with("plaintext", "maybe"), nil, "", "--plaintext", "plaintext", serveconfig.ErrInvalidValue},
		{"no secret", nil, nil, "", "", "jwt-secret-file", serveconfig.ErrInvalid},
		{"jwks file and url", with("jwks-file", "/j", "jwks-url", "https://idp.example/jwks"), nil, "", "", "jwks-url", serveconfig.ErrInvalid},
		{"jwks url over plain http", with("jwks-url", "http://idp.example/jwks"), nil, "", "--jwks-url", "jwks-url", serveconfig.ErrInvalid},
		{"jwks url not a URL", with("jwks-url", "idp.example/jwks"), nil, "", "--jwks-url", "jwks-url", serveconfig.ErrInvalid},
		{"zero jwks refresh", with("jwks-url", "https://idp.example/jwks", "jwks-min-refresh", "0s"), nil, "", "--jwks-min-refresh", "jwks-min-refresh", serveconfig.ErrInvalid},
		{"resource url with a fragment", with("mcp-resource-url", "https://gw.example/mcp#x"), nil, "", "--mcp-resource-url", "mcp-resource-url", serveconfig.ErrInvalid},
		{"resource url relative", with("mcp-resource-url", "/mcp"), nil, "", "--mcp-resource-url", "mcp-resource-url", serveconfig.ErrInvalid},
		{"zero clock skew", with("jwt-clock-skew", "0s"), nil, "", "--jwt-clock-skew", "jwt-clock-skew", serveconfig.ErrInvalid},
		{"unknown mcp tools", with("mcp-tools", "lazy"), nil, "", "--mcp-tools", "mcp-tools", serveconfig.ErrInvalid},
		{"redact url not a URL", with("redact-url", "127.0.0.1:9800"), nil, "", "--redact-url", "redact-url", serveconfig.ErrInvalid},
		{"zero redact timeout", with("redact-url", "http://127.0.0.1:9800/", "redact-timeout", "0s"), nil, "", "--redact-timeout", "redact-timeout", serveconfig.ErrInvalid},
		{"zero redact batch", with("redact-batch-size", "0"), nil, "", "--redact-batch-size", "redact-batch-size", serveconfig.ErrInvalid},
		{"same claim twice", with("jwt-admin-claim", "sub"), nil, "", "", "jwt-user-claim", serveconfig.ErrInvalid},
		{"empty scopes claim", with("jwt-scopes-claim", ""), nil, "", "--jwt-scopes-claim", "jwt-scopes-claim", serveconfig.ErrInvalid},
		{"both engines", with("embedded", "d", "clickhouse", "c"), nil, "", "", "embedded", serveconfig.ErrInvalid},
		{"cert without key", with("tls-cert", "c"), nil, "", "", "tls-cert", serveconfig.ErrInvalid},
		{"ca without cert", with("tls-client-ca", "ca"), nil, "", "", "tls-client-ca", serveconfig.ErrInvalid},
		{"plaintext and tls", with("tls-cert", "c", "tls-key", "k", "plaintext", "true"), nil, "", "", "plaintext", serveconfig.ErrInvalid},
		{"public plaintext", with("listen", "0.0.0.0:7447"), nil, "", "--listen", "listen", serveconfig.ErrInvalid},
		{"all interfaces plaintext", with("listen", ":7447"), nil, "", "--listen", "listen", serveconfig.ErrInvalid},
		{"public mcp plaintext", with("mcp-listen", "192.0.2.1:8080"), nil, "", "--mcp-listen", "mcp-listen", serveconfig.ErrInvalid},
		{"pprof without metrics", with("pprof", "true"), nil, "", "", "pprof", serveconfig.ErrInvalid},
		{"log level", with("log-level", "verbose"), nil, "", "--log-level", "log-level", serveconfig.ErrInvalid},
		{"log format", with("log-format", "xml"), nil, "", "--log-format", "log-format", serveconfig.ErrInvalid},
		{"negative streams", with("max-concurrent-streams", "-1"), nil, "", "--max-concurrent-streams", "max-concurrent-streams", serveconfig.ErrInvalid},
		{"zero read timeout", with("http-read-timeout", "0s"), nil, "", "--http-read-timeout", "http-read-timeout", serveconfig.ErrInvalid},
		{"negative connections", with("max-connections", "-1"), nil, "", "--max-connections", "max-connections", serveconfig.ErrInvalid},
		{"negative reserve", with("engine-fd-reserve", "-1"), nil, "", "--engine-fd-reserve", "engine-fd-reserve", serveconfig.ErrInvalid},
		{"negative merge idle", with("merge-idle", "-5s"), nil, "", "--merge-idle", "merge-idle", serveconfig.ErrInvalid},
		{"negative graph cache", with("graph-cache-mb", "-1"), nil, "", "--graph-cache-mb", "graph-cache-mb", serveconfig.ErrInvalid},
		// Its bytes (MiB << 20) overflow int64 past 8796093022207: 2^43 turned the cache off
		// silently, 2^44+1 made it 1 MiB.
		{"graph cache over 1 TiB", with("graph-cache-mb", "1048577"), nil, "", "--graph-cache-mb", "graph-cache-mb", serveconfig.ErrInvalid},
		{"graph cache overflowing", with("graph-cache-mb", "17592186044417"), nil, "", "--graph-cache-mb", "graph-cache-mb", serveconfig.ErrInvalid},
		// A rule over one option's value names where the value came from, as a parse error does.
		{"graph cache over 1 TiB in the file", secret, nil, "listen: 127.0.0.1:1\ngraph-cache-mb: 2000000\n", "FILE:2", "graph-cache-mb", serveconfig.ErrInvalid},
		{"zero keepalive timeout in the env", secret, map[string]string{"GRAPHWIRE_KEEPALIVE_TIMEOUT": "0s"}, "", "GRAPHWIRE_KEEPALIVE_TIMEOUT", "keepalive-timeout", serveconfig.ErrInvalid},
		{"flag over env and file", with("max-per-caller", "-2"), map[string]string{"GRAPHWIRE_MAX_PER_CALLER": "3"}, "max-per-caller: 4\n", "--max-per-caller", "max-per-caller", serveconfig.ErrInvalid},
		{"env over file", secret, map[string]string{"GRAPHWIRE_REDACT_CACHE_CALLERS": "0"}, "redact-cache-callers: 4\n", "GRAPHWIRE_REDACT_CACHE_CALLERS", "redact-cache-callers", serveconfig.ErrInvalid},
		// A rule between options names no source.
		{"cluster without clickhouse in the file", secret, nil, "cluster: c\n", "", "cluster", serveconfig.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := ""
			if tt.file != "" {
				path = writeFile(t, "serve.yaml", tt.file)
			}
			_, err := serveconfig.Resolve(tt.explicit, env(tt.env), path)
			var ce *serveconfig.Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v, want a *serveconfig.Error", err)
			}
			wantSource := tt.wantSource
			if len(wantSource) >= 4 && wantSource[:4] == "FILE" {
				wantSource = path + wantSource[4:]
			}
			if ce.Source != wantSource || ce.Option != tt.wantOption || !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v = {Source %q Option %q}, want {%q %q} wrapping %v", err, ce.Source, ce.Option, wantSource, tt.wantOption, tt.wantErr)
			}
		})
	}
}

// TestFileSize: a config file over MaxFileBytes is refused with its size, by its size alone
// when it is a regular file (a sparse 200 MB file is not read), and after MaxFileBytes+1 bytes
// when it is a pipe.
func TestFileSize(t *testing.T) {
	big := filepath.Join(t.TempDir(), "serve.yaml")
	if err := os.WriteFile(big, []byte("listen: 127.0.0.1:1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 200<<20); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(t.TempDir(), "serve.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			done <- err
			return
		}
		defer f.Close()
		line := []byte("# " + strings.Repeat("x", 1021) + "\n")
		for range serveconfig.MaxFileBytes/len(line) + 2 { // bounded: just over the limit
			if _, err := f.Write(line); err != nil {
				break // the reader stopped at the limit and closed the pipe
			}
		}
		done <- nil
	}()
	tests := []struct {
		name, path, want string
	}{
		{"regular file", big, "serveconfig: " + big + ": invalid config file: 209715200 bytes, over the limit of 1048576 bytes"},
		{"pipe", fifo, "serveconfig: " + fifo + ": invalid config file: more than 1048576 bytes, over the limit of 1048576 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := serveconfig.Resolve(map[string]string{"jwt-secret-file": "/s"}, nil, tt.path)
			if err == nil || err.Error() != tt.want || !errors.Is(err, serveconfig.ErrInvalidFile) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestPlaintextAllowed(t *testing.T) {
	tests := []map[string]string{
		{"listen": "127.0.0.1:7447"},
		{"listen": "[::1]:7447", "mcp-listen": "localhost:8080"},
		{"listen": "0.0.0.0:7447", "plaintext": "true"},
		{"listen": "0.0.0.0:7447", "tls-cert": "c", "tls-key": "k"},
	}
	for _, explicit := range tests {
		explicit["jwt-secret-file"] = "/s"
		if _, err := serveconfig.Resolve(explicit, nil, ""); err != nil {
			t.Errorf("%v: %v", explicit, err)
		}
	}
}

func TestFlagValue(t *testing.T) {
	explicit := map[string]string{}
	for _, o := range serveconfig.Options() {
		v := serveconfig.NewFlagValue(o, explicit)
		if v.String() != o.Default {
			t.Errorf("%s: unset value %q, want the default %q", o.Name, v.String(), o.Default)
		}
		if v.IsBoolFlag() != (o.Kind == serveconfig.Bool) || v.Type() != o.Kind.String() {
			t.Errorf("%s: IsBoolFlag %t, Type %s for kind %v", o.Name, v.IsBoolFlag(), v.Type(), o.Kind)
		}
	}
	o := serveconfig.Options()[0]
	if err := serveconfig.NewFlagValue(o, explicit).Set("x"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{o.Name: "x"}, explicit); diff != "" {
		t.Errorf("explicit (-want +got):\n%s", diff)
	}
}

func TestReadKeys(t *testing.T) {
	tests := []struct {
		name, text string
		want       []serveconfig.Key
		wantErr    error
	}{
		{"one secret", "s3cr3t\n", []serveconfig.Key{{Secret: []byte("s3cr3t")}}, nil},
		{"rotation", "# keys\nold\tAAAA\n\nnew BBBB\nCCCC\n", []serveconfig.Key{{"old", []byte("AAAA")}, {"new", []byte("BBBB")}, {"", []byte("CCCC")}}, nil},
		{"empty", "# nothing\n", nil, serveconfig.ErrInvalidFile},
		{"three fields", "a b c\n", nil, serveconfig.ErrInvalidFile},
		{"repeated id", "k A\nk B\n", nil, serveconfig.ErrInvalidFile},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := serveconfig.ReadKeys(writeFile(t, "keys", tt.text))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
		})
	}
}
