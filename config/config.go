// Package config embeds the project's versioned data files: the output
// format versions, the query DSL version and the JSON schemas.
//
// The files are the single source of each version; code never repeats a
// version literal. Versions are validated as semver when read.
package config

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/graphwire/graphwire/internal/semver"
)

var (
	//go:embed RAW_OUTPUT_FORMAT_VERSION
	rawVersion string
	//go:embed GOON_OUTPUT_FORMAT_VERSION
	goonVersion string
	//go:embed GCF_OUTPUT_FORMAT_VERSION
	gcfVersion string
	//go:embed GCX_OUTPUT_FORMAT_VERSION
	gcxVersion string
	//go:embed TOON_OUTPUT_FORMAT_VERSION
	toonVersion string
	//go:embed MARKDOWN_OUTPUT_FORMAT_VERSION
	markdownVersion string
	//go:embed XML_OUTPUT_FORMAT_VERSION
	xmlVersion string
	//go:embed GCB1_OUTPUT_FORMAT_VERSION
	gcb1Version string
	//go:embed QUERY_DSL_VERSION
	dslVersion string

	//go:embed schemas/query_response.json
	queryResponseSchema []byte
)

// ValidSemver reports whether v is a valid semantic version.
func ValidSemver(v string) bool { return semver.Valid(v) }

func version(name, content string) string {
	v := strings.TrimSpace(content)
	if !ValidSemver(v) {
		// The files are part of the build; a bad one is a build defect that
		// tests catch, so fail loudly at first use.
		panic(fmt.Sprintf("config: %s holds %q, not a semantic version", name, v))
	}
	return v
}

// RawVersion returns config/RAW_OUTPUT_FORMAT_VERSION.
func RawVersion() string { return rawVersionOnce() }

var rawVersionOnce = sync.OnceValue(func() string { return version("RAW_OUTPUT_FORMAT_VERSION", rawVersion) })

// GOONVersion returns config/GOON_OUTPUT_FORMAT_VERSION.
func GOONVersion() string { return goonVersionOnce() }

var goonVersionOnce = sync.OnceValue(func() string { return version("GOON_OUTPUT_FORMAT_VERSION", goonVersion) })

// GCFVersion returns config/GCF_OUTPUT_FORMAT_VERSION.
func GCFVersion() string { return gcfVersionOnce() }

var gcfVersionOnce = sync.OnceValue(func() string { return version("GCF_OUTPUT_FORMAT_VERSION", gcfVersion) })

// GCXVersion returns config/GCX_OUTPUT_FORMAT_VERSION.
func GCXVersion() string { return gcxVersionOnce() }

var gcxVersionOnce = sync.OnceValue(func() string { return version("GCX_OUTPUT_FORMAT_VERSION", gcxVersion) })

// TOONVersion returns config/TOON_OUTPUT_FORMAT_VERSION.
func TOONVersion() string { return toonVersionOnce() }

var toonVersionOnce = sync.OnceValue(func() string { return version("TOON_OUTPUT_FORMAT_VERSION", toonVersion) })

// MarkdownVersion returns config/MARKDOWN_OUTPUT_FORMAT_VERSION.
func MarkdownVersion() string { return markdownVersionOnce() }

var markdownVersionOnce = sync.OnceValue(func() string { return version("MARKDOWN_OUTPUT_FORMAT_VERSION", markdownVersion) })

// XMLVersion returns config/XML_OUTPUT_FORMAT_VERSION.
func XMLVersion() string { return xmlVersionOnce() }

var xmlVersionOnce = sync.OnceValue(func() string { return version("XML_OUTPUT_FORMAT_VERSION", xmlVersion) })

// GCB1Version returns config/GCB1_OUTPUT_FORMAT_VERSION.
func GCB1Version() string { return gcb1VersionOnce() }

var gcb1VersionOnce = sync.OnceValue(func() string { return version("GCB1_OUTPUT_FORMAT_VERSION", gcb1Version) })

// QueryDSLVersion returns config/QUERY_DSL_VERSION.
func QueryDSLVersion() string { return dslVersionOnce() }

var dslVersionOnce = sync.OnceValue(func() string { return version("QUERY_DSL_VERSION", dslVersion) })

// QueryResponseSchema returns config/schemas/query_response.json.
func QueryResponseSchema() []byte { return queryResponseSchema }
