package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/spf13/pflag"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/graphwire/graphwire/compiler"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/grpcsvc"
	"github.com/graphwire/graphwire/ontology"
	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
)

// formatEnums maps the --format names other than json (and the drawings of json) to the
// proto enum; the request carries them with RESPONSE_FORMAT_LLM.
var formatEnums = map[string]pb.FormatName{
	"auto":      pb.FormatName_FORMAT_NAME_AUTO,
	"goon":      pb.FormatName_FORMAT_NAME_GOON,
	"gcf":       pb.FormatName_FORMAT_NAME_GCF,
	"gcf-graph": pb.FormatName_FORMAT_NAME_GCF_GRAPH,
	"gcx":       pb.FormatName_FORMAT_NAME_GCX,
	"toon":      pb.FormatName_FORMAT_NAME_TOON,
	"markdown":  pb.FormatName_FORMAT_NAME_MARKDOWN,
	"xml":       pb.FormatName_FORMAT_NAME_XML,
	"gcb1":      pb.FormatName_FORMAT_NAME_GCB1,
}

// dial connects to a graphwire server over plaintext gRPC (an in-process
// server on loopback).
func dial(addr string) (*grpc.ClientConn, error) {
	return grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()), recvAnySize())
}

// recvAnySize lets a client take an answer of any size the server sends (serve bounds it
// with --max-send-msg-size): gRPC's default of 4 MiB refused raw answers that local mode
// prints whole, such as one holding a long stored text.
func recvAnySize() grpc.DialOption {
	return grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(math.MaxInt32))
}

// clientTLS are the transport flags of a client command, spelled as
// grpcurl spells them. Without any the connection is plaintext, which is
// what serve offers on loopback without --tls-cert.
type clientTLS struct {
	tls, insecure         bool
	cacert, cert, keyFile string
}

func (c *clientTLS) register(fs *pflag.FlagSet) {
	fs.BoolVar(&c.tls, "tls", false, "connect to --server over TLS, checking its certificate against the system's CAs (or --cacert)")
	fs.StringVar(&c.cacert, "cacert", "", "PEM CA bundle to check the server's certificate with (implies --tls)")
	fs.BoolVar(&c.insecure, "insecure", false, "TLS without checking the server's certificate; for testing only (implies --tls)")
	fs.StringVar(&c.cert, "cert", "", "PEM client certificate for a server that asks for one (mTLS; implies --tls, needs --key)")
	fs.StringVar(&c.keyFile, "key", "", "PEM private key of --cert")
}

