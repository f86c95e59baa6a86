//go:build cgo

package chdb

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// The chDB C API (chdb.h of chDB 26.7), declared through opaque pointers so that no header and no
// link-time dependency is needed: every function is resolved with dlsym after dlopen.
typedef struct gw_api {
	void *handle;
	const char *(*version)(void);
	void (*set_signal_handlers_enabled)(int);
	void **(*connect)(int, char **);
	void (*close_conn)(void **);
	void *(*query_with_params_n)(void *, const char *, size_t, const char *, size_t,
		const char *const *, const size_t *, const char *const *, const size_t *, size_t);
	void *(*stream_query_with_params_n)(void *, const char *, size_t, const char *, size_t,
		const char *const *, const size_t *, const char *const *, const size_t *, size_t);
	void *(*stream_fetch_result)(void *, void *);
	void (*stream_cancel_query)(void *, void *);
	char *(*result_buffer)(void *);
	size_t (*result_length)(void *);
	const char *(*result_error)(void *);
	uint64_t (*result_rows_read)(void *);  // rows read from storage, not rows returned
	uint64_t (*result_bytes_read)(void *); // bytes read from storage
	double (*result_elapsed)(void *);
	void (*destroy_query_result)(void *);
	void *(*stream_insert_n)(void *, const char *, size_t, const char *, size_t);
	int (*stream_append)(void *, const void *, size_t);
	void *(*stream_done)(void *);
	const char *(*stream_insert_error)(void *);
	void (*destroy_insert_stream)(void *);
} gw_api;

// gw_load opens the library and resolves every symbol. On failure it returns NULL and a
// malloc'd message in *err (the caller frees it).
static gw_api *gw_load(const char *path, char **err) {
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		*err = strdup(e ? e : "dlopen failed");
		return NULL;
	}
	gw_api *a = calloc(1, sizeof(gw_api));
	a->handle = h;
#define GW_SYM(field, name) \
	a->field = dlsym(h, name); \
	if (!a->field) { *err = strdup("missing symbol " name); free(a); return NULL; }
	GW_SYM(version, "chdb_version")
	GW_SYM(set_signal_handlers_enabled, "chdb_set_signal_handlers_enabled")
	GW_SYM(connect, "chdb_connect")
	GW_SYM(close_conn, "chdb_close_conn")
	GW_SYM(query_with_params_n, "chdb_query_with_params_n")
	GW_SYM(stream_query_with_params_n, "chdb_stream_query_with_params_n")
	GW_SYM(stream_fetch_result, "chdb_stream_fetch_result")
	GW_SYM(stream_cancel_query, "chdb_stream_cancel_query")
	GW_SYM(result_buffer, "chdb_result_buffer")
	GW_SYM(result_length, "chdb_result_length")
	GW_SYM(result_error, "chdb_result_error")
	GW_SYM(result_rows_read, "chdb_result_storage_rows_read")
	GW_SYM(result_bytes_read, "chdb_result_storage_bytes_read")
	GW_SYM(result_elapsed, "chdb_result_elapsed")
	GW_SYM(destroy_query_result, "chdb_destroy_query_result")
	GW_SYM(stream_insert_n, "chdb_stream_insert_n")
	GW_SYM(stream_append, "chdb_stream_append")
	GW_SYM(stream_done, "chdb_stream_done")
	GW_SYM(stream_insert_error, "chdb_stream_insert_error")
	GW_SYM(destroy_insert_stream, "chdb_destroy_insert_stream")
#undef GW_SYM
	return a;
}

static const char *gw_version(gw_api *a) { return a->version(); }
static void gw_disable_signals(gw_api *a) { a->set_signal_handlers_enabled(0); }
static void **gw_connect(gw_api *a, int argc, char **argv) { return a->connect(argc, argv); }

// gw_connect_stderr_to is gw_connect with file descriptor 2 pointed at out for the duration of
// the call: the engine prints its boot problems (and the news that it logs to a file) there, and
// standard error belongs to the program.
static void **gw_connect_stderr_to(gw_api *a, int argc, char **argv, int out) {
	int saved = dup(2);
	if (saved < 0) {
		return a->connect(argc, argv);
	}
	dup2(out, 2);
	void **c = a->connect(argc, argv);
	dup2(saved, 2);
	close(saved);
	return c;
}
static void gw_close(gw_api *a, void **c) { a->close_conn(c); }

