package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
)

// readBound bounds every wait of these tests for the server to answer or close a socket.
// The server's timeouts under test are at most a few seconds; a wait that reaches this
// bound means the server held the socket.
const readBound = 30 * time.Second

// unauthenticatedPost is a POST /mcp without a token, written by hand so the socket stays
// in the test's hands.
func unauthenticatedPost(addr string) string {
	body := initializeBody("2025-06-18")
	return "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\nContent-Length: " + fmt.Sprint(len(body)) + "\r\n\r\n" + body
}

// closedByPeer reads c until the server closes it or readBound passes, and reports
// whether the server closed it.
func closedByPeer(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(readBound))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	return true
}

// TestConnectionFloodLeavesRoom runs the real server with its descriptor limit lowered to
// 400 (hard and soft, in the shell that execs it) and opens 400 sockets that never
// authenticate: half to MCP, each sending a POST without a token, reading the 401 and
// keeping the socket; half to gRPC, sending nothing. Before the fix that was enough to
// exhaust the descriptors: a second user's MCP initialize timed out, its gRPC query failed
// with DEADLINE_EXCEEDED, and the log filled with "accept4: too many open files". Now the
// server closes the 401's socket, bounds the unauthenticated connections (closing the
// oldest for each newcomer) and keeps descriptors for the engine, so the second user gets
// its MCP initialize and a query over MCP and over gRPC answered.
func TestConnectionFloodLeavesRoom(t *testing.T) {
	const limit, flood = 400, 400
	s := startServeWrapped(t, []string{"sh", "-c", fmt.Sprintf(`ulimit -n %d && exec "$0" "$@"`, limit)}, nil,
		"--jwt-secret-file", keyFile(t), "--mcp-listen", "127.0.0.1:0")
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	dialed, answered := 0, 0
	for i := range flood {
		addr := s.grpc
		if i%2 == 0 {
			addr = s.mcp
		}
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			continue // a full backlog: the flood goes on
		}
		dialed++
		held = append(held, c)
		if addr != s.mcp {
			continue
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.WriteString(c, unauthenticatedPost(addr)); err != nil {
			continue
		}
		if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusUnauthorized {
				answered++
			}
		}
	}
	t.Logf("flood: %d of %d sockets connected, %d answered 401", dialed, flood, answered)

	// The second user, on new connections.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	tok := mint(t, secret, "", admin)
	conn := grpcConn(t, s.grpc, insecure.NewCredentials())
	qctx := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+tok)
	if resp, err := pb.NewQueryServiceClient(conn).ExecuteQuery(qctx, &pb.ExecuteQueryRequest{Query: queries["traversal"]}); err != nil || resp.GetResultJson() == "" {
		t.Errorf("gRPC query during the flood: %v\n%s", err, tail(s.output(), 20))
	}
	ct := &mcp.StreamableClientTransport{Endpoint: "http://" + s.mcp + "/mcp", HTTPClient: &http.Client{Transport: withBearer{tok, &http.Transport{}}},
		DisableStandaloneSSE: true, MaxRetries: -1}
	ms, err := mcp.NewClient(&mcp.Implementation{Name: "graphwire-e2e", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatalf("MCP initialize during the flood: %v\n%s", err, tail(s.output(), 20))
	}
	defer ms.Close()
	if a := callQuery(ctx, t, ms, map[string]any{"query": queries["traversal"], "format": "json"}); a.isError || a.meta.RowCount == 0 {
		t.Errorf("MCP query during the flood: %+v", a)
	}
	if n := strings.Count(s.output(), "too many open files"); n > 0 {
		t.Errorf("the server ran out of descriptors (%d log lines say so)\n%s", n, tail(s.output(), 20))
	}
}

// TestIdleAndSlowConnectionsCut: with short timeouts, the server closes a socket that
// never sends a request (MCP and gRPC), answers a POST without a token with 401 and closes
// the socket, and cuts a request whose body never finishes. Before the fix the 401's
// socket stayed open for good, a silent gRPC socket for two minutes, and a body that
// stopped arriving held its socket as long as the client liked.
func TestIdleAndSlowConnectionsCut(t *testing.T) {
	s := startServe(t, nil, "--jwt-secret-file", keyFile(t), "--mcp-listen", "127.0.0.1:0",
		"--read-header-timeout", "1s", "--http-read-timeout", "2s")
	dial := func(addr string) net.Conn {
		t.Helper()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	for name, addr := range map[string]string{"MCP": s.mcp, "gRPC": s.grpc} {
		if !closedByPeer(dial(addr)) {
			t.Errorf("a silent socket to %s stayed open past %s", name, readBound)
		}
	}

	c := dial(s.mcp)
	io.WriteString(c, unauthenticatedPost(s.mcp))
	c.SetReadDeadline(time.Now().Add(readBound))
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("POST without a token: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !resp.Close {
		t.Errorf("POST without a token: %d, Connection: close %v; want 401 and close", resp.StatusCode, resp.Close)
	}
	if _, err := br.ReadByte(); err == nil || isTimeout(err) {
		t.Errorf("the socket of a 401 stayed open: %v", err)
	}

	// An authenticated POST that promises 1000 bytes and sends 10.
	c = dial(s.mcp)
	tok := mint(t, secret, "", admin)
	io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: "+s.mcp+"\r\nAuthorization: Bearer "+tok+"\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\"")
	if !closedByPeer(c) {
		t.Errorf("a request whose body stopped arriving held its socket past %s", readBound)
	}
}

