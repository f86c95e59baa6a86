package gcx

// Format constants.
const (
	// Version is the GCX wire version this package reads and writes.
	Version = 1
	// Magic is the first token of every header line.
	Magic = "GCX1"
	// DefaultMaxLineBytes is the longest line, counted with its LF, that
	// the encoder writes and the decoder reads when Options.MaxLineBytes is
	// zero. It equals the limit of the gcx-go reader (4 MiB).
	DefaultMaxLineBytes = 4 << 20
)

// Options tunes the encoder and the decoder. The zero value gives the
// spec's defaults. Options is passed by value and safe to share.
type Options struct {
	// MaxLineBytes is the longest line, counted with its LF, that may be
	// written or read. Zero or a negative value means DefaultMaxLineBytes.
	MaxLineBytes int
	// EscapeHTML makes the generic fallback ([Encoder.EncodeValue]) write
	// <, > and & inside nested JSON cells as \u003c, \u003e and \u0026,
	// byte for byte like gcx-go. The default (false) writes them as is.
	// Nothing else is affected.
	EscapeHTML bool
}

func (o Options) maxLine() int {
	if o.MaxLineBytes <= 0 {
		return DefaultMaxLineBytes
	}
	return o.MaxLineBytes
}
