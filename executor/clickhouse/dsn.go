package clickhouse

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// DSNError is a DSN that names no server graphwire can use: it does not parse, its scheme is
// not one of clickhouse://, tcp://, http:// and https://, it has no host, its port is not a
// number from 1 to 65535, or the driver refuses its parameters. DSN is the DSN with any
// password removed. graphwire's commands exit with status 2 (usage) on it.
type DSNError struct {
	DSN    string
	Reason string
	Err    error // the parser's error, if any
}

func (e *DSNError) Error() string { return "clickhouse DSN " + e.DSN + ": " + e.Reason }
func (e *DSNError) Unwrap() error { return e.Err }

// Schemes maps each DSN scheme graphwire accepts to the protocol it selects.
var schemes = map[string]string{
	"clickhouse": "native",
	"tcp":        "native",
	"http":       "HTTP",
	"https":      "HTTP over TLS",
}

const noScheme = "no scheme: want clickhouse://HOST:PORT/DATABASE (native protocol), tcp://, http:// or https://"

// checkDSN validates dsn and returns it as the driver should read it: https:// implies TLS
// (the driver would otherwise want ?secure=true as well), the scheme in lower case.
func checkDSN(dsn string) (string, error) {
	if !strings.Contains(dsn, "://") {
		return "", &DSNError{DSN: redactDSN(dsn), Reason: noScheme}
	}
	u, err := url.Parse(dsn)
	if err != nil {
		// url.Error repeats the whole DSN, password included: keep only its reason.
		var ue *url.Error
		reason := err.Error()
		if errors.As(err, &ue) {
			reason = ue.Err.Error()
		}
		return "", &DSNError{DSN: redactDSN(dsn), Reason: reason, Err: err}
	}
	shown := u.Redacted()
	scheme := strings.ToLower(u.Scheme)
	if _, ok := schemes[scheme]; !ok {
		reason := fmt.Sprintf("unknown scheme %q: want clickhouse:// or tcp:// (native protocol, port 9000), http:// (port 8123) or https:// (port 8443)", u.Scheme)
		if u.Scheme == "" {
			reason = noScheme
		}
		return "", &DSNError{DSN: shown, Reason: reason}
	}
	u.Scheme = scheme
	if u.Hostname() == "" && u.Query().Get("hosts") == "" {
		return "", &DSNError{DSN: shown, Reason: "no host: want " + scheme + "://HOST:PORT/DATABASE"}
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", &DSNError{DSN: shown, Reason: fmt.Sprintf("port %q: want a number from 1 to 65535", p)}
		}
	}
	if scheme == "https" && !u.Query().Has("secure") {
		q := u.Query()
		q.Set("secure", "true")
		u.RawQuery = q.Encode()
	}
	return u.String(), nil
}

// redactDSN hides what may be a password in a DSN that does not parse as a URL: everything
// between "://" and the last "@".
func redactDSN(dsn string) string {
	scheme, rest, ok := strings.Cut(dsn, "://")
	if !ok {
		scheme, rest = "", dsn
	} else {
		scheme += "://"
	}
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		return scheme + "xxxxx" + rest[at:]
	}
	return dsn
}
