/*
 * chserver runs clickhouse-local from the embedded engine's library (libchdb.so, ClickHouse
 * 26.7) with the arguments it is given, through the library's command-line entry point
 * chdb_query_cmdline. With --listen_host, --tcp_port, --http_port and a query that starts the
 * listeners (SYSTEM START LISTEN) and then runs until stopped, it is a ClickHouse server on
 * loopback: scripts/clickhouse-server.sh starts it that way. The library is loaded with
 * dlopen from $GRAPHWIRE_CHDB_LIB, as executor/chdb loads it.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct chdb_result chdb_result;
typedef chdb_result *(*cmdline_fn)(int, char **);
typedef const char *(*error_fn)(chdb_result *);

int main(int argc, char **argv) {
	const char *lib = getenv("GRAPHWIRE_CHDB_LIB");
	if (lib == NULL || *lib == '\0') {
		fprintf(stderr, "chserver: GRAPHWIRE_CHDB_LIB is not set\n");
		return 2;
	}
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		fprintf(stderr, "chserver: dlopen %s: %s\n", lib, dlerror());
		return 2;
	}
	cmdline_fn query = (cmdline_fn)dlsym(h, "chdb_query_cmdline");
	error_fn error = (error_fn)dlsym(h, "chdb_result_error");
	if (query == NULL || error == NULL) {
		fprintf(stderr, "chserver: %s lacks chdb_query_cmdline or chdb_result_error\n", lib);
		return 2;
	}
	argv[0] = "clickhouse";
	chdb_result *r = query(argc, argv);
	const char *msg = r != NULL ? error(r) : "no result";
	if (msg != NULL && *msg != '\0') {
		fprintf(stderr, "chserver: %s\n", msg);
		return 1;
	}
	return 0;
}
