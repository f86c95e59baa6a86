package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/grpcsvc"
	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
)

// bigAnswer is an admin traversal whose raw JSON answer is far larger than what
// HTTP/2 flow control lets the server put on the wire before the client
// reads: the stream window (64 KiB with the client below), the server's
// per-stream write quota (64 KiB) and a chunk.
const bigAnswer = `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":100000},"columns":"*"},` +
	`{"id":"p","entity":"Project","columns":"*"},{"id":"u","entity":"User","columns":"*"}],` +
	`"relationships":[{"type":"IN_PROJECT","from":"mr","to":"p"},{"type":"AUTHORED","from":"u","to":"mr"}],"limit":1000}`

// TestUnreadStreamsBoundedPerCaller: a client that opens answer streams
// and never reads them cannot pin answers in the server without bound.
// Each stream gives its admission slot back once its answer is formatted,
// then waits in Send, holding the formatted text and a goroutine, until
// the client reads; the client here has a 64 KiB stream window and reads
// only the first chunk. With MaxStreamsPerCaller 2, the caller's third
// open stream is refused with SERVER_BUSY (limit "streams"), another
// caller is served in full meanwhile, and once the caller cancels one of
// its streams it may open another. Before the bound, the third stream (and
// the hundredth) was answered: measured against serve, 60 unread streams
// grew the heap by about 550 MB.
func TestUnreadStreamsBoundedPerCaller(t *testing.T) {
	exec := engine(t)
	addr := listen(t, exec, func(o *grpcsvc.Options) { o.MaxStreamsPerCaller = 2 })
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithInitialWindowSize(64<<10), grpc.WithInitialConnWindowSize(64<<20))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c := pb.NewQueryServiceClient(conn)
	req := &pb.ExecuteQueryRequest{Query: bigAnswer, Format: pb.ResponseFormat_RESPONSE_FORMAT_RAW}

	whole, err := server(t, exec, nil).ExecuteQuery(as(t, admin), req)
	if err != nil {
		t.Fatal(err)
	}
	// Flow control lets out at most the window, the write quota and a
	// chunk or two (about 200 KiB) before the client reads.
	if n := len(whole.GetResultJson()); n < 256<<10 {
		t.Fatalf("the answer has %d bytes; the test needs one beyond what flow control lets out unread (over 256 KiB)", n)
	}

	flooder := auth.Claims{UserID: 501, Admin: true}
	// open starts a stream as flooder and reads its first message only.
	open := func() (context.CancelFunc, error) {
		ctx, cancel := context.WithCancel(as(t, flooder))
		s, err := c.ExecuteQueryStream(ctx, req)
		if err == nil {
			_, err = s.Recv()
		}
		if err != nil {
			cancel()
			return nil, err
		}
		return cancel, nil
	}
	var held []context.CancelFunc
	t.Cleanup(func() {
		for _, cancel := range held {
			cancel()
		}
	})
	for i := range 2 {
		cancel, err := open()
		if err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
		held = append(held, cancel)
	}

	cancel, err := open()
	if err == nil {
		held = append(held, cancel)
		t.Fatal("a third unread stream of one caller was answered; want RESOURCE_EXHAUSTED (limit streams)")
	}
	if got := status.Code(err); got != codes.ResourceExhausted {
		t.Fatalf("third stream: got %v (%v), want ResourceExhausted", got, err)
	}
	if limit := busyLimit(err); limit != "streams" {
		t.Fatalf("third stream: SERVER_BUSY limit %q, want streams (%v)", limit, err)
	}

	// Another caller is served in full while the flooder's streams wait.
	s, err := c.ExecuteQueryStream(as(t, auth.Claims{UserID: 502, Admin: true}), req)
	if err != nil {
		t.Fatal(err)
	}
	var got []byte
	for {
		ch, err := s.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("other caller: %v", err)
		}
		got = append(got, ch.GetData()...)
	}
	if string(got) != whole.GetResultJson() {
		t.Fatalf("other caller got %d bytes, want the unary answer's %d", len(got), len(whole.GetResultJson()))
	}

	// Canceling a stream frees its place: its handler leaves Send.
	held[0]()
	waitFor(t, 20*time.Second, "a new stream after one was canceled", func() (bool, string) {
		cancel, err := open()
		if err != nil {
			return false, fmt.Sprint(err)
		}
		held = append(held, cancel)
		return true, ""
	})
}

// busyLimit is the limit metadata of a SERVER_BUSY status, "" for another.
func busyLimit(err error) string {
	for _, d := range status.Convert(err).Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetReason() == "SERVER_BUSY" {
			return info.GetMetadata()["limit"]
		}
	}
	return ""
}
