package xdg

import (
	"os"
	"path/filepath"
)

// Dir is the XDG base directory named by env when that is an absolute path (the XDG spec
// ignores relative ones), else $HOME joined with def, else the temporary directory.
func Dir(env string, def ...string) string {
	if d := os.Getenv(env); filepath.IsAbs(d) {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return os.TempDir()
	}
	return filepath.Join(append([]string{home}, def...)...)
}
