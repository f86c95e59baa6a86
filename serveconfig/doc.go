// Package serveconfig is the configuration of graphwire serve: one table
// of options as data ([Options]: name, kind, default, usage), the layering
// of their sources ([Resolve]), the JWT key file ([ReadKeys]) and the TLS
// material that reloads on SIGHUP ([CertLoader]).
//
// Each option is a flag, an environment variable and a config-file key at
// once, and the first source that sets it wins: the flag, then the
// variable, then the file, then the default.
//
//	--max-concurrent 8               (flag)
//	GRAPHWIRE_MAX_CONCURRENT=8       (environment)
//	max-concurrent: 8                (YAML file given by --config or $GRAPHWIRE_CONFIG)
//
// Resolve takes the flags the user gave as text, so any flag library can
// register the table: [NewFlagValue] is both a flag.Value and a
// pflag.Value. docs/service.md lists the options.
package serveconfig
