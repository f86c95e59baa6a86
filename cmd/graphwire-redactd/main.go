// Command graphwire-redactd is a reference redaction authority
// (docs/redaction.md): it answers graphwire's redaction protocol from an
// allow-list file, and can misbehave on purpose for chosen users so that
// tests exercise graphwire's fail-closed paths against a real process.
//
//	graphwire-redactd --listen 127.0.0.1:0 --allow allow.json
//
// The allow file is JSON:
//
//	{"users":  {"42": {"Project": ["1000"], "MergeRequest": ["9311"]}},
//	 "admins": "all",
//	 "faults": {"666": "slow"}}
//
// users lists, per user id, the ids of each entity type the user may read
// (anything else is denied); admins "all" allows every id to an admin
// caller. faults makes the answers to one user id misbehave: "slow"
// (answers after --delay), "malformed" (a body that is not JSON),
// "wrong-ids" (allows an id not asked about), "wrong-type" (answers for
// another type), "huge" (a 16 MiB body), "status" (HTTP 500) or "hang"
// (never answers). The file is read again for every call, so a test can
// change the answers of a running authority; a file that cannot be read
// then is answered with HTTP 500. It prints "listening on ADDR" on stdout
// once it accepts calls, and stops on SIGTERM or SIGINT.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

type allowFile struct {
	Users  map[string]map[string][]string `json:"users"`
	Admins string                         `json:"admins"`
	Faults map[string]string              `json:"faults"`
}

type request struct {
	Version int `json:"version"`
	Caller  struct {
		UserID string `json:"user_id"`
		Admin  bool   `json:"admin"`
	} `json:"caller"`
	Type string   `json:"type"`
	IDs  []string `json:"ids"`
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("graphwire-redactd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:0", "address to listen on")
	allowPath := fs.String("allow", "", "allow-list file (JSON, see the package comment); required")
	delay := fs.Duration("delay", 5*time.Second, "how late a \"slow\" fault answers")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *allowPath == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "graphwire-redactd: --allow FILE is required, and no arguments are taken")
		return 2
	}
	if _, err := readAllow(*allowPath); err != nil {
		fmt.Fprintf(stderr, "graphwire-redactd: %v\n", err)
		return 1
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(stderr, "graphwire-redactd: listen: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	srv := &http.Server{Handler: handler(*allowPath, *delay, ctx.Done(), stderr), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "listening on %s\n", ln.Addr())
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "graphwire-redactd: serve: %v\n", err)
		return 1
	}
	return 0
}

// readAllow reads and checks the allow file.
func readAllow(path string) (*allowFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read allow file: %w", err)
	}
	var al allowFile
	d := json.NewDecoder(strings.NewReader(string(data)))
	d.DisallowUnknownFields()
	if err := d.Decode(&al); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &al, nil
}

func handler(allowPath string, delay time.Duration, done <-chan struct{}, stderr io.Writer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		al, err := readAllow(allowPath)
		if err != nil {
			fmt.Fprintf(stderr, "graphwire-redactd: %v\n", err)
			http.Error(w, "allow file unreadable", http.StatusInternalServerError)
			return
		}
		var req request
		if err := json.NewDecoder(io.LimitReader(r.Body, 8<<20)).Decode(&req); err != nil || req.Version != 1 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		fault := al.Faults[req.Caller.UserID]
		switch fault {
		case "slow":
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			case <-done:
				return
			}
		case "hang":
			select {
			case <-r.Context().Done():
			case <-done:
			}
			return
		case "status":
			http.Error(w, "authority failure", http.StatusInternalServerError)
			return
		case "malformed":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"type": "`+req.Type+`", "allowed": [`)
			return
		case "huge":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"type": "`+req.Type+`", "allowed": [], "pad": "`)
			chunk := strings.Repeat("x", 1<<16)
			for range 256 {
				if _, err := io.WriteString(w, chunk); err != nil {
					return
				}
			}
			_, _ = io.WriteString(w, `"}`)
			return
		}
		allowed := []string{}
		if req.Caller.Admin && al.Admins == "all" {
			allowed = append(allowed, req.IDs...)
		} else if types, ok := al.Users[req.Caller.UserID]; ok {
			for _, id := range req.IDs {
				if slices.Contains(types[req.Type], id) {
					allowed = append(allowed, id)
				}
			}
		}
		typ := req.Type
		switch fault {
		case "wrong-ids":
			allowed = append(allowed, "999999999")
		case "wrong-type":
			typ = "Not" + typ
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"type": typ, "allowed": allowed})
	})
}
