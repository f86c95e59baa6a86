package main

import (
	"crypto"
	"fmt"
	"io"
	"os"
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
	privateKey string // --jwt-private-key: sign with an asymmetric key instead
	alg        string
	printJWKS  bool
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
		Use:   "token (--jwt-secret-file FILE | --jwt-private-key FILE) --sub ID [--admin | --scope PATH[:LEVEL] ...] [flags]",
		Short: "mint a development JWT",
		Long: "Mint a JWT for graphwire serve and graphwire mcp: HS256, signed with the secret in --jwt-secret-file, or\n" +
			"RS256/384/512, PS256/384/512, ES256/384/512 or EdDSA, signed with the PEM private key in --jwt-private-key\n" +
			"(what an identity provider would issue; --print-jwks prints the key's public JWKS for serve --jwks-file).",
		Example: "  graphwire token --jwt-secret-file /tmp/secret --sub 1 --scope 1/:30\n" +
			"  openssl genpkey -algorithm ed25519 -out /tmp/idp.pem\n" +
			"  graphwire token --jwt-private-key /tmp/idp.pem --jwt-key-id k1 --print-jwks > /tmp/jwks.json\n" +
			"  graphwire token --jwt-private-key /tmp/idp.pem --jwt-key-id k1 --sub 1 --scope 1/:30",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case f.secretFile == "" && f.privateKey == "":
				return usageErrorf("--jwt-secret-file or --jwt-private-key is required")
			case f.secretFile != "" && f.privateKey != "":
				return usageErrorf("use --jwt-secret-file or --jwt-private-key, not both")
			case f.privateKey == "" && (f.alg != "" || f.printJWKS):
				return usageErrorf("--jwt-alg and --print-jwks need --jwt-private-key")
			}
			if f.printJWKS {
				return runPrintJWKS(f, s.stdout)
			}
			uid, err := strconv.ParseInt(f.sub, 10, 64)
			if err != nil || uid <= 0 {
				return usageErrorf("--sub must be a positive user id, not %q", f.sub)
			}
			return runToken(f, uid, s.stdout)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.secretFile, "jwt-secret-file", "", "file holding the HS256 secret (this or --jwt-private-key is required)")
	fs.StringVar(&f.privateKey, "jwt-private-key", "", "PEM private key (RSA, ECDSA P-256/384/521 or Ed25519, unencrypted) to sign with instead of an HS256 secret")
	fs.StringVar(&f.alg, "jwt-alg", "", "algorithm for --jwt-private-key: RS256/384/512 or PS256/384/512 (RSA), ES256/384/512 (by curve), EdDSA (default: RS256, the curve's ES, EdDSA)")
	fs.BoolVar(&f.printJWKS, "print-jwks", false, "print the public JWKS of --jwt-private-key (with --jwt-key-id and --jwt-alg), for serve --jwks-file, instead of a token")
	fs.StringVar(&f.sub, "sub", "", "user id (positive integer); required")
	fs.BoolVar(&f.admin, "admin", false, "mint an admin token")
	fs.Var(&f.scopes, "scope", "grant a traversal-path prefix, PATH[:LEVEL] (level default 50); repeatable")
	fs.DurationVar(&f.ttl, "ttl", time.Hour, "lifetime, at most 24h")
	fs.StringVar(&f.issuer, "jwt-issuer", "", "iss claim")
	fs.StringVar(&f.audience, "jwt-audience", "graphwire", "aud claim")
	fs.StringVar(&f.keyID, "jwt-key-id", "", `sign with the key of this id in the key file ("KID SECRET" lines) and name it in the token's kid header; default: the file's last key, no kid. With --jwt-private-key: the kid of the token and of --print-jwks`)
	// The spellings before the flags matched serve's and mcp's.
	deprecatedAlias(fs, "jwt-secret-file", "secret-file", s.stderr)
	deprecatedAlias(fs, "jwt-issuer", "issuer", s.stderr)
	deprecatedAlias(fs, "jwt-audience", "audience", s.stderr)
	return cmd
}

// readPrivateKey reads --jwt-private-key.
func readPrivateKey(path string) (crypto.Signer, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("--jwt-private-key: %w", err)
	}
	if fi.Size() > 1<<20 {
		return nil, fmt.Errorf("--jwt-private-key %s: %d bytes, not a key file (at most 1 MiB)", path, fi.Size())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--jwt-private-key: %w", err)
	}
	key, err := auth.ParsePrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("--jwt-private-key %s: %w", path, err)
	}
	return key, nil
}

// runPrintJWKS is graphwire token --print-jwks.
func runPrintJWKS(f tokenFlags, stdout io.Writer) error {
	key, err := readPrivateKey(f.privateKey)
	if err != nil {
		return err
	}
	if _, err := auth.SigningAlgorithm(key, f.alg); err != nil {
		return usageErrorf("--jwt-alg: %v", err)
	}
	doc, err := auth.PublicJWKS(key, f.alg, f.keyID)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", doc)
	return err
}

// runToken is the running half of graphwire token.
func runToken(f tokenFlags, uid int64, stdout io.Writer) error {
	claims := auth.Claims{UserID: uid, Admin: f.admin, Scopes: authScopes(f.scopes)}
	opts := auth.MintOptions{Issuer: f.issuer, Audience: f.audience, TTL: f.ttl, KeyID: f.keyID}
	if f.privateKey != "" {
		key, err := readPrivateKey(f.privateKey)
		if err != nil {
			return err
		}
		if _, err := auth.SigningAlgorithm(key, f.alg); err != nil {
			return usageErrorf("--jwt-alg: %v", err)
		}
		tok, err := auth.MintSigned(key, f.alg, claims, opts)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(stdout, tok)
		return err
	}
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
	tok, err := auth.Mint(secret, claims, opts)
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