// isTimeout reports whether err is a deadline passing.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// tail returns the last n lines of text.
func tail(text string, n int) string {
	lines := strings.Split(text, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// TestStreamOutlivesTimeouts: the HTTP read and write timeouts bound a request's arrival
// and each write, not an authenticated exchange as a whole. With a write timeout of 1 s, a
// request whose body takes 2 s to arrive (within the 5 s read timeout) still gets its
// answer: a plain http.Server WriteTimeout counts from the request's headers, so the
// answer's first write failed and the client got no answer. A standalone SSE stream (GET
// /mcp) stays open past both timeouts and ends when its session is deleted.
func TestStreamOutlivesTimeouts(t *testing.T) {
	s := startServe(t, nil, "--jwt-secret-file", keyFile(t), "--mcp-listen", "127.0.0.1:0",
		"--http-read-timeout", "5s", "--http-write-timeout", "1s")
	tok := mint(t, secret, "", admin)
	dial := func() (net.Conn, *bufio.Reader) {
		t.Helper()
		c, err := net.Dial("tcp", s.mcp)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		c.SetReadDeadline(time.Now().Add(readBound))
		return c, bufio.NewReader(c)
	}
	head := "Host: " + s.mcp + "\r\nAuthorization: Bearer " + tok + "\r\nAccept: application/json, text/event-stream\r\n"

	// A slow client: the body's second half comes 2 s after its first (pacing the client,
	// not waiting for the server).
	c, br := dial()
	body := initializeBody("2025-06-18")
	io.WriteString(c, "POST /mcp HTTP/1.1\r\n"+head+"Content-Type: application/json\r\nContent-Length: "+fmt.Sprint(len(body))+"\r\n\r\n"+body[:10])
	time.Sleep(2 * time.Second)
	io.WriteString(c, body[10:])
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("initialize sent over 2 s with a 1 s write timeout: no answer: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize sent over 2 s: %d, session %q", resp.StatusCode, session)
	}
	note := `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	io.WriteString(c, "POST /mcp HTTP/1.1\r\n"+head+"Mcp-Session-Id: "+session+"\r\nContent-Type: application/json\r\nContent-Length: "+fmt.Sprint(len(note))+"\r\n\r\n"+note)
	if resp, err = http.ReadResponse(br, nil); err != nil || resp.StatusCode >= 300 {
		t.Fatalf("initialized: %v %v", resp, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()

	c, br = dial()
	io.WriteString(c, "GET /mcp HTTP/1.1\r\n"+head+"Mcp-Session-Id: "+session+"\r\n\r\n")
	if resp, err = http.ReadResponse(br, nil); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %v %v", resp, err)
	}
	if len(resp.TransferEncoding) == 0 || resp.TransferEncoding[0] != "chunked" {
		t.Fatalf("GET stream: transfer encoding %v, want chunked", resp.TransferEncoding)
	}
	// Six times the write timeout, past the 5 s read timeout too: the stream is still open.
	if streamEnded(c, br, 6*time.Second) {
		t.Fatal("the SSE stream ended within 6 s; the timeouts cut it")
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodDelete, "http://"+s.mcp+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Mcp-Session-Id", session)
	if dr, err := http.DefaultClient.Do(req); err != nil || dr.StatusCode >= 300 {
		t.Fatalf("DELETE session: %v %v", dr, err)
	}
	if !streamEnded(c, br, readBound) {
		t.Errorf("the SSE stream stayed open after its session was deleted")
	}
}

// streamEnded reads the raw chunked body of a response from br (over c) for at most d and
// reports whether it ended: its last chunk arrived or the connection closed.
func streamEnded(c net.Conn, br *bufio.Reader, d time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(d))
	var seen []byte
	for {
		b, err := br.ReadByte()
		if err != nil {
			return !isTimeout(err)
		}
		seen = append(seen, b)
		if bytes.HasSuffix(seen, []byte("\r\n0\r\n\r\n")) || string(seen) == "0\r\n\r\n" {
			return true
		}
	}
}
