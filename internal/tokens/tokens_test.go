package tokens_test

import (
	"testing"

	"github.com/graphwire/graphwire/internal/tokens"
)

func TestCount(t *testing.T) {
	c := tokens.New()
	for _, enc := range []string{tokens.O200k, tokens.CL100k} {
		empty, err := c.Count(enc, "")
		if err != nil || empty != 0 {
			t.Errorf("%s: empty text = %d, %v", enc, empty, err)
		}
		short, _ := c.Count(enc, "hello world")
		long, _ := c.Count(enc, "hello world, hello world, hello world")
		if short < 2 || long <= short {
			t.Errorf("%s: counts %d and %d are not increasing", enc, short, long)
		}
	}
	if _, err := c.Count("p50k", "x"); err == nil {
		t.Error("unknown encoding accepted")
	}
}