static void *gw_query(gw_api *a, void **c, const char *q, size_t qlen, const char *f, size_t flen,
		const char *const *names, const size_t *nlens, const char *const *vals, const size_t *vlens, size_t n) {
	return a->query_with_params_n(*c, q, qlen, f, flen, names, nlens, vals, vlens, n);
}
static void *gw_stream_query(gw_api *a, void **c, const char *q, size_t qlen, const char *f, size_t flen,
		const char *const *names, const size_t *nlens, const char *const *vals, const size_t *vlens, size_t n) {
	return a->stream_query_with_params_n(*c, q, qlen, f, flen, names, nlens, vals, vlens, n);
}
static void *gw_stream_fetch(gw_api *a, void **c, void *s) { return a->stream_fetch_result(*c, s); }
static void gw_stream_cancel(gw_api *a, void **c, void *s) { a->stream_cancel_query(*c, s); }
static char *gw_buffer(gw_api *a, void *r) { return a->result_buffer(r); }
static size_t gw_length(gw_api *a, void *r) { return a->result_length(r); }
static const char *gw_error(gw_api *a, void *r) { return a->result_error(r); }
static uint64_t gw_rows_read(gw_api *a, void *r) { return a->result_rows_read(r); }
static uint64_t gw_bytes_read(gw_api *a, void *r) { return a->result_bytes_read(r); }
static double gw_elapsed(gw_api *a, void *r) { return a->result_elapsed(r); }
static void gw_destroy(gw_api *a, void *r) { a->destroy_query_result(r); }

static void *gw_insert_begin(gw_api *a, void **c, const char *q, size_t qlen, const char *f, size_t flen) {
	return a->stream_insert_n(*c, q, qlen, f, flen);
}
static int gw_insert_append(gw_api *a, void *s, const void *data, size_t len) { return a->stream_append(s, data, len); }
static void *gw_insert_done(gw_api *a, void *s) { return a->stream_done(s); }
static const char *gw_insert_error(gw_api *a, void *s) { return a->stream_insert_error(s); }
static void gw_insert_destroy(gw_api *a, void *s) { a->destroy_insert_stream(s); }
*/
import "C"

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
	"unsafe"
)

// lib is a loaded libchdb.so. It is process-wide: the engine inside it is a singleton, so lib
// values are shared through libs and never unloaded.
type lib struct {
	api     *C.gw_api
	path    string
	version string
}

// libs caches loaded libraries by path. This is the package's only mutable global: dlopen and
// the engine it starts are process-wide, so a second load of the same library must return the
// same handle.
var libs struct {
	sync.Mutex
	m map[string]*lib
}

func loadLib(path string) (*lib, error) {
	libs.Lock()
	defer libs.Unlock()
	if l, ok := libs.m[path]; ok {
		return l, nil
	}
	api, err := dlopenLib(path)
	if err != nil {
		return nil, err
	}
	l := &lib{api: api, path: path, version: C.GoString(C.gw_version(api))}
	// The Go runtime owns signal handling; chDB must not install handlers of its own.
	C.gw_disable_signals(api)
	if libs.m == nil {
		libs.m = map[string]*lib{}
	}
	libs.m[path] = l
	return l, nil
}

func dlopenLib(path string) (*C.gw_api, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var cerr *C.char
	api := C.gw_load(cpath, &cerr)
	if api == nil {
		defer C.free(unsafe.Pointer(cerr))
		return nil, fmt.Errorf("load %s: %s", path, C.GoString(cerr))
	}
	return api, nil
}

// conn is one chDB connection. It runs one statement at a time.
type conn struct {
	lib *lib
	c   *unsafe.Pointer // chdb_connection*
}

// connect opens a connection with the given command-line style arguments (--path=…).
func (l *lib) connect(args []string) (*conn, error) { return l.connectTo(args, nil) }

// connectQuiet is connect with whatever the engine writes to standard error during the call
// kept off the process's stderr: it becomes part of the error when the connection fails and
// is dropped otherwise. Use it only where nothing else of the process writes to stderr at the
// time (Open's first connection), since those writes would be caught too.
func (l *lib) connectQuiet(args []string) (*conn, error) {
	f, err := os.CreateTemp("", "graphwire-chdb-stderr-")
	if err != nil {
		return l.connect(args)
	}
	defer f.Close()
	os.Remove(f.Name()) // the open descriptor keeps it
	c, err := l.connectTo(args, f)
	if err != nil {
		if _, serr := f.Seek(0, io.SeekStart); serr == nil {
			if said, _ := io.ReadAll(io.LimitReader(f, 4096)); len(bytes.TrimSpace(said)) > 0 {
				err = fmt.Errorf("%w: %s", err, bytes.Join(bytes.Fields(said), []byte(" ")))
			}
		}
	}
	return c, err
}

