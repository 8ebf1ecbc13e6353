/* route.h - the daemon's route table and the text it takes from clients:
 * path matching, percent-decoding, file names, audit-log escaping.  Pure
 * functions (no libmicrohttpd), so that they are unit-tested and fuzzed
 * (tests/fuzz/fuzz_route.c) apart from the server. */
#ifndef VP_SRV_ROUTE_H
#define VP_SRV_ROUTE_H

#include <stdbool.h>
#include <stddef.h>

#include "srv/users.h"
#include "util/sbuf.h"

struct srv_route {
	const char *method;
	const char *path;        /* '*' matches one segment; a last "**" the rest, slashes and all */
	enum user_role min_role;
};

/* The API's endpoints, in the order of srv_routes[]. */
enum srv_route_id {
	SRV_R_WHOAMI, SRV_R_INFO, SRV_R_VMS, SRV_R_MODELS, SRV_R_MODEL, SRV_R_RECS, SRV_R_REC,
	SRV_R_COLLECTOR, SRV_R_SESSIONS, SRV_R_SESSION_NEW, SRV_R_SESSION, SRV_R_SESSION_DEL,
	SRV_R_STREAM, SRV_R_HISTORY, SRV_R_DIAGNOSIS, SRV_R_TOP, SRV_ROUTE_N
};
extern const struct srv_route srv_routes[SRV_ROUTE_N];

#define SRV_ROUTE_ARGS 4           /* at most this many '*' arguments */

enum srv_route_result {
	SRV_ROUTE_OK,            /* *route and args set */
	SRV_ROUTE_FORBIDDEN,     /* the path and method exist; the role is too low (*route set) */
	SRV_ROUTE_METHOD,        /* the path exists, not with this method */
	SRV_ROUTE_NONE,          /* no such path */
};

/*
 * The route of method and url (already percent-decoded) for role: args[]
 * point into buf (size bytes; a url that does not fit is SRV_ROUTE_NONE).
 */
enum srv_route_result srv_route_find(const char *method, const char *url, enum user_role role,
				     char *buf, size_t size, char **args, int *route);

/* Percent-decode s in place (%00 becomes 0x01: a name never ends early); its new length. */
size_t srv_unescape(char *s);

/* Whether a single path component is safe to open in a directory: not empty, no '/',
 * '\\', control character or DEL, no leading '.', no "..". */
bool srv_name_ok(const char *name);

/*
 * One audit field, escaped so that no value can end the line or forge a
 * field: control characters (C0, DEL and C1, U+0080 to U+009F), bytes that
 * are not UTF-8, backslash and
 * double quote become \xNN (\" and \\ inside the quoted result); outside
 * the quotes, space and '=' too.
 */
void srv_audit_escape(struct sbuf *sb, const char *s, bool quoted);

#endif
