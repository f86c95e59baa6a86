//go:build !linux

package main

import (
	"errors"
	"net"
)

// localSocket is "" where graphwire opens no write socket.
func localSocket(string) string { return "" }

// listenLocal is unsupported off Linux: peers cannot be checked.
func listenLocal(string) (net.Listener, error) {
	return nil, errors.New("local socket: not supported on this system")
}
