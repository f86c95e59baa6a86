package gcb1

// Options tunes the encoder and decoder. It has no fields yet: the zero
// value is the only mapping, documented in the package comment. Options is
// passed by value and safe to share.
type Options struct{}
