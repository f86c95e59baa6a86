// Package xdg resolves the XDG base directories graphwire keeps its files under (the XDG Base
// Directory Specification): a variable that holds an absolute path wins, anything else falls
// back to a directory under $HOME.
//
//	XDG_CACHE_HOME=/xdg/cache  Dir("XDG_CACHE_HOME", ".cache") = "/xdg/cache"
//	XDG_CACHE_HOME=rel/cache   Dir("XDG_CACHE_HOME", ".cache") = "$HOME/.cache"
package xdg
