package mcpsvc

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// protocolHeader is the streamable-HTTP header that names the protocol version of a
// request (MCP 2025-06-18, transports §2.7).
const protocolHeader = "Mcp-Protocol-Version"

// batchVersions are the protocol versions that allow JSON-RPC batches: 2025-06-18 removed
// them, and every later version leaves them out.
var batchVersions = map[string]bool{"2024-11-05": true, "2025-03-26": true}

// refuseBatches answers 400 with a JSON-RPC error to a POST whose body is a JSON-RPC batch
// (a JSON array) unless the request's protocol version allows batches; other requests go
// to next. The version is the one the session named by Mcp-Session-Id negotiated when that
// allows no batches, whatever the Mcp-Protocol-Version header claims; otherwise the header
// when present, else the session's version. A batch that names no session would
// open one, and an initialize must come alone (2025-03-26, lifecycle), so it is refused
// too.
//
// The SDK refuses a batch only when the header names 2025-06-18 or later; a client that
// leaves the header out, as many do after initialize, had its batch accepted on a session
// that negotiated 2025-06-18. Only the leading white space of the body is read here.
//
// Leading white space counts against limit, the body bound: more of it answers 413.
func (s *Server) refuseBatches(limit int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		br := bufio.NewReader(r.Body)
		batch, err := startsArray(br, limit)
		r.Body = struct {
			io.Reader
			io.Closer
		}{br, r.Body}
		if errors.Is(err, errLongSpace) {
			http.Error(w, fmt.Sprintf("request body exceeds %d bytes", limit), http.StatusRequestEntityTooLarge)
			return
		}
		if err != nil || !batch {
			// A read error is the SDK's to report, with the rest of the body.
			next.ServeHTTP(w, r)
			return
		}
		version, from := r.Header.Get(protocolHeader), "the "+protocolHeader+" header"
		// The session's negotiated version rules over the header: a header claiming an
		// older version than the session negotiated does not bring batches back.
		if sv := s.sessionVersion(r.Header.Get(sessionHeader)); sv != "" && (version == "" || !batchVersions[sv]) {
			version, from = sv, "the session's negotiated version"
		}
		if batchVersions[version] {
			next.ServeHTTP(w, r)
			return
		}
		msg := "JSON-RPC batches are not supported: protocol version 2025-06-18 removed them; send one message per request"
		switch {
		case r.Header.Get(sessionHeader) == "" && r.Header.Get(protocolHeader) == "":
			msg = "JSON-RPC batches are not supported here: initialize must be sent alone, and protocol version 2025-06-18 removed batches"
		case version != "":
			msg = fmt.Sprintf("JSON-RPC batches are not supported in protocol version %s (%s): 2025-06-18 removed them; send one message per request", version, from)
		}
		writeRPCError(w, http.StatusBadRequest, codeInvalidRequest, msg)
	})
}

// sessionVersion returns the protocol version the live session id negotiated, "" when
// there is no such session. A client version the SDK does not support was answered with
// the newest one it does, which is after 2025-06-18, so it is returned as the client gave
// it: either way it allows no batches.
func (s *Server) sessionVersion(id string) string {
	if id == "" {
		return ""
	}
	for ss := range s.mcp.Sessions() {
		if ss.ID() != id {
			continue
		}
		if p := ss.InitializeParams(); p != nil {
			return p.ProtocolVersion
		}
		return ""
	}
	return ""
}

// errLongSpace is startsArray's error for more leading white space than the body limit.
var errLongSpace = errors.New("mcpsvc: leading white space exceeds the body limit")

// startsArray reports whether the JSON text in br starts with '[', consuming only the
// white space before the first other byte, at most limit bytes of it.
func startsArray(br *bufio.Reader, limit int64) (bool, error) {
	for n := int64(0); ; n++ {
		if n >= limit {
			return false, errLongSpace
		}
		b, err := br.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return false, nil
			}
			return false, err
		}
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return b == '[', br.UnreadByte()
	}
}

// codeInvalidRequest is JSON-RPC 2.0's "Invalid Request" error code.
const codeInvalidRequest = -32600

// writeRPCError answers with status and a JSON-RPC error response of code and msg, with a
// null id: a refused batch has no single id to answer.
func writeRPCError(w http.ResponseWriter, status int, code int64, msg string) {
	body, _ := json.Marshal(struct {
		JSONRPC string   `json:"jsonrpc"`
		ID      any      `json:"id"`
		Error   rpcError `json:"error"`
	}{"2.0", nil, rpcError{code, msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

type rpcError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}
