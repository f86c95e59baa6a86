// Package tokens counts language-model tokens offline with the o200k_base
// and cl100k_base encodings (github.com/tiktoken-go/tokenizer embeds both).
package tokens

import (
	"fmt"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// Encoding names.
const (
	O200k  = "o200k_base"
	CL100k = "cl100k_base"
)

// Counter counts tokens. The zero value is not usable; call [New]. A Counter
// is safe for concurrent use; codecs load on first use.
type Counter struct {
	mu     sync.Mutex
	codecs map[string]tokenizer.Codec
}

// New returns a Counter.
func New() *Counter { return &Counter{codecs: map[string]tokenizer.Codec{}} }

func (c *Counter) codec(enc string) (tokenizer.Codec, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cd, ok := c.codecs[enc]; ok {
		return cd, nil
	}
	var cd tokenizer.Codec
	var err error
	switch enc {
	case O200k:
		cd, err = tokenizer.Get(tokenizer.O200kBase)
	case CL100k:
		cd, err = tokenizer.Get(tokenizer.Cl100kBase)
	default:
		return nil, fmt.Errorf("tokens: unknown encoding %q", enc)
	}
	if err != nil {
		return nil, fmt.Errorf("tokens: load %s: %w", enc, err)
	}
	c.codecs[enc] = cd
	return cd, nil
}

// chunkBytes is the size above which Count counts a text in pieces: the tokenizer's memory
// grows with the text it is given (about 12 times a 10 MB text at its peak), a piece's does
// not.
const chunkBytes = 1 << 20

// Count returns the number of tokens of text in encoding enc. A text over 1 MiB is counted in
// pieces of about 1 MiB, cut only where the count cannot change: before a space that follows a
// letter and precedes one (ASCII), a boundary of the encodings' pre-tokenization, so that the
// sum is the count of the whole. A text without such a place is counted whole.
func (c *Counter) Count(enc, text string) (int, error) {
	cd, err := c.codec(enc)
	if err != nil {
		return 0, err
	}
	total := 0
	for len(text) > 0 {
		piece := text[:cut(text)]
		n, err := cd.Count(piece)
		if err != nil {
			return 0, fmt.Errorf("tokens: count %s: %w", enc, err)
		}
		total += n
		text = text[len(piece):]
	}
	return total, nil
}

// cut returns the length of the next piece of text to count: all of it when it is at most
// chunkBytes long, else the first boundary at or after chunkBytes (see Count), else all of it.
func cut(text string) int {
	if len(text) <= chunkBytes {
		return len(text)
	}
	for i := chunkBytes; i+1 < len(text); i++ {
		if text[i] == ' ' && asciiLetter(text[i-1]) && asciiLetter(text[i+1]) {
			return i
		}
	}
	return len(text)
}

func asciiLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }
