package mcpsvc

import (
	"encoding/json"
	"net/http"
	"strings"
)

// ResourceMetadataPath is where [Server.ResourceMetadataHandler] is served for the MCP
// endpoint at /mcp: RFC 9728 §3.1 inserts the well-known path between the host and the
// endpoint's path. Clients that look at the host's root instead find the same document at
// [ResourceMetadataRootPath].
const (
	ResourceMetadataPath     = "/.well-known/oauth-protected-resource/mcp"
	ResourceMetadataRootPath = "/.well-known/oauth-protected-resource"
)

// resourceMetadata is the OAuth protected-resource metadata (RFC 9728 §2) MCP clients read
// to find the authorization server that issues this server's tokens.
type resourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers,omitempty"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceName           string   `json:"resource_name"`
}

// resourceURL is the MCP endpoint's URL: Options.ResourceURL, else the request's own
// scheme and host with /mcp, which is right for a client that reaches the server directly.
func (s *Server) resourceURL(r *http.Request) string {
	if s.opts.ResourceURL != "" {
		return s.opts.ResourceURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + "/mcp"
}

// metadataURL is the URL of the resource metadata of the endpoint at resource: the
// well-known path inserted after the host (RFC 9728 §3.1).
func metadataURL(resource string) string {
	scheme, rest, ok := strings.Cut(resource, "://")
	if !ok {
		return resource
	}
	host, path, _ := strings.Cut(rest, "/")
	u := scheme + "://" + host + ResourceMetadataRootPath
	if path != "" {
		u += "/" + path
	}
	return u
}

// ResourceMetadataHandler serves the OAuth protected-resource metadata of the MCP endpoint
// (RFC 9728): the resource's URL, Options.AuthorizationServers, and that tokens go in the
// Authorization header. It needs no token; a 401 from [Server.HTTPHandler] points at it in
// its WWW-Authenticate header's resource_metadata parameter, as the MCP authorization
// specification asks, so that a client can find where to get a token.
func (s *Server) ResourceMetadataHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*") // public, for browser-based clients
		switch r.Method {
		case http.MethodGet, http.MethodHead:
		case http.MethodOptions:
			w.Header().Set("Access-Control-Allow-Methods", "GET, OPTIONS")
			w.WriteHeader(http.StatusNoContent)
			return
		default:
			w.Header().Set("Allow", "GET, HEAD, OPTIONS")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		b, err := json.Marshal(resourceMetadata{Resource: s.resourceURL(r), AuthorizationServers: s.opts.AuthorizationServers,
			BearerMethodsSupported: []string{"header"}, ResourceName: "graphwire"})
		if err != nil {
			http.Error(w, "metadata", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(append(b, '\n'))
	})
}