// config returns the TLS configuration the flags ask for, nil for
// plaintext.
func (c *clientTLS) config() (*tls.Config, error) {
	if !c.tls && !c.insecure && c.cacert == "" && c.cert == "" {
		return nil, nil
	}
	if (c.cert == "") != (c.keyFile == "") {
		return nil, errors.New("--cert and --key go together")
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: c.insecure}
	if c.cacert != "" {
		pem, err := os.ReadFile(c.cacert)
		if err != nil {
			return nil, fmt.Errorf("read --cacert: %w", err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--cacert %s holds no PEM certificate", c.cacert)
		}
	}
	if c.cert != "" {
		cert, err := tls.LoadX509KeyPair(c.cert, c.keyFile)
		if err != nil {
			return nil, fmt.Errorf("load --cert and --key: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// dialServer connects to the graphwire server at addr as c says.
func dialServer(addr string, c clientTLS) (*grpc.ClientConn, error) {
	cfg, err := c.config()
	if err != nil {
		return nil, err
	}
	if cfg == nil {
		return dial(addr)
	}
	return grpc.NewClient(addr, grpc.WithTransportCredentials(credentials.NewTLS(cfg)), recvAnySize())
}

// transportHint adds to gRPC's message for a connection that failed because the client and
// the server disagree about TLS what to change: a plaintext client reading a TLS server's
// handshake sees only "error reading server preface: EOF", and a TLS client reading a
// plaintext server "first record does not look like a TLS handshake". Other errors pass
// through unchanged; the status code (unavailable, exit 7) is kept.
func transportHint(err error, c clientTLS) error {
	st, ok := status.FromError(err)
	if !ok || st.Code() != codes.Unavailable {
		return err
	}
	cfg, _ := c.config() // dialServer already checked it
	var hint string
	switch {
	case cfg == nil && strings.Contains(st.Message(), "error reading server preface"):
		hint = "the server may require TLS: pass --tls (system CAs), --cacert FILE, or --insecure (testing only), and --cert/--key if it asks for a client certificate"
	case cfg != nil && strings.Contains(st.Message(), "first record does not look like a TLS handshake"):
		hint = "the server speaks plaintext, not TLS: drop --tls, --cacert, --insecure, --cert and --key"
	default:
		return err
	}
	return status.Error(codes.Unavailable, st.Message()+"; "+hint)
}

// withToken attaches the bearer token to outgoing calls.
func withToken(ctx context.Context, token string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
}

// queryRemote sends the query to a graphwire server and writes its answer. A failure is the
// server's status error, which exitCode and report treat like the local error behind it.
func queryRemote(ctx context.Context, f queryFlags, stdout io.Writer) (queryStats, error) {
	if !utf8.Valid(f.query) {
		return queryStats{}, refuseNotUTF8(f.query)
	}
	req := &pb.ExecuteQueryRequest{Query: string(f.query)}
	if name := f.formatName(); name != formatter.JSON {
		llm, ok := formatEnums[name]
		if !ok {
			return queryStats{}, usageErrorf("unknown --format %q for --server", name)
		}
		req.Format, req.LlmFormat = pb.ResponseFormat_RESPONSE_FORMAT_LLM, llm
	}
	var conn *grpc.ClientConn
	var err error
	if f.socket != "" {
		// The running graphwire of the data directory: the caller is what the flags say. Each
		// dial checks that the listener runs as this user (dialLocal), as writes do.
		sock := f.socket
		if conn, err = grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return dialLocal(ctx, sock) })); err != nil {
			return queryStats{}, err
		}
		ctx = metadata.AppendToOutgoingContext(ctx, grpcsvc.LocalCallerHeader, localCallerJSON(f))
	} else {
		if conn, err = dialServer(f.server, f.tls); err != nil {
			return queryStats{}, &classError{code: exitUsage, msg: fmt.Sprintf("--server %s: %s", f.server, oneLine(err)), err: err}
		}
		ctx = withToken(ctx, f.token)
	}
	defer conn.Close()
	resp, err := pb.NewQueryServiceClient(conn).ExecuteQuery(ctx, req)
	if err != nil {
		return queryStats{}, transportHint(err, f.tls)
	}
	switch r := resp.Result.(type) {
	case *pb.ExecuteQueryResponse_ResultJson:
		err = writeAnswer(stdout, f.format, []byte(r.ResultJson))
	case *pb.ExecuteQueryResponse_FormattedText:
		_, err = io.WriteString(stdout, r.FormattedText)
	case *pb.ExecuteQueryResponse_FormattedBytes:
		_, err = stdout.Write(r.FormattedBytes)
	}
	// answer_rows are the rows printed, as local mode counts them; row_count is what the engine
	// returned, one more (the probe row) when more rows follow the page.
	md := resp.GetMetadata()
	return queryStats{format: md.GetFormatName(), version: md.GetFormatVersion(), rows: md.GetAnswerRows(), tokens: int(md.GetTokenCount()), altered: md.GetAlteredValues()}, err
}

// localCallerJSON is the caller of a local run with f's flags (--admin, --scope), as
// grpcsvc.LocalCallerHeader carries it: exactly the claims queryLocal builds.
func localCallerJSON(f queryFlags) string {
	type scope struct {
		Path  string `json:"path"`
		Level int    `json:"level"`
	}
	c := struct {
		Admin  bool    `json:"admin"`
		Scopes []scope `json:"scopes,omitempty"`
	}{Admin: f.admin}
	for _, s := range f.scopes {
		c.Scopes = append(c.Scopes, scope{Path: s.Path, Level: s.Level})
	}
	b, _ := json.Marshal(c) // plain fields: cannot fail
	return string(b)
}

// refuseNotUTF8 returns the error local mode gives for query, which is not UTF-8: the
// compiler's PARSE_ERROR at the offending string or byte. A protobuf string cannot carry
// such a query, so sending it would fail with gRPC's marshaling error (INTERNAL) instead.
func refuseNotUTF8(query []byte) error {
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		return err
	}
	comp, err := compiler.New(ont, compiler.Options{CursorKeys: localCursorKeys()})
	if err != nil {
		return err
	}
	if _, err := comp.Compile(query, &compiler.Caller{Subject: "cli", Admin: true}); err != nil {
		return err
	}
	return &classError{code: exitInvalid, msg: "the query is not UTF-8 text"}
}
