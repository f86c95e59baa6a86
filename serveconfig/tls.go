package serveconfig

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
)

// CertLoader holds the TLS material of serve's listeners — the server
// certificate and key, and the client CA when clients must present a
// certificate — and swaps it when [CertLoader.Reload] succeeds. It is safe
// for concurrent use.
type CertLoader struct {
	certFile, keyFile, caFile string
	cur                       atomic.Pointer[material]
}

// material is one loaded set of files.
type material struct {
	cert tls.Certificate
	cas  *x509.CertPool // nil: no client certificates asked for
}

// NewCertLoader reads certFile and keyFile (PEM), and clientCAFile (a PEM
// bundle) unless it is "". It fails when a file cannot be read, holds no
// usable PEM, or the key does not match the certificate.
func NewCertLoader(certFile, keyFile, clientCAFile string) (*CertLoader, error) {
	l := &CertLoader{certFile: certFile, keyFile: keyFile, caFile: clientCAFile}
	if err := l.Reload(); err != nil {
		return nil, err
	}
	return l, nil
}

// Reload reads the files again. On success, connections from then on are
// served with the new certificate and client CA; on failure the old
// material stays in use and the error says which file is wrong.
// Established connections are not affected either way.
func (l *CertLoader) Reload() error {
	cert, err := tls.LoadX509KeyPair(l.certFile, l.keyFile)
	if err != nil {
		return fmt.Errorf("serveconfig: load TLS certificate %s and key %s: %w", l.certFile, l.keyFile, err)
	}
	m := &material{cert: cert}
	if l.caFile != "" {
		pem, err := os.ReadFile(l.caFile)
		if err != nil {
			return fmt.Errorf("serveconfig: read TLS client CA: %w", err)
		}
		m.cas = x509.NewCertPool()
		if !m.cas.AppendCertsFromPEM(pem) {
			return fmt.Errorf("serveconfig: TLS client CA %s: %w", l.caFile, errors.New("no PEM certificate in it"))
		}
	}
	l.cur.Store(m)
	return nil
}

// TLSConfig returns a server configuration that looks up the current
// material for every handshake (tls.Config.GetConfigForClient), so a
// [CertLoader.Reload] applies to the next connection. nextProtos are the
// ALPN protocols offered: "h2" for gRPC, "http/1.1" (and "h2") for HTTP.
// Clients must use TLS 1.2 or later; with a client CA they must present a
// certificate it signed.
func (l *CertLoader) TLSConfig(nextProtos ...string) *tls.Config {
	protos := append([]string(nil), nextProtos...)
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		NextProtos: protos,
		GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
			m := l.cur.Load()
			c := &tls.Config{MinVersion: tls.VersionTLS12, NextProtos: protos, Certificates: []tls.Certificate{m.cert}}
			if m.cas != nil {
				c.ClientCAs = m.cas
				c.ClientAuth = tls.RequireAndVerifyClientCert
			}
			return c, nil
		},
	}
}
