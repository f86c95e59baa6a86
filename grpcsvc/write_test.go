package grpcsvc_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"

	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/compiler"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/grpcsvc"
	"github.com/graphwire/graphwire/ingest"
	"github.com/graphwire/graphwire/load"
	"github.com/graphwire/graphwire/ontology"
	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
)

var writeSecret = []byte("write-test-secret-0123456789abcdef")

// noEngine answers no query; the write tests never run one.
type noEngine struct{}

func (noEngine) Run(context.Context, *compiler.Query) (executor.Rows, error) {
	return nil, errors.New("no engine")
}

// recorder is a writer that keeps what it was asked to write.
type recorder struct {
	batches []ingest.Batch
	files   map[string]string // base name → content, read during Write
}

func (r *recorder) IndexState(context.Context, load.Scope) (map[string]string, error) {
	return map[string]string{"a.go": "d1"}, nil
}

func (r *recorder) Write(_ context.Context, b ingest.Batch) (load.Report, error) {
	r.batches = append(r.batches, b)
	for _, s := range b.Sources {
		data, err := os.ReadFile(s.Path)
		if err != nil {
			return load.Report{}, err
		}
		r.files[filepath.Base(s.Path)] = string(data)
	}
	return load.Report{Version: 7, RowsIn: 2}, nil
}

