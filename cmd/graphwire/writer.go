package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/pflag"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/graphwire/graphwire/ingest"
	"github.com/graphwire/graphwire/load"
	"github.com/graphwire/graphwire/ontology"
	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
)

// writeFlags choose where index and load write: a running server (--server), or the engine
// of engineFlags, which may itself turn out to be served by a running graphwire.
type writeFlags struct {
	server string
	token  string
	tls    clientTLS
	// noMerge leaves the parts a write adds unmerged (docs/loading.md, "Merging after a write").
	noMerge bool
}

func (w *writeFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&w.server, "server", "", "write through the graphwire server at this gRPC address (host:port) instead of opening the engine; needs an admin --token")
	fs.StringVar(&w.token, "token", "", "admin bearer JWT for --server (default $GRAPHWIRE_TOKEN)")
	w.tls.register(fs)
	fs.BoolVar(&w.noMerge, "no-merge", false, "with the embedded engine: do not merge the tables the write left in several parts (a running server's own setting decides for writes through it)")
}

// check validates the flags with the engine's.
func (w *writeFlags) check(e *engineFlags) error {
	if w.server == "" {
		return nil
	}
	if e.embedded != "" || e.clickhouse != "" {
		return errors.New("use --server or --embedded/--clickhouse, not both")
	}
	if w.token == "" {
		w.token = os.Getenv("GRAPHWIRE_TOKEN")
	}
	if w.token == "" {
		return errors.New("--server needs an admin --token (or $GRAPHWIRE_TOKEN)")
	}
	_, err := w.tls.config()
	return err
}

// target is where a command's writes go, and what to call it in reports.
type target struct {
	ingest.Target
	where string
	close func() error
}

// openTarget opens the write target of a command: the server of --server; else the engine
// of ef, or — when the embedded data directory is owned by a running graphwire serve or
// mcp — that process, through the socket it keeps in the directory (said on stderr).
func openTarget(w writeFlags, ef *engineFlags, ont *ontology.Ontology, stderr io.Writer) (*target, error) {
	if w.server != "" {
		conn, err := dialServer(w.server, w.tls)
		if err != nil {
			return nil, &classError{code: exitUsage, msg: fmt.Sprintf("--server %s: %s", w.server, oneLine(err)), err: err}
		}
		return &target{Target: &remoteTarget{c: pb.NewWriteServiceClient(conn), token: w.token, tls: w.tls},
			where: "server " + w.server, close: conn.Close}, nil
	}
	if ef.clickhouse == "" {
		if sock := localSocket(ef.dataDir()); sock != "" && socketAnswers(sock) {
			conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()),
				grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return dialLocal(ctx, sock) }))
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(stderr, "the data directory %s is served by a running graphwire; writing through it (%s)\n", ef.dataDir(), sock)
			return &target{Target: &remoteTarget{c: pb.NewWriteServiceClient(conn)}, where: "the server of " + ef.dataDir(), close: conn.Close}, nil
		}
	}
	eng, err := ef.openWritable(stderr)
	var ce *classError
	if errors.As(err, &ce) && ce.code == exitUnavailable && ef.clickhouse == "" {
		// Locked, and no socket answered: a server of an older graphwire, or one elsewhere.
		return nil, &classError{code: exitUnavailable, err: ce.err, msg: fmt.Sprintf("the data directory %s is in use by another process "+
			"that takes no writes on %s: stop it, or write through a graphwire server with --server ADDR --token ADMIN_JWT", ef.dataDir(), localSocket(ef.dataDir()))}
	}
	if err != nil {
		return nil, err
	}
	opts := ingest.Options{Shards: clusterWriter(eng, ont)}
	if ef.clickhouse == "" && !w.noMerge {
		opts.Merge = &load.MergeOptions{}
	}
	return &target{Target: ingest.NewWriter(eng, ont, opts), where: ef.describe(), close: eng.Close}, nil
}

// skipped returns a line for each row rep skipped (load --skip-invalid).
func (t *target) skipped(rep load.Report) []string {
	if r, ok := t.Target.(*remoteTarget); ok {
		return r.skipped
	}
	var out []string
	for _, is := range rep.Skipped {
		out = append(out, oneLine(is))
	}
	return out
}

