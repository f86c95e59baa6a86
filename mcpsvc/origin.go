package mcpsvc

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// originGate decides which browser origins may call the HTTP transport. The MCP
// specification (2025-06-18, transports, "Security Warning") asks servers to validate the
// Origin header of every request against DNS rebinding: a page of another site whose name
// has been made to resolve to this server's address reaches it from the user's browser.
//
// A request without Origin comes from a non-browser client (agents, the SDK, curl) and
// passes. A request with one passes when the origin is a loopback one (http or https on
// localhost, 127.0.0.0/8 or ::1, any port: a tool the user runs on this machine, such as
// the MCP inspector) or one of the allowed list; "*" in the list allows every origin.
// Everything else, "null" too, is refused with 403 before the token is looked at.
//
// An origin equal to the request's own Host is deliberately not accepted by default:
// under DNS rebinding the attacker's page names the attacker's host in both headers, so
// "Origin matches Host" proves nothing. A browser client served from the server's own
// name lists that origin. The Host header itself is checked by the SDK's
// StreamableHTTPHandler (a request that arrives on a loopback address must name a loopback
// host); this check sits next to it, in front of authentication.
type originGate struct {
	any     bool
	allowed map[string]bool // canonical origins: scheme://host[:port], lower case
}

func newOriginGate(allowed []string) originGate {
	g := originGate{allowed: map[string]bool{}}
	for _, o := range allowed {
		if o == "*" {
			g.any = true
			continue
		}
		if c, _, ok := canonicalOrigin(o); ok {
			g.allowed[c] = true
		}
	}
	return g
}

// allows reports whether a request whose Origin header is origin ("" when absent) may
// proceed.
func (g originGate) allows(origin string) bool {
	if origin == "" || g.any {
		return true
	}
	c, host, ok := canonicalOrigin(origin)
	if !ok {
		return false
	}
	return g.allowed[c] || loopbackHost(host)
}

// canonicalOrigin returns origin (RFC 6454: scheme "://" host [":" port]) in lower case
// without a default port, and its host (no port, IPv6 without brackets), or false when it
// is not one (a path, user info, "null").
func canonicalOrigin(origin string) (canon, hostname string, ok bool) {
	u, err := url.Parse(strings.ToLower(strings.TrimSpace(origin)))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", "", false
	}
	hostname = u.Hostname()
	host, port := hostname, u.Port()
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" {
		host = net.JoinHostPort(host, port)
	} else if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return u.Scheme + "://" + host, hostname, true
}

// CheckOrigins reports the first entry of an allowed-origins list that is neither "*" nor
// an origin (scheme://host[:port] with scheme http or https), for the edges to refuse at
// start-up; ok is true when every entry is usable.
func CheckOrigins(allowed []string) (bad string, ok bool) {
	for _, o := range allowed {
		if _, _, valid := canonicalOrigin(o); o != "*" && !valid {
			return o, false
		}
	}
	return "", true
}

// loopbackHost reports whether host (no port, IPv6 without brackets) names this machine.
func loopbackHost(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// refuseOrigin answers a request from an origin that is not allowed.
func refuseOrigin(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	http.Error(w, "Forbidden: origin not allowed (the server accepts loopback origins and those of --mcp-allowed-origins)", http.StatusForbidden)
}
