package mcpsvc

import (
	"io"
	"net/http"
	"time"
)

// streamDeadlines manages the connection deadlines of an authenticated request, so that the
// server's timeouts bound what a stranger can hold without cutting a tool call or a stream.
//
// The http.Server's ReadTimeout bounds reading the request, body included, from its first
// byte; once the body has been read the deadline is lifted, because net/http keeps reading
// the connection in the background while the handler runs and would cancel the request when
// the deadline passed, in the middle of a tool call or an SSE stream. The server's
// WriteTimeout would likewise end a stream that lives longer than it; instead each write
// and flush gets writeTimeout from its start, so a stream lives as long as the client reads
// it, and a client that stops reading is cut after writeTimeout. writeTimeout 0 leaves the
// server's deadlines alone.
func streamDeadlines(writeTimeout time.Duration, next http.Handler) http.Handler {
	if writeTimeout <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		lift := func() { rc.SetReadDeadline(time.Time{}) } // unsupported: nothing to lift
		if r.Body == nil || r.Body == http.NoBody {
			lift()
		} else {
			r.Body = &liftAtEOF{ReadCloser: r.Body, lift: lift}
		}
		rc.SetWriteDeadline(time.Time{})
		next.ServeHTTP(&renewingWriter{ResponseWriter: w, rc: rc, d: writeTimeout}, r)
	})
}

// liftAtEOF calls lift once, when the body has been read to its end.
type liftAtEOF struct {
	io.ReadCloser
	lift func()
}

func (b *liftAtEOF) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && b.lift != nil {
		b.lift()
		b.lift = nil
	}
	return n, err
}

// renewingWriter gives every write and flush a write deadline of d from its start.
type renewingWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
	d  time.Duration
}

func (w *renewingWriter) renew() { w.rc.SetWriteDeadline(time.Now().Add(w.d)) }

func (w *renewingWriter) Write(p []byte) (int, error) {
	w.renew()
	return w.ResponseWriter.Write(p)
}

func (w *renewingWriter) WriteHeader(code int) {
	w.renew()
	w.ResponseWriter.WriteHeader(code)
}

func (w *renewingWriter) Flush() {
	w.renew()
	w.rc.Flush()
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *renewingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
