package goon

// Options configures the GOON encoder and decoder.
type Options struct {
	// Version is printed verbatim on the goon_version: header line. It is
	// required and must be a semantic version (MAJOR.MINOR.PATCH with
	// optional -prerelease and +build, no leading zeros); Encode fails before
	// writing anything otherwise. Production code passes the content of
	// config/GOON_OUTPUT_FORMAT_VERSION; the conformance data uses 1.0.0.
	// The decoder ignores it.
	Version string
}
