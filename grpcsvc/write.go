package grpcsvc

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/graphwire/graphwire/ingest"
	"github.com/graphwire/graphwire/load"
	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
)

// writeService is the WriteService of a [Server] whose Options.Writer is set.
type writeService struct {
	pb.UnimplementedWriteServiceServer
	s *Server
}

// MaxWriteFiles bounds the files one write may name.
const MaxWriteFiles = 10000

// writeMethodPrefix starts the full method name of every WriteService call.
const writeMethodPrefix = "/graphwire.v1.WriteService/"

// admin returns the caller when it is an admin, PermissionDenied otherwise.
func (w writeService) admin(ctx context.Context) error {
	c, ok := claimsFrom(ctx)
	if !ok {
		return status.Error(codes.Unauthenticated, "missing bearer token")
	}
	if !c.Admin {
		return status.Error(codes.PermissionDenied, "writes to the graph need an admin token")
	}
	return nil
}

func scopeOf(sc *pb.IndexScope) (load.Scope, error) {
	if sc == nil || sc.GetTraversalPath() == "" || sc.GetProjectId() <= 0 || sc.GetBranch() == "" {
		return load.Scope{}, status.Error(codes.InvalidArgument, "a scope needs a traversal_path, a positive project_id and a branch")
	}
	return load.Scope{TraversalPath: sc.GetTraversalPath(), ProjectID: sc.GetProjectId(), Branch: sc.GetBranch()}, nil
}

// GetIndexState implements WriteService.
func (w writeService) GetIndexState(ctx context.Context, req *pb.GetIndexStateRequest) (*pb.GetIndexStateResponse, error) {
	if err := w.admin(ctx); err != nil {
		return nil, err
	}
	sc, err := scopeOf(req.GetScope())
	if err != nil {
		return nil, err
	}
	d, err := w.s.opts.Writer.IndexState(ctx, sc)
	if err != nil {
		w.s.log.ErrorContext(ctx, "index_state_failed", "err", err)
		return nil, statusFromError(err)
	}
	return &pb.GetIndexStateResponse{Found: d != nil, Digests: d}, nil
}

