package serveconfig

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
)

// Key is one HS256 key of the JWT key file: ID is the token header's "kid"
// that selects it ("" when the line gives none).
type Key struct {
	ID     string
	Secret []byte
}

// ReadKeys reads the JWT key file at path: one key per line, either
// "SECRET" or "KID SECRET" (separated by spaces or tabs); blank lines and
// lines starting with # are skipped, and surrounding whitespace is not
// part of a key. A file holding one secret, as before rotation, is a valid
// key file. Key IDs must be unique. The secrets' length is checked by the
// verifier, not here; errors name the line but never quote a secret.
func ReadKeys(path string) ([]Key, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("serveconfig: read JWT key file: %w", err)
	}
	var keys []Key
	ids := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k := Key{Secret: []byte(line)}
		if f := strings.Fields(line); len(f) == 2 {
			k = Key{ID: f[0], Secret: []byte(f[1])}
		} else if len(f) > 2 {
			return nil, &Error{Source: fmt.Sprintf("%s:%d", path, n), Option: "jwt-secret-file",
				Err: fmt.Errorf("%w: want SECRET or KID SECRET", ErrInvalidFile)}
		}
		if k.ID != "" {
			if prev, ok := ids[k.ID]; ok {
				return nil, &Error{Source: fmt.Sprintf("%s:%d", path, n), Option: "jwt-secret-file",
					Err: fmt.Errorf("%w: key id %q also on line %d", ErrInvalidFile, k.ID, prev)}
			}
			ids[k.ID] = n
		}
		keys = append(keys, k)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("serveconfig: read JWT key file: %w", err)
	}
	if len(keys) == 0 {
		return nil, &Error{Source: path, Option: "jwt-secret-file", Err: fmt.Errorf("%w: no key in it", ErrInvalidFile)}
	}
	return keys, nil
}