// socketAnswers reports whether a process of this user listens on the Unix socket at p.
func socketAnswers(p string) bool {
	if _, err := os.Stat(p); err != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	c, err := dialLocal(ctx, p)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// remoteTarget writes through a graphwire server's WriteService.
type remoteTarget struct {
	c     pb.WriteServiceClient
	token string // "" over the local socket
	tls   clientTLS
	// skipped are the server's lines for the rows the last write skipped.
	skipped []string
}

func (r *remoteTarget) ctx(ctx context.Context) context.Context {
	if r.token == "" {
		return ctx
	}
	return withToken(ctx, r.token)
}

func pbScope(sc load.Scope) *pb.IndexScope {
	return &pb.IndexScope{TraversalPath: sc.TraversalPath, ProjectId: sc.ProjectID, Branch: sc.Branch}
}

// IndexState implements ingest.Target.
func (r *remoteTarget) IndexState(ctx context.Context, sc load.Scope) (map[string]string, error) {
	resp, err := r.c.GetIndexState(r.ctx(ctx), &pb.GetIndexStateRequest{Scope: pbScope(sc)})
	if err != nil {
		return nil, transportHint(err, r.tls)
	}
	if !resp.GetFound() {
		return nil, nil
	}
	d := resp.GetDigests()
	if d == nil {
		d = map[string]string{}
	}
	return d, nil
}

// writeChunk is the size of the file chunks a write sends: well under the server's
// smallest message limit (--max-recv-msg-size, 128 KiB by default).
const writeChunk = 32 << 10

// indexPartEntries bounds the files and digests of one index part, for the same reason.
const indexPartEntries = 256

// Write implements ingest.Target: the header, the index parts, then each file in chunks.
func (r *remoteTarget) Write(ctx context.Context, b ingest.Batch) (load.Report, error) {
	var rep load.Report
	stream, err := r.c.Write(r.ctx(ctx))
	if err != nil {
		return rep, transportHint(err, r.tls)
	}
	h := &pb.WriteHeader{Source: b.Source, SkipInvalid: b.SkipInvalid}
	for _, s := range b.Sources {
		h.Files = append(h.Files, &pb.WriteFile{Name: filepath.Base(s.Path), Type: s.Type, Format: string(s.Format)})
	}
	if b.Replace != nil {
		h.Replace = pbScope(*b.Replace)
		h.ReplaceFiles = b.Replace.Files != nil
	}
	h.RecordDigests = b.Digests != nil
	send := func(m *pb.WriteRequest) error {
		if err := stream.Send(m); err != nil {
			if errors.Is(err, io.EOF) {
				_, err = stream.CloseAndRecv() // the server's status says why
			}
			return transportHint(err, r.tls)
		}
		return nil
	}
	if err := send(&pb.WriteRequest{Part: &pb.WriteRequest_Header{Header: h}}); err != nil {
		return rep, err
	}
	var files []string
	if b.Replace != nil {
		files = b.Replace.Files
	}
	owners := slices.Sorted(maps.Keys(b.Digests))
	for len(files) > 0 || len(owners) > 0 {
		part := &pb.WriteIndexPart{}
		n := min(len(files), indexPartEntries)
		part.FilesReplaced, files = files[:n], files[n:]
		if n = min(len(owners), indexPartEntries); n > 0 {
			part.Digests = map[string]string{}
			for _, o := range owners[:n] {
				part.Digests[o] = b.Digests[o]
			}
			owners = owners[n:]
		}
		if err := send(&pb.WriteRequest{Part: &pb.WriteRequest_Index{Index: part}}); err != nil {
			return rep, err
		}
	}
	buf := make([]byte, writeChunk)
	for i, s := range b.Sources {
		if err := sendFile(s.Path, buf, func(data []byte) error {
			return send(&pb.WriteRequest{Part: &pb.WriteRequest_Chunk{Chunk: &pb.WriteChunk{File: uint32(i), Data: data}}})
		}); err != nil {
			return rep, err
		}
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		return rep, transportHint(err, r.tls)
	}
	rep = load.Report{Version: resp.GetVersion(), RowsIn: resp.GetRowsIn(), Valid: resp.GetValid(), Invalid: resp.GetInvalid(),
		Written: resp.GetWritten(), Unchanged: resp.GetUnchanged(), Tombstoned: resp.GetTombstoned(), Shadowed: resp.GetShadowed(),
		Live: resp.GetLive(), Queryable: resp.GetQueryable(), Staged: time.Duration(resp.GetStagedMs()) * time.Millisecond,
		Committed: time.Duration(resp.GetCommittedMs()) * time.Millisecond, Verified: time.Duration(resp.GetVerifiedMs()) * time.Millisecond,
		Deleted: resp.GetDeleted(), Merging: time.Duration(resp.GetMergingMs()) * time.Millisecond}
	for _, m := range resp.GetMerged() {
		rep.Merged = append(rep.Merged, load.MergedTable{Table: m.GetTable(), Parts: int(m.GetParts()), Rows: m.GetRows(), Bytes: m.GetBytes(),
			PartsAfter: int(m.GetPartsAfter()), Elapsed: time.Duration(m.GetElapsedMs()) * time.Millisecond})
	}
	for _, rl := range resp.GetRecovered() {
		rep.Recovered = append(rep.Recovered, load.Recovered{Staging: rl.GetStaging(), Version: rl.GetVersion(), Nodes: rl.GetNodes(), Edges: rl.GetEdges()})
	}
	for _, s := range b.Sources {
		rep.Files = append(rep.Files, load.FileReport{Path: s.Path, Type: s.Type, Format: s.Format})
	}
	r.skipped = resp.GetSkipped()
	return rep, nil
}

// sendFile sends the file at path in pieces of buf's size.
func sendFile(path string, buf []byte, send func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	for {
		n, err := io.ReadFull(f, buf)
		if n > 0 {
			if serr := send(buf[:n]); serr != nil {
				return serr
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
