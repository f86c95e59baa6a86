package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// TestTransportHints: a plaintext client against a TLS server, and a TLS client against a
// plaintext one, fail as unavailable (exit 7) with gRPC's message and what to change, naming
// query's own flags; a client whose TLS matches the server's gets past the transport (no
// service is registered here, so the call ends unimplemented) with no hint.
func TestTransportHints(t *testing.T) {
	cert, caFile := selfSigned(t)
	tlsAddr := serveGRPC(t, grpc.NewServer(grpc.Creds(credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{cert}}))))
	plainAddr := serveGRPC(t, grpc.NewServer())
	tests := []struct {
		name string
		args []string
		want result
	}{
		{"plaintext client, TLS server", []string{"--server", tlsAddr}, result{exitUnavailable, "",
			"graphwire query: unavailable: connection error: desc = \"error reading server preface: EOF\"; the server may require TLS: " +
				"pass --tls (system CAs), --cacert FILE, or --insecure (testing only), and --cert/--key if it asks for a client certificate\n"}},
		{"TLS client, plaintext server", []string{"--server", plainAddr, "--cacert", caFile}, result{exitUnavailable, "",
			"graphwire query: unavailable: connection error: desc = \"transport: authentication handshake failed: tls: first record does not look like a TLS handshake\"; " +
				"the server speaks plaintext, not TLS: drop --tls, --cacert, --insecure, --cert and --key\n"}},
		{"TLS both", []string{"--server", tlsAddr, "--cacert", caFile}, result{exitFailure, "",
			"graphwire query: unimplemented: unknown service graphwire.v1.QueryService\n"}},
		{"plaintext both", []string{"--server", plainAddr}, result{exitFailure, "",
			"graphwire query: unimplemented: unknown service graphwire.v1.QueryService\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runCLI(append(append([]string{"query", "--token", "x"}, tt.args...), `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1]}]}`)...)
			// The TLS server closes a plaintext connection; the client reads that as EOF or,
			// when the close races its write, as a reset: the same failure, the same hint.
			got.stderr = prefaceReset.ReplaceAllString(got.stderr, "error reading server preface: EOF")
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(result{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func serveGRPC(t *testing.T, s *grpc.Server) string {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(lis)
	t.Cleanup(s.Stop)
	return lis.Addr().String()
}

func selfSigned(t *testing.T) (tls.Certificate, string) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, caFile
}

// prefaceReset is a plaintext client's read of a TLS server's close when it comes as a reset.
var prefaceReset = regexp.MustCompile(`error reading server preface: [^"]*connection reset by peer`)