func writeServer(t *testing.T, w ingest.Target, local bool) (pb.WriteServiceClient, func(auth.Claims) context.Context) {
	t.Helper()
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		t.Fatal(err)
	}
	comp, err := compiler.New(ont, compiler.Options{CursorKeys: compiler.RandomCursorKeys()})
	if err != nil {
		t.Fatal(err)
	}
	v, err := auth.NewVerifier(auth.Options{Keys: [][]byte{writeSecret}})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := grpcsvc.New(noEngine{}, formatter.Default(), grpcsvc.Options{Compiler: comp, Ontology: ont, Verifier: v, Writer: w, WriteDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	lis := bufconn.Listen(1 << 20)
	g := srv.GRPCServer()
	if local {
		g = srv.LocalGRPCServer()
	}
	go g.Serve(lis)
	t.Cleanup(g.Stop)
	conn, err := grpc.NewClient("passthrough:///bufnet", grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
		return lis.DialContext(ctx)
	}), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	as := func(c auth.Claims) context.Context {
		tok, err := auth.Mint(writeSecret, c, auth.MintOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer "+tok)
	}
	return pb.NewWriteServiceClient(conn), as
}

// send runs one Write call of msgs and returns its answer.
func send(ctx context.Context, c pb.WriteServiceClient, msgs ...*pb.WriteRequest) (*pb.WriteResponse, error) {
	st, err := c.Write(ctx)
	if err != nil {
		return nil, err
	}
	for _, m := range msgs {
		if err := st.Send(m); err != nil {
			break // the status comes with CloseAndRecv
		}
	}
	return st.CloseAndRecv()
}

func header(h *pb.WriteHeader) *pb.WriteRequest {
	return &pb.WriteRequest{Part: &pb.WriteRequest_Header{Header: h}}
}

func chunk(i uint32, s string) *pb.WriteRequest {
	return &pb.WriteRequest{Part: &pb.WriteRequest_Chunk{Chunk: &pb.WriteChunk{File: i, Data: []byte(s)}}}
}

func TestWrite(t *testing.T) {
	rec := &recorder{files: map[string]string{}}
	c, as := writeServer(t, rec, false)
	admin := as(auth.Claims{UserID: 1, Admin: true})
	sc := &pb.IndexScope{TraversalPath: "1/", ProjectId: 1, Branch: "main"}
	resp, err := send(admin, c,
		header(&pb.WriteHeader{Source: "index", Files: []*pb.WriteFile{{Name: "Definition.jsonl"}, {Name: "CALLS.jsonl"}}, Replace: sc, ReplaceFiles: true, RecordDigests: true}),
		&pb.WriteRequest{Part: &pb.WriteRequest_Index{Index: &pb.WriteIndexPart{FilesReplaced: []string{"a.go"}, Digests: map[string]string{"a.go": "d2"}}}},
		&pb.WriteRequest{Part: &pb.WriteRequest_Index{Index: &pb.WriteIndexPart{FilesReplaced: []string{"b.go"}, Digests: map[string]string{"b.go": ""}}}},
		chunk(0, `{"id": 1}`+"\n"), chunk(1, "{}\n"), chunk(0, `{"id": 2}`+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetVersion() != 7 || resp.GetRowsIn() != 2 {
		t.Errorf("response %v, want the writer's report", resp)
	}
	if len(rec.batches) != 1 {
		t.Fatalf("%d batches, want 1", len(rec.batches))
	}
	b := rec.batches[0]
	if b.Source != "index" || b.Replace == nil || len(b.Replace.Files) != 2 || b.Digests["a.go"] != "d2" || b.Digests["b.go"] != "" || len(b.Digests) != 2 {
		t.Errorf("batch %+v (replace %+v)", b, b.Replace)
	}
	if rec.files["Definition.jsonl"] != "{\"id\": 1}\n{\"id\": 2}\n" || rec.files["CALLS.jsonl"] != "{}\n" {
		t.Errorf("files as the writer read them: %q", rec.files)
	}
	state, err := c.GetIndexState(admin, &pb.GetIndexStateRequest{Scope: sc})
	if err != nil || !state.GetFound() || state.GetDigests()["a.go"] != "d1" {
		t.Errorf("index state %v, %v", state, err)
	}

	tests := []struct {
		name string
		ctx  context.Context
		msgs []*pb.WriteRequest
		want codes.Code
	}{
		{"no token", t.Context(), []*pb.WriteRequest{header(&pb.WriteHeader{Files: []*pb.WriteFile{{Name: "Definition.jsonl"}}})}, codes.Unauthenticated},
		{"a scoped caller", as(auth.Claims{UserID: 2, Scopes: []auth.Scope{{Path: "1/", Level: 50}}}),
			[]*pb.WriteRequest{header(&pb.WriteHeader{Files: []*pb.WriteFile{{Name: "Definition.jsonl"}}})}, codes.PermissionDenied},
		{"no header", admin, []*pb.WriteRequest{chunk(0, "{}")}, codes.InvalidArgument},
		{"no file", admin, []*pb.WriteRequest{header(&pb.WriteHeader{})}, codes.InvalidArgument},
		{"a path, not a name", admin, []*pb.WriteRequest{header(&pb.WriteHeader{Files: []*pb.WriteFile{{Name: "../../etc/Definition.jsonl"}}})}, codes.InvalidArgument},
		{"dot-dot", admin, []*pb.WriteRequest{header(&pb.WriteHeader{Files: []*pb.WriteFile{{Name: ".."}}})}, codes.InvalidArgument},
		{"a chunk of no file", admin, []*pb.WriteRequest{header(&pb.WriteHeader{Files: []*pb.WriteFile{{Name: "Definition.jsonl"}}}), chunk(3, "{}")}, codes.InvalidArgument},
		{"a second header", admin, []*pb.WriteRequest{header(&pb.WriteHeader{Files: []*pb.WriteFile{{Name: "Definition.jsonl"}}}), header(&pb.WriteHeader{})}, codes.InvalidArgument},
		{"digests without a scope", admin, []*pb.WriteRequest{header(&pb.WriteHeader{Files: []*pb.WriteFile{{Name: "Definition.jsonl"}}, RecordDigests: true})}, codes.InvalidArgument},
		{"an unknown format", admin, []*pb.WriteRequest{header(&pb.WriteHeader{Files: []*pb.WriteFile{{Name: "x", Format: "xlsx"}}})}, codes.InvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := send(tt.ctx, c, tt.msgs...)
			if got := status.Code(err); got != tt.want {
				t.Errorf("code %v (%v), want %v", got, err, tt.want)
			}
		})
	}
	if len(rec.batches) != 1 {
		t.Errorf("%d batches after the refused writes, want still 1", len(rec.batches))
	}
	if _, err := c.GetIndexState(as(auth.Claims{UserID: 2, Scopes: []auth.Scope{{Path: "1/", Level: 50}}}), &pb.GetIndexStateRequest{Scope: sc}); status.Code(err) != codes.PermissionDenied {
		t.Errorf("index state for a scoped caller: %v, want PermissionDenied", err)
	}
}

// TestLocalWrite: on the local server (the data directory's socket, which admits only the
// server's own user), a call without a token is an admin's.
func TestLocalWrite(t *testing.T) {
	rec := &recorder{files: map[string]string{}}
	c, _ := writeServer(t, rec, true)
	if _, err := send(t.Context(), c, header(&pb.WriteHeader{Files: []*pb.WriteFile{{Name: "Definition.jsonl"}}}), chunk(0, "{}\n")); err != nil {
		t.Fatalf("write on the local server without a token: %v", err)
	}
	if len(rec.batches) != 1 || rec.files["Definition.jsonl"] != "{}\n" {
		t.Errorf("batches %d, files %q", len(rec.batches), rec.files)
	}
}

// TestWriteManyFiles: a write naming many files holds one descriptor at a time, not one
// per file (a header of thousands took as many from the server, whose queries and engine
// then failed to open theirs), and a header naming more than MaxWriteFiles is refused.
func TestWriteManyFiles(t *testing.T) {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{files: map[string]string{}}
	c, as := writeServer(t, rec, false)
	admin := as(auth.Claims{UserID: 1, Admin: true})
	const n = 1000
	low := lim
	low.Cur = uint64(len(fds)) + 200 // fewer descriptors than the write names files
	if low.Cur >= lim.Cur {
		t.Skipf("the descriptor limit %d is already low", lim.Cur)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	restored := false
	restore := func() {
		if !restored {
			restored = true
			if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
				t.Error(err)
			}
		}
	}
	defer restore()
	h := &pb.WriteHeader{}
	for i := range n {
		h.Files = append(h.Files, &pb.WriteFile{Name: fmt.Sprintf("f%d.jsonl", i)})
	}
	_, err = send(admin, c, header(h), chunk(n-1, "{}\n"), chunk(0, "{\"id\": 1}\n"), chunk(n-1, "{}\n"))
	restore()
	if err != nil {
		t.Fatalf("a write of %d files under a limit of %d descriptors: %v", n, low.Cur, err)
	}
	if len(rec.batches) != 1 || len(rec.batches[0].Sources) != n {
		t.Fatalf("batches %d, want one of %d files", len(rec.batches), n)
	}
	if rec.files[fmt.Sprintf("f%d.jsonl", n-1)] != "{}\n{}\n" || rec.files["f0.jsonl"] != "{\"id\": 1}\n" {
		t.Errorf("files as the writer read them: f0 %q, f%d %q", rec.files["f0.jsonl"], n-1, rec.files[fmt.Sprintf("f%d.jsonl", n-1)])
	}

	h = &pb.WriteHeader{}
	for range grpcsvc.MaxWriteFiles + 1 {
		h.Files = append(h.Files, &pb.WriteFile{Name: "x"}) // short, to fit the test server's message size
	}
	if _, err := send(admin, c, header(h)); status.Code(err) != codes.InvalidArgument {
		t.Errorf("a header of %d files: %v, want InvalidArgument", len(h.Files), err)
	}
}

// TestLocalCallerHeader: on the local listener the caller the client names in
// LocalCallerHeader is the caller (a non-admin one is not escalated; none means admin); on a
// TCP-style listener the header is ignored, whatever it claims, and the token alone decides.
func TestLocalCallerHeader(t *testing.T) {
	write := func(ctx context.Context, c pb.WriteServiceClient) codes.Code {
		_, err := send(ctx, c, header(&pb.WriteHeader{Files: []*pb.WriteFile{{Name: "Definition.jsonl"}}}), chunk(0, "{}\n"))
		return status.Code(err)
	}
	caller := func(ctx context.Context, v string) context.Context {
		return metadata.AppendToOutgoingContext(ctx, grpcsvc.LocalCallerHeader, v)
	}
	const scoped = `{"admin":false,"scopes":[{"path":"1/","level":30}]}`
	const admin = `{"admin":true}`

	local, _ := writeServer(t, &recorder{files: map[string]string{}}, true)
	for _, tt := range []struct {
		name, header string
		want         codes.Code
	}{
		{"scoped", scoped, codes.PermissionDenied},
		{"no scopes, not admin", `{"admin":false}`, codes.PermissionDenied},
		{"admin", admin, codes.OK},
		{"not JSON", `admin`, codes.InvalidArgument},
		{"unknown field", `{"admin":false,"role":"owner"}`, codes.InvalidArgument},
		{"empty scope path", `{"scopes":[{"path":"","level":30}]}`, codes.InvalidArgument},
		// Strict: what encoding/json alone would let through, each refused rather than read
		// as some other caller.
		{"member name in another case", `{"Admin":true}`, codes.InvalidArgument},
		{"trailing object", `{"admin":false}{"admin":true}`, codes.InvalidArgument},
		{"trailing garbage", `{"admin":true} x`, codes.InvalidArgument},
		{"member twice", `{"admin":false,"admin":true}`, codes.InvalidArgument},
		{"malformed scope path", `{"scopes":[{"path":"1","level":30}]}`, codes.InvalidArgument},
		{"unknown access level", `{"scopes":[{"path":"1/","level":31}]}`, codes.InvalidArgument},
		{"scope without level", `{"scopes":[{"path":"1/"}]}`, codes.InvalidArgument},
		{"scope member in another case", `{"scopes":[{"Path":"1/","level":30}]}`, codes.InvalidArgument},
		{"negative user", `{"user_id":-1}`, codes.InvalidArgument},
		{"admin not a bool", `{"admin":"true"}`, codes.InvalidArgument},
		{"not an object", `[{"admin":true}]`, codes.InvalidArgument},
	} {
		if got := write(caller(t.Context(), tt.header), local); got != tt.want {
			t.Errorf("local, %s: %v, want %v", tt.name, got, tt.want)
		}
	}
	if got := write(t.Context(), local); got != codes.OK {
		t.Errorf("local without the header: %v, want OK (an admin, as index and load use it)", got)
	}

	tcp, as := writeServer(t, &recorder{files: map[string]string{}}, false)
	if got := write(caller(t.Context(), admin), tcp); got != codes.Unauthenticated {
		t.Errorf("TCP, no token, header says admin: %v, want Unauthenticated", got)
	}
	user := as(auth.Claims{UserID: 5, Scopes: []auth.Scope{{Path: "1/", Level: 50}}})
	if got := write(caller(user, admin), tcp); got != codes.PermissionDenied {
		t.Errorf("TCP, non-admin token, header says admin: %v, want PermissionDenied", got)
	}
	if got := write(caller(as(auth.Claims{UserID: 1, Admin: true}), scoped), tcp); got != codes.OK {
		t.Errorf("TCP, admin token, header says scoped: %v, want OK (the token decides)", got)
	}
}
