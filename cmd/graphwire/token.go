package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/serveconfig"
)

// tokenFlags are the parsed flags of graphwire token.
type tokenFlags struct {
	secretFile string
	sub        string
	admin      bool
	scopes     scopeList
	ttl        time.Duration
	issuer     string
	audience   string
	keyID      string
}

func newTokenCmd(s streams) *cobra.Command {
	var f tokenFlags
	cmd := &cobra.Command{
		Use:     "token --jwt-secret-file FILE --sub ID [--admin | --scope PATH[:LEVEL] ...] [flags]",
		Short:   "mint a development JWT",
		Long:    "Mint an HS256 JWT for graphwire serve and graphwire mcp, signed with the secret in --jwt-secret-file.",
		Example: "  graphwire token --jwt-secret-file /tmp/secret --sub 1 --scope 1/:30",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			uid, err := strconv.ParseInt(f.sub, 10, 64)
			switch {
			case f.secretFile == "":
				return usageErrorf("--jwt-secret-file is required")
			case err != nil || uid <= 0:
				return usageErrorf("--sub must be a positive user id, not %q", f.sub)
			}
			return runToken(f, uid, s.stdout)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.secretFile, "jwt-secret-file", "", "file holding the HS256 secret; required")
	fs.StringVar(&f.sub, "sub", "", "user id (positive integer); required")
	fs.BoolVar(&f.admin, "admin", false, "mint an admin token")
	fs.Var(&f.scopes, "scope", "grant a traversal-path prefix, PATH[:LEVEL] (level default 50); repeatable")
	fs.DurationVar(&f.ttl, "ttl", time.Hour, "lifetime, at most 24h")
	fs.StringVar(&f.issuer, "jwt-issuer", "", "iss claim")
	fs.StringVar(&f.audience, "jwt-audience", "graphwire", "aud claim")
	fs.StringVar(&f.keyID, "jwt-key-id", "", `sign with the key of this id in the key file ("KID SECRET" lines) and name it in the token's kid header; default: the file's last key, no kid`)
	// The spellings before the flags matched serve's and mcp's.
	deprecatedAlias(fs, "jwt-secret-file", "secret-file", s.stderr)
	deprecatedAlias(fs, "jwt-issuer", "issuer", s.stderr)
	deprecatedAlias(fs, "jwt-audience", "audience", s.stderr)
	return cmd
}

// runToken is the running half of graphwire token.
func runToken(f tokenFlags, uid int64, stdout io.Writer) error {
	keys, err := serveconfig.ReadKeys(f.secretFile)
	if err != nil {
		return err
	}
	secret := keys[len(keys)-1].Secret
	if f.keyID != "" {
		i := slices.IndexFunc(keys, func(k serveconfig.Key) bool { return k.ID == f.keyID })
		if i < 0 {
			var ids []string
			for _, k := range keys {
				if k.ID != "" {
					ids = append(ids, k.ID)
				}
			}
			if len(ids) == 0 {
				return usageErrorf("--jwt-key-id %q: the keys in %s have no ids (a line \"KID SECRET\" names one)", f.keyID, f.secretFile)
			}
			return usageErrorf("--jwt-key-id %q: no key of that id in %s (ids: %s)", f.keyID, f.secretFile, strings.Join(ids, ", "))
		}
		secret = keys[i].Secret
	}
	tok, err := auth.Mint(secret, auth.Claims{UserID: uid, Admin: f.admin, Scopes: authScopes(f.scopes)},
		auth.MintOptions{Issuer: f.issuer, Audience: f.audience, TTL: f.ttl, KeyID: f.keyID})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, tok)
	return err
}

func authScopes(s []compiler.Scope) []auth.Scope {
	out := make([]auth.Scope, len(s))
	for i, sc := range s {
		out[i] = auth.Scope{Path: sc.Path, Level: sc.Level}
	}
	return out
}
