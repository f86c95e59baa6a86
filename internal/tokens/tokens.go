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

// Count returns the number of tokens of text in encoding enc.
func (c *Counter) Count(enc, text string) (int, error) {
	cd, err := c.codec(enc)
	if err != nil {
		return 0, err
	}
	n, err := cd.Count(text)
	if err != nil {
		return 0, fmt.Errorf("tokens: count %s: %w", enc, err)
	}
	return n, nil
}
