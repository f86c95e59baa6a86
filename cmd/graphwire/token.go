package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/compiler"
)

func runToken(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("token", flag.ContinueOnError)
	fs.SetOutput(stderr)
	secretFile := fs.String("secret-file", "", "file holding the HS256 secret; required")
	sub := fs.String("sub", "", "user id (positive integer); required")
	admin := fs.Bool("admin", false, "mint an admin token")
	var scopes scopeList
	fs.Var(&scopes, "scope", "grant a traversal-path prefix, PATH[:LEVEL] (level default 50); repeatable")
	ttl := fs.Duration("ttl", time.Hour, "lifetime, at most 24h")
	issuer := fs.String("issuer", "", "iss claim")
	audience := fs.String("audience", "graphwire", "aud claim")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	uid, err := strconv.ParseInt(*sub, 10, 64)
	if *secretFile == "" || err != nil || uid <= 0 || fs.NArg() != 0 {
		fmt.Fprintln(stderr, "usage: graphwire token --secret-file F --sub ID [--admin] [--scope PATH[:LEVEL] ...] [--ttl D]")
		return exitUsage
	}
	secret, err := readSecret(*secretFile)
	if err != nil {
		fmt.Fprintf(stderr, "graphwire token: %s\n", oneLine(err))
		return exitFailure
	}
	tok, err := auth.Mint(secret, auth.Claims{UserID: uid, Admin: *admin, Scopes: authScopes(scopes)},
		auth.MintOptions{Issuer: *issuer, Audience: *audience, TTL: *ttl})
	if err != nil {
		fmt.Fprintf(stderr, "graphwire token: %s\n", oneLine(err))
		return exitFailure
	}
	fmt.Fprintln(stdout, tok)
	return exitOK
}

func authScopes(s []compiler.Scope) []auth.Scope {
	out := make([]auth.Scope, len(s))
	for i, sc := range s {
		out[i] = auth.Scope{Path: sc.Path, Level: sc.Level}
	}
	return out
}