// connectTo opens a connection; with stderr set, file descriptor 2 points at it during the call.
func (l *lib) connectTo(args []string, stderr *os.File) (*conn, error) {
	argv := C.malloc(C.size_t(len(args)+1) * C.size_t(unsafe.Sizeof(uintptr(0))))
	defer C.free(argv)
	cargs := unsafe.Slice((**C.char)(argv), len(args)+1)
	for i, a := range args {
		cargs[i] = C.CString(a)
	}
	cargs[len(args)] = nil
	defer func() {
		for _, p := range cargs[:len(args)] {
			C.free(unsafe.Pointer(p))
		}
	}()
	var c *unsafe.Pointer
	if stderr != nil {
		c = C.gw_connect_stderr_to(l.api, C.int(len(args)), (**C.char)(argv), C.int(stderr.Fd()))
	} else {
		c = C.gw_connect(l.api, C.int(len(args)), (**C.char)(argv))
	}
	if c == nil {
		return nil, errors.New("chdb_connect returned no connection")
	}
	return &conn{lib: l, c: (*unsafe.Pointer)(unsafe.Pointer(c))}, nil
}

func (c *conn) close() {
	if c.c != nil {
		C.gw_close(c.lib.api, (*unsafe.Pointer)(unsafe.Pointer(c.c)))
		c.c = nil
	}
}

// result is a query result copied into Go memory.
type result struct {
	data    []byte
	errText string // non-empty when the engine reported an error
	stats   statsC
}

type statsC struct {
	rowsRead, bytesRead uint64
	elapsed             time.Duration
}

// cparams holds a statement's text, output format and named parameters in C memory, laid out
// for the chdb_*_with_params_n calls. free releases all of it.
type cparams struct {
	sql, format         unsafe.Pointer
	sqlLen, formatLen   C.size_t
	names, values       unsafe.Pointer // const char *const *
	nameLens, valueLens unsafe.Pointer // const size_t *
	n                   C.size_t
	owned               []unsafe.Pointer
}

func newCParams(sql, format string, names, values []string) *cparams {
	p := &cparams{
		sql: cbytes(sql), sqlLen: C.size_t(len(sql)),
		format: cbytes(format), formatLen: C.size_t(len(format)),
		n: C.size_t(len(names)),
	}
	p.owned = append(p.owned, p.sql, p.format)
	n := len(names)
	if n == 0 {
		return p
	}
	ptrSize := C.size_t(unsafe.Sizeof(uintptr(0)))
	lenSize := C.size_t(unsafe.Sizeof(C.size_t(0)))
	p.names = C.malloc(C.size_t(n) * ptrSize)
	p.values = C.malloc(C.size_t(n) * ptrSize)
	p.nameLens = C.malloc(C.size_t(n) * lenSize)
	p.valueLens = C.malloc(C.size_t(n) * lenSize)
	p.owned = append(p.owned, p.names, p.values, p.nameLens, p.valueLens)
	np := unsafe.Slice((*unsafe.Pointer)(p.names), n)
	vp := unsafe.Slice((*unsafe.Pointer)(p.values), n)
	nl := unsafe.Slice((*C.size_t)(p.nameLens), n)
	vl := unsafe.Slice((*C.size_t)(p.valueLens), n)
	for i := range n {
		np[i] = cbytes(names[i])
		vp[i] = cbytes(values[i])
		p.owned = append(p.owned, np[i], vp[i])
		nl[i] = C.size_t(len(names[i]))
		vl[i] = C.size_t(len(values[i]))
	}
	return p
}

func (p *cparams) free() {
	for _, ptr := range p.owned {
		C.free(ptr)
	}
	p.owned = nil
}

// query runs one statement with named parameters and returns its whole output in format.
func (c *conn) query(sql, format string, names, values []string) result {
	p := newCParams(sql, format, names, values)
	defer p.free()
	r := C.gw_query(c.lib.api, (*unsafe.Pointer)(unsafe.Pointer(c.c)),
		(*C.char)(p.sql), p.sqlLen, (*C.char)(p.format), p.formatLen,
		(**C.char)(p.names), (*C.size_t)(p.nameLens), (**C.char)(p.values), (*C.size_t)(p.valueLens), p.n)
	return c.lib.take(r)
}

