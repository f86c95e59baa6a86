package markdown

// Options tunes the encoder. It has no fields yet: the zero value is the
// only layout, documented in the package comment. Options is passed by
// value and safe to share.
type Options struct{}
