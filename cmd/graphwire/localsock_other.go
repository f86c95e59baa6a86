//go:build !linux

package main

import (
	"context"
	"errors"
	"net"
)

// localSocket is "" where graphwire opens no write socket.
func localSocket(string) string { return "" }

// listenLocal is unsupported off Linux: peers cannot be checked.
func listenLocal(string) (net.Listener, error) {
	return nil, errors.New("local socket: not supported on this system")
}

// dialLocal is unsupported off Linux: no socket is opened.
func dialLocal(context.Context, string) (net.Conn, error) {
	return nil, errors.New("local socket: not supported on this system")
}