// startStream starts one statement with named parameters whose output in format is then
// read chunk by chunk with fetch. It returns the stream handle, or nil and the engine's error
// text. A non-nil handle must be passed to endStream.
func (c *conn) startStream(sql, format string, names, values []string) (unsafe.Pointer, string) {
	p := newCParams(sql, format, names, values)
	defer p.free()
	s := C.gw_stream_query(c.lib.api, (*unsafe.Pointer)(unsafe.Pointer(c.c)),
		(*C.char)(p.sql), p.sqlLen, (*C.char)(p.format), p.formatLen,
		(**C.char)(p.names), (*C.size_t)(p.nameLens), (**C.char)(p.values), (*C.size_t)(p.valueLens), p.n)
	if s == nil {
		return nil, "chdb_stream_query returned no stream"
	}
	if e := C.gw_error(c.lib.api, s); e != nil {
		text := C.GoString(e)
		C.gw_destroy(c.lib.api, s)
		if text == "" {
			text = "unknown chdb error"
		}
		return nil, text
	}
	return s, ""
}

// fetch returns the next chunk of the stream s; an empty chunk without error ends it.
func (c *conn) fetch(s unsafe.Pointer) result {
	return c.lib.take(C.gw_stream_fetch(c.lib.api, (*unsafe.Pointer)(unsafe.Pointer(c.c)), s))
}

// cancelStream stops the statement behind s in the engine.
func (c *conn) cancelStream(s unsafe.Pointer) {
	C.gw_stream_cancel(c.lib.api, (*unsafe.Pointer)(unsafe.Pointer(c.c)), s)
}

// endStream releases the stream handle s.
func (c *conn) endStream(s unsafe.Pointer) { C.gw_destroy(c.lib.api, s) }

// cbytes copies s into C memory; never a NULL pointer, even for an empty string.
func cbytes(s string) unsafe.Pointer {
	if s == "" {
		return C.calloc(1, 1)
	}
	return C.CBytes([]byte(s))
}

// take copies a chdb_result into Go memory and destroys it.
func (l *lib) take(r unsafe.Pointer) result {
	if r == nil {
		return result{errText: "chdb returned no result"}
	}
	defer C.gw_destroy(l.api, r)
	var res result
	if e := C.gw_error(l.api, r); e != nil {
		res.errText = C.GoString(e)
		if res.errText == "" {
			res.errText = "unknown chdb error"
		}
		return res
	}
	if n := C.gw_length(l.api, r); n > 0 {
		res.data = C.GoBytes(unsafe.Pointer(C.gw_buffer(l.api, r)), C.int(n))
	}
	res.stats = statsC{
		rowsRead:  uint64(C.gw_rows_read(l.api, r)),
		bytesRead: uint64(C.gw_bytes_read(l.api, r)),
		elapsed:   time.Duration(float64(C.gw_elapsed(l.api, r)) * float64(time.Second)),
	}
	return res
}

// insert streams data (already encoded in format) into the INSERT statement sql.
func (c *conn) insert(sql, format string, data []byte) result {
	s := c.beginInsert(sql, format)
	if s == nil {
		return result{errText: "chdb_stream_insert returned no stream"}
	}
	defer C.gw_insert_destroy(c.lib.api, s)
	if e := C.gw_insert_error(c.lib.api, s); e != nil {
		return result{errText: C.GoString(e)}
	}
	if len(data) > 0 {
		// data holds no Go pointers and chDB copies it, so passing it directly is allowed.
		if C.gw_insert_append(c.lib.api, s, unsafe.Pointer(&data[0]), C.size_t(len(data))) != 0 {
			if e := C.gw_insert_error(c.lib.api, s); e != nil {
				return result{errText: C.GoString(e)}
			}
			return result{errText: "chdb_stream_append failed"}
		}
	}
	return c.lib.take(C.gw_insert_done(c.lib.api, s))
}

func (c *conn) beginInsert(sql, format string) unsafe.Pointer {
	cq := C.CBytes([]byte(sql))
	defer C.free(cq)
	cf := C.CBytes([]byte(format))
	defer C.free(cf)
	return C.gw_insert_begin(c.lib.api, (*unsafe.Pointer)(unsafe.Pointer(c.c)),
		(*C.char)(cq), C.size_t(len(sql)), (*C.char)(cf), C.size_t(len(format)))
}