// Write implements WriteService: it receives the files into a directory of its own, then
// hands them to the writer as one batch.
func (w writeService) Write(stream grpc.ClientStreamingServer[pb.WriteRequest, pb.WriteResponse]) error {
	ctx := stream.Context()
	if err := w.admin(ctx); err != nil {
		return err
	}
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	h := first.GetHeader()
	if h == nil || len(h.GetFiles()) == 0 {
		return status.Error(codes.InvalidArgument, "a write starts with a header naming at least one file")
	}
	if len(h.GetFiles()) > MaxWriteFiles {
		return status.Errorf(codes.InvalidArgument, "/files: %d files, more than the %d one write may name", len(h.GetFiles()), MaxWriteFiles)
	}
	dir, err := os.MkdirTemp(w.s.opts.WriteDir, "graphwire-write-")
	if err != nil {
		w.s.log.ErrorContext(ctx, "write_failed", "err", err)
		return status.Error(codes.Internal, "internal error")
	}
	defer os.RemoveAll(dir)
	b := ingest.Batch{Source: h.GetSource(), SkipInvalid: h.GetSkipInvalid()}
	// One file is open at a time (clients send the files one after the other): a header
	// naming thousands must not take as many descriptors from the process.
	var open *os.File
	openIdx := -1
	defer func() {
		if open != nil {
			open.Close()
		}
	}()
	for i, wf := range h.GetFiles() {
		name := wf.GetName()
		if name == "" || name != filepath.Base(name) || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") {
			return status.Errorf(codes.InvalidArgument, "/files/%d/name: %q is not a file's base name", i, name)
		}
		src := load.Source{Type: wf.GetType()}
		if wf.GetFormat() != "" {
			if src.Format, err = load.ParseFormat(wf.GetFormat()); err != nil {
				return status.Errorf(codes.InvalidArgument, "/files/%d/format: %s", i, err)
			}
		}
		sub := filepath.Join(dir, strconv.Itoa(i))
		if err := os.Mkdir(sub, 0o700); err != nil {
			return status.Error(codes.Internal, "internal error")
		}
		src.Path = filepath.Join(sub, name)
		f, err := os.Create(src.Path)
		if err != nil {
			return status.Error(codes.Internal, "internal error")
		}
		if err := f.Close(); err != nil {
			return status.Error(codes.Internal, "internal error")
		}
		b.Sources = append(b.Sources, src)
	}
	if h.GetReplace() != nil {
		sc, err := scopeOf(h.GetReplace())
		if err != nil {
			return err
		}
		if h.GetReplaceFiles() {
			sc.Files = []string{}
		}
		b.Replace = &sc
	}
	if h.GetRecordDigests() {
		if b.Replace == nil {
			return status.Error(codes.InvalidArgument, "record_digests needs a replace scope")
		}
		b.Digests = map[string]string{}
	}
	var total int64
	for {
		m, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		switch p := m.GetPart().(type) {
		case *pb.WriteRequest_Chunk:
			i := int(p.Chunk.GetFile())
			if i >= len(b.Sources) {
				return status.Errorf(codes.InvalidArgument, "a chunk names file %d of %d", i, len(b.Sources))
			}
			total += int64(len(p.Chunk.GetData()))
			if total > w.s.opts.MaxWriteBytes {
				return status.Errorf(codes.ResourceExhausted, "the write is larger than the server's limit of %d bytes", w.s.opts.MaxWriteBytes)
			}
			if i != openIdx {
				if open != nil {
					err := open.Close()
					open = nil
					if err != nil {
						w.s.log.ErrorContext(ctx, "write_failed", "err", err)
						return status.Error(codes.Internal, "internal error")
					}
				}
				if open, err = os.OpenFile(b.Sources[i].Path, os.O_WRONLY|os.O_APPEND, 0); err != nil {
					w.s.log.ErrorContext(ctx, "write_failed", "err", err)
					return status.Error(codes.Internal, "internal error")
				}
				openIdx = i
			}
			if _, err := open.Write(p.Chunk.GetData()); err != nil {
				w.s.log.ErrorContext(ctx, "write_failed", "err", err)
				return status.Error(codes.Internal, "internal error")
			}
		case *pb.WriteRequest_Index:
			if b.Replace == nil {
				return status.Error(codes.InvalidArgument, "an index part needs a replace scope")
			}
			if b.Replace.Files != nil {
				b.Replace.Files = append(b.Replace.Files, p.Index.GetFilesReplaced()...)
			}
			if b.Digests != nil {
				for k, v := range p.Index.GetDigests() {
					b.Digests[k] = v
				}
			}
		default:
			return status.Error(codes.InvalidArgument, "a write has one header, first")
		}
	}
	if open != nil {
		err := open.Close()
		open = nil
		if err != nil {
			return status.Error(codes.Internal, "internal error")
		}
	}
	rep, err := w.s.opts.Writer.Write(ctx, b)
	if err != nil {
		return writeStatus(err, dir, w.s)
	}
	out := &pb.WriteResponse{Version: rep.Version, RowsIn: rep.RowsIn, Valid: rep.Valid, Invalid: rep.Invalid, Written: rep.Written,
		Unchanged: rep.Unchanged, Tombstoned: rep.Tombstoned, Shadowed: rep.Shadowed, Live: rep.Live, Queryable: rep.Queryable,
		StagedMs: rep.Staged.Milliseconds(), CommittedMs: rep.Committed.Milliseconds(), VerifiedMs: rep.Verified.Milliseconds(),
		Deleted: rep.Deleted, MergingMs: rep.Merging.Milliseconds()}
	for _, m := range rep.Merged {
		out.Merged = append(out.Merged, &pb.MergedTable{Table: m.Table, Parts: int64(m.Parts), Rows: m.Rows, Bytes: m.Bytes,
			PartsAfter: int64(m.PartsAfter), ElapsedMs: m.Elapsed.Milliseconds()})
	}
	for _, r := range rep.Recovered {
		out.Recovered = append(out.Recovered, &pb.RecoveredLoad{Staging: r.Staging, Version: r.Version, Nodes: r.Nodes, Edges: r.Edges})
	}
	for _, is := range rep.Skipped {
		out.Skipped = append(out.Skipped, unstage(is.Error(), dir))
	}
	return stream.SendAndClose(out)
}

// writeStatus is the status of a write that failed: the rows the load refused are the
// caller's to fix (InvalidArgument, naming file, row and column as the client named the
// file); anything else goes through statusFromError.
func writeStatus(err error, dir string, s *Server) error {
	var ve *load.ValidationError
	var se *load.ShadowError
	switch {
	case errors.As(err, &ve), errors.As(err, &se), errors.Is(err, load.ErrFormat), errors.Is(err, load.ErrPath), errors.Is(err, load.ErrRead):
		return status.Error(codes.InvalidArgument, unstage(err.Error(), dir))
	}
	s.log.Error("write_failed", "err", err)
	return statusFromError(err)
}

// unstage turns the server's paths of a write's files back into the names the client gave.
func unstage(msg, dir string) string {
	return regexp.MustCompile(regexp.QuoteMeta(dir+string(filepath.Separator))+`[0-9]+`+regexp.QuoteMeta(string(filepath.Separator))).ReplaceAllString(msg, "")
}
